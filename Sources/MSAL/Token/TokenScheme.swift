/// How an access token is presented to a resource, carried by whatever must tell tokens of
/// different schemes apart: the request (``TokenAcquisitionRequest``), the flight that obtains the
/// token (``RefreshFlightKey``), the cache lookup (a cached token's `token_type`) and the check of
/// the token response.
///
/// Only bearer tokens exist yet. The proof-of-possession kinds (MSAL's signed-request PoP, DPoP,
/// mutual TLS; issue 40) add cases here, so that a bearer token and a bound token for the same
/// account, scopes and authority are never one flight or one answer.
package enum TokenScheme: Hashable, Sendable {
    /// RFC 6750: whoever holds the token may use it.
    case bearer

    /// The `token_type` a token of this scheme is cached and answered with.
    package var tokenType: String {
        switch self {
        case .bearer: "Bearer"
        }
    }

    /// The scheme whose `token_type` is `tokenType` (UTF-8, ASCII case ignored); `nil` for one this
    /// library does not know.
    package init?(tokenType: UnsafeBufferPointer<UInt8>) {
        var bearer = Self.bearer.tokenType
        guard bearer.withUTF8({ CacheText.equalIgnoringASCIICase(tokenType, $0) }) else { return nil }
        self = .bearer
    }

    /// Whether a token response's `token_type` names this scheme (RFC 6749 §5.1: ASCII case ignored).
    package func accepts(tokenType: String) -> Bool {
        CacheText.equalIgnoringASCIICase(tokenType, self.tokenType)
    }
}
