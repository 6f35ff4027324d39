/// How an access token is presented to a resource, carried by whatever must tell tokens of
/// different schemes apart: the request (``TokenAcquisitionRequest``), the flight that obtains the
/// token (``RefreshFlightKey``), the cache lookup (a cached token's `token_type`, and the key a
/// bound token names) and the check of the token response.
///
/// A bearer token and a bound token for the same account, scopes and authority are never one
/// flight or one answer, and a bound token is found only for the key it is bound to.
package enum TokenScheme: Hashable, Sendable {
    /// RFC 6750: whoever holds the token may use it.
    case bearer
    /// MSAL's proof of possession for Microsoft Entra (`token_type=pop`): the token is bound to
    /// the key whose RFC 7638 thumbprint is `keyID` (`req_cnf`), and each use is a signed HTTP request.
    case pop(keyID: String)
    /// DPoP (RFC 9449) for OpenID providers (`token_type` `DPoP`): the token is bound to the key whose
    /// RFC 7638 thumbprint is `keyID` (`cnf.jkt`), and each use carries a proof signed with it.
    case dpop(keyID: String)
    /// Microsoft Entra's mTLS proof of possession (`token_type=mtls_pop`): an app token bound to
    /// the client certificate whose SHA-256 thumbprint (`x5t#S256`, base64url) is `keyID`, used
    /// only over TLS connections made with that certificate.
    case mtlsPop(keyID: String)

    /// A scheme without its key: what a cache index records of each access token.
    package enum Kind: UInt8, Hashable, Sendable {
        case bearer
        case pop
        case dpop
        case mtlsPop

        /// The kind whose `token_type` is `tokenType` (UTF-8, ASCII case ignored); `nil` for one this
        /// library does not know.
        /// Called for every access token a cache index reads: a few byte comparisons, no allocation.
        package init?(tokenType: UnsafeBufferPointer<UInt8>) {
            func named(_ name: StaticString) -> Bool {
                name.withUTF8Buffer { CacheText.equalIgnoringASCIICase(tokenType, $0) }
            }
            if named("Bearer") {
                self = .bearer
            } else if named("pop") {
                self = .pop
            } else if named("DPoP") {
                self = .dpop
            } else if named("mtls_pop") {
                self = .mtlsPop
            } else {
                return nil
            }
        }

        /// The `token_type` a token of this kind is cached and answered with.
        package var tokenType: String {
            switch self {
            case .bearer: "Bearer"
            case .pop: "pop"
            case .dpop: "DPoP"
            case .mtlsPop: "mtls_pop"
            }
        }
    }

    /// The kind.
    package var kind: Kind {
        switch self {
        case .bearer: .bearer
        case .pop: .pop
        case .dpop: .dpop
        case .mtlsPop: .mtlsPop
        }
    }

    /// The key a bound token is bound to (the cached entry's `kid`); `nil` for a bearer token.
    package var keyID: String? {
        switch self {
        case .bearer: nil
        case .pop(let keyID), .dpop(let keyID), .mtlsPop(let keyID): keyID
        }
    }

    /// The `token_type` a token of this scheme is cached and answered with.
    package var tokenType: String { kind.tokenType }

    /// Whether a token response's `token_type` names this scheme (RFC 6749 §5.1: ASCII case ignored).
    package func accepts(tokenType: String) -> Bool {
        CacheText.equalIgnoringASCIICase(tokenType, self.tokenType)
    }
}
