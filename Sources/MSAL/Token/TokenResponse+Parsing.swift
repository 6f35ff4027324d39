import MSALJOSE
import MSALJSON

extension TokenResponse {
    /// The longest lifetime accepted from `expires_in` and friends (one year); longer values are clamped.
    package static let maximumLifetime: Int64 = 365 * 24 * 3600

    /// Parses a token endpoint response body.
    ///
    /// `expires_in`, `ext_expires_in` and `refresh_in` may be JSON numbers or decimal strings (some
    /// servers send strings); they must not be negative and are clamped to ``maximumLifetime``.
    /// A missing `expires_in` is an error rather than a guess. An `expires_in` of 0 is accepted, as MSAL
    /// for Python, .NET and Go accept it: the result says the token expires now, and no cache lookup
    /// ever serves it (docs/token-acquisition.md "Token lifetime").
    ///
    /// `access_token` and a non-empty `refresh_token` must be printable ASCII without spaces
    /// (``tokenValueProblem(_:member:)``): anything else is refused before anything is cached.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidResponse`` naming what is wrong.
    package init(parsing body: [UInt8], scheme: TokenScheme = .bearer) throws(MSALFailure) {
        let document: JSONDocument
        do throws(JOSEError) {
            // A leading byte-order mark is skipped, as the error and device-code parsers do.
            let hasBOM = body.starts(with: [0xEF, 0xBB, 0xBF])
            document = try JSONDocument.parsed(hasBOM ? Array(body.dropFirst(3)) : body, limits: .document)
        } catch {
            throw Self.invalid("is not valid JSON (\(error.message))")
        }
        let root = document.root
        guard root.kind == .object else { throw Self.invalid("is not a JSON object") }
        if root["error"] != nil {
            throw Self.invalid("carries an \"error\" member although it reported success")
        }
        guard let accessToken = root["access_token"]?.string, !accessToken.isEmpty else {
            throw Self.invalid("has no access_token")
        }
        if let problem = Self.tokenValueProblem(accessToken, member: "access_token") { throw Self.invalid(problem) }
        guard let tokenType = root["token_type"]?.string, !tokenType.isEmpty else {
            throw Self.invalid("has no token_type")
        }
        guard scheme.accepts(tokenType: tokenType) else {
            // A request for a bound token never gets a bearer one, nor a bearer request a bound one.
            throw Self.invalid(
                "has the token_type \(OAuthErrorResponse.sanitized(tokenType, limit: 40)), not the \(scheme.tokenType) this request asked for"
                    + (scheme == .bearer ? "" : " (the provider may not support this scheme)"))
        }
        guard let expiresIn = try Self.seconds(root["expires_in"], "expires_in") else {
            throw Self.invalid("has no expires_in")
        }
        // An empty refresh token means none, as MSAL for Python, .NET and JS read it.
        let refreshToken = try Self.string(root["refresh_token"], "refresh_token")
        if let refreshToken, !refreshToken.isEmpty, let problem = Self.tokenValueProblem(refreshToken, member: "refresh_token") {
            throw Self.invalid(problem)
        }
        self.init(
            accessToken: accessToken, tokenType: scheme.tokenType, expiresIn: expiresIn,
            extendedExpiresIn: try Self.seconds(root["ext_expires_in"], "ext_expires_in"),
            refreshIn: try Self.seconds(root["refresh_in"], "refresh_in"),
            refreshToken: refreshToken,
            idToken: try Self.string(root["id_token"], "id_token"),
            clientInfo: try Self.string(root["client_info"], "client_info"),
            scope: try Self.string(root["scope"], "scope"),
            familyID: try Self.familyID(root["foci"]))
    }

    /// Why `value`, the `member` of a token answer, is not a token that may be sent and shown, or `nil`
    /// when it is one: at least one byte, and every byte printable ASCII other than space (0x21–0x7E:
    /// RFC 6749's VSCHAR without space, which every RFC 6750 `b64token` and RFC 7235 `token68` is).
    ///
    /// A control character, a line break, a bidirectional override or an escape sequence in a token
    /// would end up in `Authorization` headers, logs and terminals. The problem names the member and
    /// the offset and value of the first bad byte, never the token.
    package static func tokenValueProblem(_ value: String, member: String) -> String? {
        let bytes = value.utf8
        guard !bytes.isEmpty else { return "has an empty \(member)" }
        guard let offset = bytes.firstIndex(where: { !(0x21...0x7E).contains($0) }) else { return nil }
        let position = bytes.distance(from: bytes.startIndex, to: offset)
        let byte = bytes[offset]
        let hex = String(byte, radix: 16, uppercase: true)
        return "has an \(member) that is not printable ASCII without spaces (RFC 6750): byte \(position) of \(bytes.count) is 0x"
            + (byte < 0x10 ? "0" : "") + hex
    }

    private static func invalid(_ problem: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .internalErrorInvalidResponse, message: "The token response \(problem)")
    }

    private static func string(_ value: JSONValue?, _ name: String) throws(MSALFailure) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.string else { throw invalid("has a \(name) that is not a string") }
        return text
    }

    private static func familyID(_ value: JSONValue?) throws(MSALFailure) -> String? {
        guard let value, !value.isNull else { return nil }
        if let text = value.string { return text }
        if let number = value.int64 { return String(number) }
        throw invalid("has a foci that is neither a string nor an integer")
    }

    private static func seconds(_ value: JSONValue?, _ name: String) throws(MSALFailure) -> Int64? {
        guard let value, !value.isNull else { return nil }
        let number: Int64?
        if let integer = value.int64 {
            number = integer
        } else if let text = value.string {
            number = CacheEntry.parseSeconds(text.trimmingASCIISpaces)
        } else if let double = value.double, double.isFinite {
            number = double < 0 ? -1 : (double > Double(maximumLifetime) ? maximumLifetime : Int64(double.rounded(.down)))
        } else {
            number = nil
        }
        guard let number else { throw invalid("has a \(name) that is not a number of seconds") }
        guard number >= 0 else { throw invalid("has a negative \(name) (\(number))") }
        return min(number, maximumLifetime)
    }
}

extension String {
    fileprivate var trimmingASCIISpaces: String {
        var utf8 = self.utf8[...]
        while utf8.first == UInt8(ascii: " ") { utf8 = utf8.dropFirst() }
        while utf8.last == UInt8(ascii: " ") { utf8 = utf8.dropLast() }
        return String(decoding: utf8, as: UTF8.self)
    }
}
