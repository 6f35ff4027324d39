/// The claims of an ID token that MSAL uses, read from a decoded ``JWT``.
///
/// Claims are read on access from the decoded document, so building an
/// `IDToken` costs nothing beyond decoding.
public struct IDToken: Sendable {
    /// The underlying token.
    public let jwt: JWT

    /// Wraps a decoded token.
    public init(jwt: JWT) {
        self.jwt = jwt
    }

    /// `oid`: the object id of the user in the tenant.
    public var objectID: String? { jwt.stringClaim("oid") }
    /// `tid`: the tenant that issued the token.
    public var tenantID: String? { jwt.stringClaim("tid") }
    /// `sub`: the subject, unique per application.
    public var subject: String? { jwt.stringClaim("sub") }
    /// `preferred_username`.
    public var preferredUsername: String? { jwt.stringClaim("preferred_username") }
    /// `name`.
    public var name: String? { jwt.stringClaim("name") }
    /// `upn` (v1 and some v2 tokens).
    public var userPrincipalName: String? { jwt.stringClaim("upn") }
    /// `email`.
    public var email: String? { jwt.stringClaim("email") }
    /// `ver`: "1.0" or "2.0".
    public var version: String? { jwt.stringClaim("ver") }
    /// `iss`.
    public var issuer: String? { jwt.stringClaim("iss") }
    /// `aud`, as a list.
    public var audience: [String] { jwt.stringListClaim("aud") ?? [] }
    /// `nonce`.
    public var nonce: String? { jwt.stringClaim("nonce") }
    /// `exp`, in seconds since 1970.
    public var expiresAt: Double? { jwt.numberClaim("exp") }
    /// `iat`, in seconds since 1970.
    public var issuedAt: Double? { jwt.numberClaim("iat") }

    /// The name to show for the account: `preferred_username`, else `upn`, else `email`.
    public var username: String? { preferredUsername ?? userPrincipalName ?? email }
}
