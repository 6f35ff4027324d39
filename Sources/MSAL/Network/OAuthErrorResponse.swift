import Foundation
import MSALJOSE
import MSALJSON

/// An RFC 6749 §5.2 error body, read leniently: HTML, a byte-order mark, truncated or absent JSON give empty fields, never a crash.
package struct OAuthErrorResponse: Sendable, Hashable {
    package var error: String?
    package var errorDescription: String?
    package var subError: String?
    package var errorCodes: [Int]?
    package var claims: String?
    package var correlationID: String?
    package var traceID: String?

    /// Longest description kept, in characters.
    package static let maximumDescriptionLength = 512

    package init(body: [UInt8]) {
        var bytes = body
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let document = try? JSONDocument(parsing: bytes, limits: .document), document.root.kind == .object else { return }
        let root = document.root
        error = root["error"]?.string.map { Self.sanitized($0, limit: 128) }
        subError = root["suberror"]?.string.map { Self.sanitized($0, limit: 128) }
        errorDescription = root["error_description"]?.string.map { Self.sanitized($0, limit: Self.maximumDescriptionLength) }
        claims = root["claims"]?.string
        correlationID = root["correlation_id"]?.string.map { Self.sanitized($0, limit: 64) }
        traceID = root["trace_id"]?.string.map { Self.sanitized($0, limit: 64) }
        if let codes = root["error_codes"], codes.kind == .array {
            errorCodes = codes.elements.compactMap { $0.int64.map(Int.init) }
        }
    }

    /// `text` by the rule for untrusted text (``UntrustedText``): controls and format characters
    /// escaped, cut at `limit` characters.
    package static func sanitized(_ text: String, limit: Int) -> String {
        UntrustedText.escaped(text, limit: limit)
    }
}

extension MSALFailure {
    /// The error for an HTTP response the caller cannot use, with the OAuth fields, status, headers and correlation id kept.
    package init(response: MSALHTTPResponse, code: Code, internalCode: MSALInternalError, context: String, correlationID: UUID?) {
        let body = OAuthErrorResponse(body: response.body)
        var message = "\(context) failed with HTTP \(response.statusCode)"
        if let error = body.error { message += " (\(error))" }
        if let description = body.errorDescription { message += ": \(description)" }
        self.init(
            code, internalCode: internalCode, message: message, oauthError: body.error, oauthSubError: body.subError,
            correlationID: correlationID)
        claims = body.claims
        stsErrorCodes = body.errorCodes
        httpStatusCode = response.statusCode
        httpHeaders = response.headers.dictionary
    }
}
