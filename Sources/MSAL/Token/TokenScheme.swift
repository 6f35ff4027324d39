/// How an access token is presented to a resource, carried by whatever must tell tokens of
/// different schemes apart (today the flights that obtain them; issue 44).
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
}
