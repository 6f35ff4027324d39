import Foundation
import MSALJOSE
import MSALJSON

/// The device authorization response (RFC 8628 §3.2), read strictly but accepting the forms the
/// service is known to send: numbers as strings, `verification_url` for `verification_uri`.
package struct DeviceCodeResponse: Sendable, Equatable {
    package var deviceCode: String
    package var userCode: String
    package var verificationURI: URL
    package var expiresIn: Int64
    package var interval: Int64
    package var message: String

    /// The interval when the service names none or an unusable one (RFC 8628 §3.2: 5 s).
    package static let defaultInterval: Int64 = 5
    /// The longest interval honoured, so a hostile value cannot stall the flow for hours.
    package static let maximumInterval: Int64 = 60
    /// The longest lifetime honoured (the service uses 900 s).
    package static let maximumLifetime: Int64 = 3600

    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidResponse``.
    package init(parsing body: [UInt8]) throws(MSALFailure) {
        var bytes = body
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let document = try? JSONDocument(parsing: bytes, limits: .document), document.root.kind == .object else {
            throw Self.invalid("is not a JSON object")
        }
        let root = document.root
        guard let deviceCode = root["device_code"]?.string, !deviceCode.isEmpty else { throw Self.invalid("has no device_code") }
        guard let userCode = root["user_code"]?.string, !userCode.isEmpty else { throw Self.invalid("has no user_code") }
        // The user reads the code off the screen and types it: a control character cannot be typed, and
        // printed raw it would drive the terminal (`\u{1B}[2J`).
        guard !userCode.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw Self.invalid("has a user_code with control characters")
        }
        guard let uriText = (root["verification_uri"] ?? root["verification_url"])?.string,
            let uri = URL(string: uriText), let scheme = uri.scheme?.lowercased(), scheme == "https" || scheme == "http", uri.host != nil
        else { throw Self.invalid("has no usable verification_uri") }
        guard let expiresIn = Self.seconds(root["expires_in"]), expiresIn > 0 else { throw Self.invalid("has no positive expires_in") }
        var interval = Self.seconds(root["interval"]) ?? Self.defaultInterval
        if interval <= 0 { interval = Self.defaultInterval }
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = uri
        self.expiresIn = min(expiresIn, Self.maximumLifetime)
        self.interval = min(interval, Self.maximumInterval)
        self.message = OAuthErrorResponse.sanitized(
            root["message"]?.string ?? "To sign in, open \(uriText) and enter the code \(userCode).", limit: 1024)
    }

    private static func seconds(_ value: JSONValue?) -> Int64? {
        guard let value, !value.isNull else { return nil }
        if let number = value.int64 { return number }
        if let text = value.string { return Int64(text.trimmingCharacters(in: .whitespaces)) }
        if let number = value.double, number.isFinite, abs(number) < 1e12 { return Int64(number) }
        return nil
    }

    private static func invalid(_ problem: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .internalErrorInvalidResponse, message: "The device code response \(problem)")
    }
}
