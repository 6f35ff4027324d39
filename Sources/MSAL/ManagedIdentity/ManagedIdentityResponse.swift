import Foundation
import MSALJOSE
import MSALJSON

/// A managed-identity source's answer, read the way MSAL.NET reads every source's: `access_token`,
/// and the lifetime from `expires_in` or `expires_on` (a JSON number or a decimal string; a value
/// below 978307200 — 2001-01-01 — is a number of seconds, a larger one an epoch time). The token must
/// be printable ASCII without spaces, as a token endpoint's (``TokenResponse/tokenValueProblem(_:member:)``).
package enum ManagedIdentityResponse {
    /// Values below this are lifetimes in seconds, values above it epoch times.
    private static let epochThreshold: Int64 = 978_307_200
    /// Tokens living longer than this are refreshed at half their life when the source names no `refresh_in`.
    private static let proactiveRefreshThreshold: Int64 = 7200

    /// The token response in `body`, received at `now`.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/managedIdentityRequestFailed``.
    package static func parse(
        _ body: [UInt8], now: Int64, source: MSALManagedIdentitySource, scheme: TokenScheme = .bearer
    ) throws(MSALFailure) -> TokenResponse {
        func failed(_ problem: String) -> MSALFailure {
            MSALFailure(
                .internal, internalCode: .managedIdentityRequestFailed,
                message: "The managed identity source (\(source)) answered 200, but the response \(problem)")
        }
        let document: JSONDocument
        do throws(JOSEError) {
            let hasBOM = body.starts(with: [0xEF, 0xBB, 0xBF])
            document = try JSONDocument.parsed(hasBOM ? Array(body.dropFirst(3)) : body, limits: .document)
        } catch {
            throw failed("is not valid JSON (\(error.message))")
        }
        let root = document.root
        guard root.kind == .object else { throw failed("is not a JSON object") }
        guard let accessToken = root["access_token"]?.string, !accessToken.isEmpty else { throw failed("has no access_token") }
        if let problem = TokenResponse.tokenValueProblem(accessToken, member: "access_token") { throw failed(problem) }
        let tokenType = root["token_type"]?.string ?? TokenScheme.bearer.tokenType
        guard scheme.accepts(tokenType: tokenType) else {
            throw failed("has the unsupported token_type \(OAuthErrorResponse.sanitized(tokenType, limit: 40))")
        }
        guard let raw = number(root["expires_in"]) ?? number(root["expires_on"]) else {
            throw failed("has no expires_in or expires_on that is a number of seconds")
        }
        let lifetime = raw < epochThreshold ? raw : raw - now
        guard lifetime > 0 else { throw failed("names a token that has already expired") }
        let expiresIn = min(lifetime, TokenResponse.maximumLifetime)
        let refreshIn = number(root["refresh_in"]).flatMap { $0 > 0 && $0 < expiresIn ? $0 : nil }
        return TokenResponse(
            accessToken: accessToken, tokenType: scheme.tokenType, expiresIn: expiresIn,
            refreshIn: refreshIn ?? (expiresIn > proactiveRefreshThreshold ? expiresIn / 2 : nil))
    }

    /// A JSON number or a decimal string of one, as an integer.
    private static func number(_ value: JSONValue?) -> Int64? {
        guard let value, !value.isNull else { return nil }
        if let integer = value.int64 { return integer }
        if let text = value.string { return Int64(text.trimmingCharacters(in: .whitespaces)) }
        if let double = value.double, double.isFinite, abs(double) < 1e15 { return Int64(double.rounded(.down)) }
        return nil
    }

    /// The error for a source's answer that is not a success: its `error` (a string, or an object
    /// with `code` and `message` as Cloud Shell and Service Fabric send), `error_description` or
    /// `message`, and the status; ``MSALError/internal`` for a 5xx too, as MSAL for iOS reports server failures.
    package static func error(
        _ response: MSALHTTPResponse, source: MSALManagedIdentitySource, correlationID: UUID, expected: Int = 200
    ) -> MSALFailure {
        var oauthError: String?
        var description: String?
        if let document = try? JSONDocument(parsing: response.body, limits: .document), document.root.kind == .object {
            let root = document.root
            if let error = root["error"] {
                if let text = error.string {
                    oauthError = text
                } else if error.kind == .object {
                    oauthError = error["code"]?.string
                    description = error["message"]?.string
                }
            }
            description = description ?? root["error_description"]?.string ?? root["message"]?.string ?? root["Message"]?.string
        }
        let safeError = oauthError.map { OAuthErrorResponse.sanitized($0, limit: 128) }
        var message = "The managed identity source (\(source)) answered HTTP \(response.statusCode)"
        if expected != 200 { message += " where \(expected) was expected" }
        if let safeError { message += " (\(safeError))" }
        if let description {
            message += ": " + OAuthErrorResponse.sanitized(description, limit: OAuthErrorResponse.maximumDescriptionLength)
        }
        if source == .imds, response.statusCode == 400 {
            message += " (IMDS answers 400 when the identity is not assigned to this resource)"
        }
        var error = MSALFailure(
            .internal, internalCode: .managedIdentityRequestFailed, message: message,
            oauthError: safeError, oauthSubError: nil, correlationID: correlationID)
        error.httpStatusCode = response.statusCode
        error.httpHeaders = response.headers.dictionary
        return error
    }
}
