/// An error raised while decoding, verifying or validating a JOSE object
/// (a compact JWS, a JWT, a JWK or a JWK set) or while using OpenSSL.
///
/// Every failure carries a precise ``Code`` and a human-readable message that
/// names what was wrong. Messages never contain token bytes or claim values
/// that could be personal data; they name the member instead.
public struct JOSEError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, CaseIterable, Hashable {
        /// The compact serialization is malformed: wrong number of segments,
        /// an empty segment, a JSON serialization or a JWE where a compact JWS
        /// was expected.
        case malformedToken = "malformed_token"
        /// The token, JSON document or key set exceeds a size, depth or count cap.
        case limitExceeded = "limit_exceeded"
        /// A segment is not valid base64url.
        case invalidBase64URL = "invalid_base64url"
        /// A JSON document is not valid JSON (including non-UTF-8 bytes and
        /// trailing bytes after the value) where no more specific code applies:
        /// a token header or payload that is not valid JSON is reported as
        /// ``invalidHeader`` or ``invalidPayload``, a key set as ``invalidKeySet``,
        /// with the JSON problem in the message.
        case invalidJSON = "invalid_json"
        /// A JSON object has the same member twice.
        case duplicateMember = "duplicate_member"
        /// The header is not a JSON object or lacks a usable `alg`.
        case invalidHeader = "invalid_header"
        /// `alg` is `none`, an HMAC algorithm, or not on the allow-list.
        case unsupportedAlgorithm = "unsupported_algorithm"
        /// The header lists a `crit` extension this implementation does not understand.
        case unsupportedCriticalHeader = "unsupported_critical_header"
        /// The header `alg` does not fit the key type, curve or the key's own `alg`, `use` or `key_ops`.
        case algorithmKeyMismatch = "algorithm_key_mismatch"
        /// No key in the set has the token's `kid`.
        case keyNotFound = "key_not_found"
        /// The token has no `kid` and more than one key could verify it.
        case ambiguousKey = "ambiguous_key"
        /// A key is unusable: weak RSA modulus, bad exponent, point not on the curve, wrong coordinate size.
        case invalidKey = "invalid_key"
        /// The key set is not JSON, has no `keys` array, or has no keys.
        case invalidKeySet = "invalid_key_set"
        /// The signature does not verify (including a signature of the wrong length).
        case invalidSignature = "invalid_signature"
        /// The payload is not a JSON object.
        case invalidPayload = "invalid_payload"
        /// A required claim is missing.
        case missingClaim = "missing_claim"
        /// A claim has the wrong JSON type or an impossible value.
        case invalidClaim = "invalid_claim"
        /// `exp` is in the past (beyond the allowed skew).
        case tokenExpired = "token_expired"
        /// `nbf` is in the future (beyond the allowed skew).
        case tokenNotYetValid = "token_not_yet_valid"
        /// `iat` is in the future (beyond the allowed skew).
        case tokenIssuedInFuture = "token_issued_in_future"
        /// `iss` is not exactly the expected issuer.
        case issuerMismatch = "issuer_mismatch"
        /// `aud` does not contain the client id.
        case audienceMismatch = "audience_mismatch"
        /// `azp` is missing where several audiences require it, or names another client.
        case authorizedPartyMismatch = "authorized_party_mismatch"
        /// `nonce` is missing or differs from the one sent.
        case nonceMismatch = "nonce_mismatch"
        /// `client_info` cannot be decoded or lacks `uid`/`utid`.
        case invalidClientInfo = "invalid_client_info"
        /// OpenSSL failed in a way that is not a verdict on the input
        /// (allocation failure, missing provider).
        case cryptoFailure = "crypto_failure"
        /// A PEM text holds no readable private key or certificate, a block is damaged, or an
        /// encrypted key's password is missing or wrong.
        case invalidPEM = "invalid_pem"
        /// No certificate of a client credential has the private key's public half.
        case certificateKeyMismatch = "certificate_key_mismatch"
        /// A client credential's private key is not an RSA key of at least 2048 bits.
        case unsupportedCredentialKey = "unsupported_credential_key"
    }

    /// What went wrong.
    public let code: Code
    /// A message naming what was wrong, safe to log (no token material).
    public let message: String
    /// Errors drained from the OpenSSL error queue when OpenSSL reported the failure, oldest first.
    public let openSSLErrors: [String]

    /// Creates an error.
    ///
    /// The message is passed through ``UntrustedText`` (it often quotes a token's own `kid`, `alg`
    /// or `crit`): controls and format characters escaped, at most 4096 characters.
    public init(_ code: Code, _ message: String, openSSLErrors: [String] = []) {
        self.code = code
        self.message = UntrustedText.escaped(message, limit: 4096)
        self.openSSLErrors = openSSLErrors
    }

    /// `code: message`, followed by OpenSSL's errors when there are any.
    public var description: String {
        if openSSLErrors.isEmpty {
            return "\(code.rawValue): \(message)"
        }
        return "\(code.rawValue): \(message) [OpenSSL: \(openSSLErrors.joined(separator: "; "))]"
    }
}
