import MSALJSON

/// A decoded JSON Web Token: its protected header and its claims.
///
/// A `JWT` comes either from ``JWTVerifier/verify(_:)`` (signature checked;
/// ``isSignatureVerified`` is `true`) or from ``decodeUnverified(_:)``, which
/// only decodes and must never be used to make a trust decision.
public struct JWT: Sendable {
    package let header: JSONDocument
    package let claims: JSONDocument
    /// Whether the signature was verified against a trusted key.
    public let isSignatureVerified: Bool

    package init(header: JSONDocument, claims: JSONDocument, isSignatureVerified: Bool) {
        self.header = header
        self.claims = claims
        self.isSignatureVerified = isSignatureVerified
    }

    /// Decodes a compact JWT without checking its signature or claims.
    ///
    /// Structure is still checked strictly (three segments, base64url, JSON
    /// objects, no duplicate members), and `alg` is not required to be supported.
    public static func decodeUnverified(_ token: String, maximumSize: Int = JWTVerifier.defaultMaximumTokenSize) throws(JOSEError) -> JWT {
        var token = token
        return try token.withUTF8Bytes { (utf8) throws(JOSEError) -> JWT in
            let (first, second) = try CompactJWS.locateDots(utf8, maximumSize: maximumSize)
            let headerBytes = try CompactJWS.decodeSegment(utf8, 0..<first, name: "header")
            let header = try CompactJWS.parseObject(headerBytes, segment: "header", code: .invalidHeader)
            _ = try CompactJWS.decodeSegment(utf8, (second + 1)..<utf8.count, name: "signature")
            let claims = try decodeClaims(utf8, (first + 1)..<second)
            return JWT(header: header, claims: claims, isSignatureVerified: false)
        }
    }

    static func decodeClaims(_ utf8: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(JOSEError) -> JSONDocument {
        let payload = try CompactJWS.decodeSegment(utf8, range, name: "payload")
        let claims = try CompactJWS.parseObject(payload, segment: "payload", code: .invalidPayload)
        return claims
    }

    /// The header `alg`, as written.
    public var algorithmName: String? { header.root["alg"]?.string }
    /// The header `kid`, as written.
    public var keyID: String? { header.root["kid"]?.string }

    /// A string claim, or `nil` when absent or not a string.
    public func stringClaim(_ name: String) -> String? {
        claims.root[name]?.string
    }

    /// A numeric claim, or `nil` when absent or not a number.
    public func numberClaim(_ name: String) -> Double? {
        claims.root[name]?.double
    }

    /// A claim that is a string or an array of strings (like `aud`); `nil` otherwise.
    public func stringListClaim(_ name: String) -> [String]? {
        guard let value = claims.root[name] else { return nil }
        if let single = value.string { return [single] }
        guard value.kind == .array else { return nil }
        var list: [String] = []
        for element in value.elements {
            guard let text = element.string else { return nil }
            list.append(text)
        }
        return list
    }

    /// Names of all claims, in token order.
    public var claimNames: [String] {
        claims.root.members.compactMap { $0.key.string }
    }

    /// The header as indented JSON text.
    public var headerJSON: String { JSONWriter.string(JSON(header.root), style: .indented) }
    /// The claims as indented JSON text.
    public var claimsJSON: String { JSONWriter.string(JSON(claims.root), style: .indented) }
}
