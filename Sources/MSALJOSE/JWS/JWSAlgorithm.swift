/// The JWS signature algorithms swift-msal accepts (RFC 7518 §3).
///
/// This is an allow-list: `none` and the HMAC algorithms (`HS256`…) are never
/// accepted, because a public client holds no shared secret and HMAC keyed with
/// a public key is the classic algorithm-confusion forgery.
public enum JWSAlgorithm: String, Sendable, CaseIterable, Hashable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (what Microsoft Entra ID uses).
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = "RS384"
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = "RS512"
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt.
    case ps256 = "PS256"
    /// RSASSA-PSS with SHA-384, MGF1-SHA-384 and a 48-byte salt.
    case ps384 = "PS384"
    /// RSASSA-PSS with SHA-512, MGF1-SHA-512 and a 64-byte salt.
    case ps512 = "PS512"
    /// ECDSA on P-256 with SHA-256, signature as 64-byte R‖S.
    case es256 = "ES256"
    /// ECDSA on P-384 with SHA-384, signature as 96-byte R‖S.
    case es384 = "ES384"

    /// The key type (`kty`) this algorithm needs.
    public var keyType: JSONWebKey.KeyType {
        switch self {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: return .rsa
        case .es256, .es384: return .ellipticCurve
        }
    }

    /// The curve this algorithm needs, for ECDSA.
    public var curve: JSONWebKey.Curve? {
        switch self {
        case .es256: return .p256
        case .es384: return .p384
        default: return nil
        }
    }

    var digest: OpenSSLDigest {
        switch self {
        case .rs256, .ps256, .es256: return .sha256
        case .rs384, .ps384, .es384: return .sha384
        case .rs512, .ps512: return .sha512
        }
    }

    var usesPSS: Bool {
        switch self {
        case .ps256, .ps384, .ps512: return true
        default: return false
        }
    }

    /// Resolves a header `alg`, refusing everything off the allow-list with a precise reason.
    static func fromHeader(_ name: String) throws(JOSEError) -> JWSAlgorithm {
        if let algorithm = JWSAlgorithm(rawValue: name) {
            return algorithm
        }
        let shown = String(name.prefix(32))
        if name.lowercased() == "none" {
            throw JOSEError(.unsupportedAlgorithm, "alg \"\(shown)\" (unsigned token) is never accepted")
        }
        if name.uppercased().hasPrefix("HS") {
            throw JOSEError(.unsupportedAlgorithm, "alg \"\(shown)\" (HMAC) is not accepted by a public client")
        }
        throw JOSEError(.unsupportedAlgorithm, "alg \"\(shown)\" is not on the allow-list (RS256/384/512, PS256/384/512, ES256/384)")
    }
}
