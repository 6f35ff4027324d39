/// Proof Key for Code Exchange (RFC 7636) with the `S256` method.
public struct PKCE: Sendable, Hashable {
    /// The secret sent with the code redemption.
    public let verifier: String
    /// `BASE64URL(SHA256(ASCII(verifier)))`, sent with the authorization request.
    public let challenge: String
    /// Always `S256`; `plain` is never used.
    public var method: String { "S256" }

    /// A new pair from 32 random bytes (a 43-character verifier).
    public static func generate() throws(JOSEError) -> PKCE {
        try PKCE(verifier: Base64URL.encode(SecureRandom.bytes(count: 32)))
    }

    /// The pair for a given verifier.
    ///
    /// - Throws: ``JOSEError/Code/malformedToken`` when the
    ///   verifier is not 43–128 characters of `[A-Za-z0-9-._~]` (RFC 7636 §4.1).
    public init(verifier: String) throws(JOSEError) {
        let bytes = Array(verifier.utf8)
        guard (43...128).contains(bytes.count), bytes.allSatisfy(Self.isUnreserved) else {
            throw JOSEError(.malformedToken, "PKCE verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
        }
        self.verifier = verifier
        self.challenge = try Self.challenge(for: bytes)
    }

    private static func challenge(for verifier: [UInt8]) throws(JOSEError) -> String {
        let digest = try verifier.withRawBytes { (buffer) throws(JOSEError) -> [UInt8] in
            try OpenSSLDigest.sha256.hash(buffer)
        }
        return Base64URL.encode(digest)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
