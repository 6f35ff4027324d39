import MSALJSON

/// A public key from a JWK (RFC 7517), ready to verify JWS signatures.
///
/// Only signature keys are built: RSA of 2048 to 16384 bits with an odd exponent
/// ≥ 3, and EC on P-256 or P-384 whose point lies on the curve. Header members
/// that point elsewhere for keys (`jku`, `x5u`, `jwk`, `x5c`) are never used.
public struct JSONWebKey: Sendable {
    /// JWK key types that can carry a supported signature key.
    public enum KeyType: String, Sendable, Hashable {
        /// `RSA`
        case rsa = "RSA"
        /// `EC`
        case ellipticCurve = "EC"
    }

    /// Supported elliptic curves.
    public enum Curve: String, Sendable, Hashable {
        /// NIST P-256 (secp256r1).
        case p256 = "P-256"
        /// NIST P-384 (secp384r1).
        case p384 = "P-384"

        /// Bytes in one coordinate (and in each half of a JWS signature).
        public var coordinateSize: Int {
            switch self {
            case .p256: return 32
            case .p384: return 48
            }
        }

        var openSSLGroupName: String {
            switch self {
            case .p256: return "prime256v1"
            case .p384: return "secp384r1"
            }
        }
    }

    /// Smallest RSA modulus accepted, in bits.
    public static let minimumRSABits = 2048
    /// Largest RSA modulus accepted, in bits (bounds verification cost).
    public static let maximumRSABits = 16384

    /// `kid`, compared as an opaque string.
    public let keyID: String?
    /// `kty`.
    public let keyType: KeyType
    /// `crv`, for EC keys.
    public let curve: Curve?
    /// The key's own `alg`, when it declares one; a token must then use exactly it.
    public let algorithm: JWSAlgorithm?
    /// `use`, when present (must be `sig`).
    public let use: String?
    /// `key_ops`, when present (must include `verify`).
    public let keyOperations: [String]?
    /// Modulus size (RSA) or field size (EC), in bits.
    public let bits: Int

    let key: OpenSSLKey
    /// A verification context prepared once for the algorithm this key is
    /// expected to verify (see ``OpenSSLDigestTemplate``): the key's own `alg`;
    /// else ES256/ES384 by curve; else RS256, what Microsoft Entra ID signs with
    /// (its JWKS entries carry no `alg`). Other algorithms, and any key whose
    /// template could not be made, take the per-call `EVP_DigestVerifyInit` path.
    let verifyTemplate: OpenSSLDigestTemplate?

    init(keyID: String?, keyType: KeyType, curve: Curve?, algorithm: JWSAlgorithm?, use: String?, keyOperations: [String]?, key: OpenSSLKey)
    {
        self.keyID = keyID
        self.keyType = keyType
        self.curve = curve
        self.algorithm = algorithm
        self.use = use
        self.keyOperations = keyOperations
        self.key = key
        self.bits = key.bits
        let expected: JWSAlgorithm
        switch (algorithm, curve) {
        case (let declared?, _): expected = declared
        case (nil, .p256?): expected = .es256
        case (nil, .p384?): expected = .es384
        case (nil, nil): expected = .rs256
        }
        // Best effort: a failure here (already drained from OpenSSL's queue) only
        // means verifications run the uncached init, which reports its own errors.
        self.verifyTemplate = try? OpenSSLDigestTemplate(key: key, algorithm: expected, operation: .verify)
    }

    /// Parses one JWK from its JSON text.
    ///
    /// - Throws: ``JOSEError/Code/invalidJSON`` or ``JOSEError/Code/invalidKey`` naming the problem.
    public init(json: some Collection<UInt8>) throws(JOSEError) {
        let document = try JSONDocument.parsed(Array(json), limits: .document)
        try self.init(jwk: document.root)
    }

    /// Whether `other` is this very key, as parsed from the same fetch of a key set (the same
    /// OpenSSL key object): a set fetched again holds new objects, even for the same keys.
    package func isSameKey(as other: JSONWebKey) -> Bool { key === other.key }

    /// Checks that this key may verify a signature made with `algorithm`:
    /// matching type and curve, the key's own `alg`, `use` and `key_ops`.
    public func checkUsable(for algorithm: JWSAlgorithm) throws(JOSEError) {
        let name = keyID.map { "key \"\($0.prefix(64))\"" } ?? "the key"
        guard algorithm.keyType == keyType else {
            throw JOSEError(
                .algorithmKeyMismatch, "\(algorithm.rawValue) needs a \(algorithm.keyType.rawValue) key but \(name) is \(keyType.rawValue)")
        }
        if let required = algorithm.curve, required != curve {
            throw JOSEError(
                .algorithmKeyMismatch,
                "\(algorithm.rawValue) needs curve \(required.rawValue) but \(name) is on \(curve?.rawValue ?? "no curve")")
        }
        if let declared = self.algorithm, declared != algorithm {
            throw JOSEError(.algorithmKeyMismatch, "\(name) is for \(declared.rawValue), not \(algorithm.rawValue)")
        }
        if let use, use != "sig" {
            throw JOSEError(.algorithmKeyMismatch, "\(name) has use \"\(use.prefix(16))\", not \"sig\"")
        }
        if let keyOperations, !keyOperations.contains("verify") {
            throw JOSEError(.algorithmKeyMismatch, "\(name) has key_ops without \"verify\"")
        }
    }

    /// Verifies a raw JWS signature (R‖S for ECDSA) over `message` after ``checkUsable(for:)``.
    ///
    /// - Returns: whether the signature is valid.
    public func verify(
        signature: some Collection<UInt8>, over message: some Collection<UInt8>, algorithm: JWSAlgorithm
    ) throws(JOSEError) -> Bool {
        try checkUsable(for: algorithm)
        let signature = Array(signature)
        let message = Array(message)
        return try signature.withRawBytes { (signatureBuffer) throws(JOSEError) -> Bool in
            try message.withRawBytes { (messageBuffer) throws(JOSEError) -> Bool in
                try key.verify(signature: signatureBuffer, message: messageBuffer, algorithm: algorithm, template: verifyTemplate)
            }
        }
    }
}
