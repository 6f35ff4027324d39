/// What an ID token must say to be accepted (OpenID Connect Core §3.1.3.7).
public struct IDTokenValidationOptions: Sendable {
    /// The exact expected `iss`. It may contain `{tenantid}` (the Entra
    /// multi-tenant template), which is replaced by the token's own `tid`
    /// before an exact, case-sensitive comparison; never a prefix match.
    public var issuer: String
    /// The client id: `aud` must contain it, and `azp`, when present or needed, must equal it.
    public var clientID: String
    /// The nonce sent in the authorization request; when set, the token's `nonce` must equal it.
    public var nonce: String?
    /// Clock skew tolerated for `exp`, `nbf` and `iat`, in seconds. Default 300.
    public var clockSkew: Double

    /// Whether `iss` is checked. Always true for the SDK; the `msal jwt verify`
    /// command turns it off when no `--issuer` is given.
    package var checksIssuer = true
    /// Whether `aud`/`azp` are checked. Always true for the SDK; see ``checksIssuer``.
    package var checksAudience = true

    /// Creates options.
    public init(issuer: String, clientID: String, nonce: String? = nil, clockSkew: Double = 300) {
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
        self.clockSkew = clockSkew
    }
}
