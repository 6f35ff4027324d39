// Compiled only with the package trait TestEntryPoints, which Benchmarks enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
import Foundation

/// Entry points for `Benchmarks/` (a separate package, which cannot see `package` symbols): the
/// proofs a bound token is presented with. Not API: import with `@_spi(Benchmarks) import MSAL`.
@_spi(Benchmarks) public enum MSALProofBenchmarkSupport {
    /// A proof key of one kind.
    public struct Key: Sendable {
        let key: ProofKey

        /// The private key as an unencrypted PKCS#8 PEM block, for a baseline that signs with it.
        public func privateKeyPEM() throws -> [UInt8] { try key.privateKeyPEM() }

        /// The key's RFC 7638 SHA-256 thumbprint (base64url): the `cnf.jkt` of a token bound to it,
        /// for a benchmark that mints a DPoP-bound access token (`DPoPValidation.swift`).
        public var thumbprint: String { key.thumbprint }
    }

    /// A new DPoP key (EC P-256, ES256).
    public static func dpopKey() throws -> Key { Key(key: try ProofKey.generate(.dpop)) }

    /// A new signed-HTTP-request key (RSA 2048, RS256).
    public static func signedHTTPRequestKey() throws -> Key { Key(key: try ProofKey.generate(.signedHTTPRequest)) }

    /// A DPoP proof for one request (``MSALResult/dpopProof(httpMethod:requestUrl:nonce:)`` without the result).
    public static func dpopProof(
        _ key: Key, method: String, url: URL, accessToken: String?, nonce: String?, issuedAt: Int64
    ) throws -> String {
        try DPoPProof.make(key: key.key, method: method, url: url, accessToken: accessToken, nonce: nonce, issuedAt: issuedAt)
    }

    /// MSAL's signed HTTP request presenting `accessToken` (what a PoP result's header carries).
    public static func signedHTTPRequest(
        _ key: Key, accessToken: String, method: String, url: URL, nonce: String?, timestamp: Int64
    ) throws -> String {
        try SignedHTTPRequest.make(key: key.key, accessToken: accessToken, method: method, url: url, nonce: nonce, timestamp: timestamp)
    }
}
#endif
