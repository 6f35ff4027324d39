/// What an access token presented to a protected API must say to be accepted (RFC 9068 §4 and
/// the Microsoft identity platform's rules for resource servers).
public struct AccessTokenValidationOptions: Sendable {
    /// The accepted issuers. Each is compared exactly and case-sensitively with `iss`; one that
    /// contains `{tenantid}` (the Entra multi-tenant template) has it replaced by the token's own
    /// `tid` first. Never a prefix match.
    public var issuers: [String]
    /// The accepted audiences: the API's client id and its App ID URI (`api://…`). `aud` (a string
    /// or an array) must contain one of them.
    public var audiences: [String]
    /// The tenants whose tokens are accepted through a `{tenantid}` issuer; `nil` accepts any tenant.
    public var allowedTenants: Set<String>?
    /// Clock skew tolerated for `exp` and `nbf`, in seconds. Default 300.
    public var clockSkew: Double

    /// Creates options.
    public init(issuers: [String], audiences: [String], allowedTenants: Set<String>? = nil, clockSkew: Double = 300) {
        self.issuers = issuers
        self.audiences = audiences
        self.allowedTenants = allowedTenants
        self.clockSkew = clockSkew
    }
}
