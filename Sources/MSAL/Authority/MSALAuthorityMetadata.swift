import Foundation

/// What swift-msal learned about an authority: its hosts and endpoints, validated.
public struct MSALAuthorityMetadata: Sendable, Hashable {
    /// The authority, canonical.
    public var authority: URL
    /// The kind of provider.
    public var kind: MSALAuthorityKind
    /// The tenant of the authority (`common`, a tenant id, `adfs`, …; empty for OpenID Connect).
    public var tenant: String
    /// The environment written into cache keys: the cloud's `preferred_cache` alias.
    public var cacheEnvironment: String
    /// The host requests are sent to: the cloud's `preferred_network` alias.
    public var networkHost: String
    /// Every host name of the same cloud; cache entries under any of them belong to this authority.
    public var aliases: [String]
    /// Whether the authority passed instance discovery (`false` when validation was off or it is a known authority).
    public var isValidated: Bool
    /// `authorization_endpoint`.
    public var authorizationEndpoint: URL
    /// `token_endpoint`.
    public var tokenEndpoint: URL
    /// The RFC 8628 device authorization endpoint, when the provider has one.
    public var deviceCodeEndpoint: URL?
    /// `end_session_endpoint`, when the provider has one.
    public var endSessionEndpoint: URL?
    /// `jwks_uri`: the keys that sign ID tokens.
    public var jwksURI: URL
    /// `issuer`; for multi-tenant Entra authorities the template `https://login.microsoftonline.com/{tenantid}/v2.0`.
    public var issuer: String

    /// Creates metadata (for tests and custom resolvers).
    public init(
        authority: URL, kind: MSALAuthorityKind, tenant: String, cacheEnvironment: String, networkHost: String,
        aliases: [String], isValidated: Bool, authorizationEndpoint: URL, tokenEndpoint: URL,
        deviceCodeEndpoint: URL?, endSessionEndpoint: URL?, jwksURI: URL, issuer: String
    ) {
        self.authority = authority
        self.kind = kind
        self.tenant = tenant
        self.cacheEnvironment = cacheEnvironment
        self.networkHost = networkHost
        self.aliases = aliases
        self.isValidated = isValidated
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.deviceCodeEndpoint = deviceCodeEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.jwksURI = jwksURI
        self.issuer = issuer
    }
}
