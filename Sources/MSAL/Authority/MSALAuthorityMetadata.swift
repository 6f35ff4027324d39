import Foundation

/// What swift-msal learned about an authority: its hosts and endpoints, validated.
///
/// A value type whose members live in one shared, immutable box: copying it (every silent token
/// request reads it from the metadata store) costs one reference count, not one per URL and string.
public struct MSALAuthorityMetadata: Sendable, Hashable {
    private struct Values: Sendable, Hashable {
        var authority: URL
        var kind: MSALAuthorityKind
        var tenant: String
        var cacheEnvironment: String
        var networkHost: String
        var aliases: [String]
        var isValidated: Bool
        var authorizationEndpoint: URL
        var tokenEndpoint: URL
        var deviceCodeEndpoint: URL?
        var endSessionEndpoint: URL?
        var jwksURI: URL
        var issuer: String
        var authorizationResponseIssuerSupported: Bool
        var mtlsTokenEndpoint: URL?
    }

    /// Immutable, so sharing it between copies and threads is safe.
    private final class Storage: Sendable {
        let values: Values
        /// `values.jwksURI.absoluteString`, made once: the key set's cache key, read per request by
        /// a protected API.
        let jwksURIString: String
        init(_ values: Values) {
            self.values = values
            self.jwksURIString = values.jwksURI.absoluteString
        }
    }

    private var storage: Storage

    private mutating func update(_ change: (inout Values) -> Void) {
        var values = storage.values
        change(&values)
        storage = Storage(values)
    }

    /// The authority, canonical.
    public var authority: URL {
        get { storage.values.authority }
        set { update { $0.authority = newValue } }
    }

    /// The kind of provider.
    public var kind: MSALAuthorityKind {
        get { storage.values.kind }
        set { update { $0.kind = newValue } }
    }

    /// The tenant of the authority (`common`, a tenant id, `adfs`, …; empty for OpenID Connect).
    public var tenant: String {
        get { storage.values.tenant }
        set { update { $0.tenant = newValue } }
    }

    /// The environment written into cache keys: the cloud's `preferred_cache` alias.
    public var cacheEnvironment: String {
        get { storage.values.cacheEnvironment }
        set { update { $0.cacheEnvironment = newValue } }
    }

    /// The host requests are sent to: the cloud's `preferred_network` alias.
    public var networkHost: String {
        get { storage.values.networkHost }
        set { update { $0.networkHost = newValue } }
    }

    /// Every host name of the same cloud; cache entries under any of them belong to this authority.
    public var aliases: [String] {
        get { storage.values.aliases }
        set { update { $0.aliases = newValue } }
    }

    /// Whether the authority passed instance discovery (`false` when validation was off or it is a known authority).
    public var isValidated: Bool {
        get { storage.values.isValidated }
        set { update { $0.isValidated = newValue } }
    }

    /// `authorization_endpoint`.
    public var authorizationEndpoint: URL {
        get { storage.values.authorizationEndpoint }
        set { update { $0.authorizationEndpoint = newValue } }
    }

    /// `token_endpoint`.
    public var tokenEndpoint: URL {
        get { storage.values.tokenEndpoint }
        set { update { $0.tokenEndpoint = newValue } }
    }

    /// The RFC 8628 device authorization endpoint, when the provider has one.
    public var deviceCodeEndpoint: URL? {
        get { storage.values.deviceCodeEndpoint }
        set { update { $0.deviceCodeEndpoint = newValue } }
    }

    /// `end_session_endpoint`, when the provider has one.
    public var endSessionEndpoint: URL? {
        get { storage.values.endSessionEndpoint }
        set { update { $0.endSessionEndpoint = newValue } }
    }

    /// ``jwksURI`` as a string, made once per metadata (the key set's cache key).
    package var jwksURIString: String { storage.jwksURIString }

    /// `jwks_uri`: the keys that sign ID tokens.
    public var jwksURI: URL {
        get { storage.values.jwksURI }
        set { update { $0.jwksURI = newValue } }
    }

    /// `issuer`; for multi-tenant Entra authorities the template `https://login.microsoftonline.com/{tenantid}/v2.0`.
    public var issuer: String {
        get { storage.values.issuer }
        set { update { $0.issuer = newValue } }
    }

    /// `authorization_response_iss_parameter_supported` (RFC 9207): every authorization response
    /// carries an `iss` parameter, which must then equal ``issuer``.
    public var authorizationResponseIssuerSupported: Bool {
        get { storage.values.authorizationResponseIssuerSupported }
        set { update { $0.authorizationResponseIssuerSupported = newValue } }
    }

    /// `mtls_endpoint_aliases` `token_endpoint` (RFC 8705 §5), when a generic OpenID provider names
    /// one on a host it owns, over https: where a client authenticating with mutual TLS
    /// (``MSALClientCredential/tlsClientCertificate(_:)``) sends its token requests. `nil` for
    /// Microsoft authorities, whose mTLS hosts are the cloud's.
    public var mtlsTokenEndpoint: URL? {
        get { storage.values.mtlsTokenEndpoint }
        set { update { $0.mtlsTokenEndpoint = newValue } }
    }

    /// Creates metadata (for tests and custom resolvers).
    public init(
        authority: URL, kind: MSALAuthorityKind, tenant: String, cacheEnvironment: String, networkHost: String,
        aliases: [String], isValidated: Bool, authorizationEndpoint: URL, tokenEndpoint: URL,
        deviceCodeEndpoint: URL?, endSessionEndpoint: URL?, jwksURI: URL, issuer: String,
        authorizationResponseIssuerSupported: Bool = false, mtlsTokenEndpoint: URL? = nil
    ) {
        storage = Storage(
            Values(
                authority: authority, kind: kind, tenant: tenant, cacheEnvironment: cacheEnvironment, networkHost: networkHost,
                aliases: aliases, isValidated: isValidated, authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokenEndpoint,
                deviceCodeEndpoint: deviceCodeEndpoint, endSessionEndpoint: endSessionEndpoint, jwksURI: jwksURI, issuer: issuer,
                authorizationResponseIssuerSupported: authorizationResponseIssuerSupported, mtlsTokenEndpoint: mtlsTokenEndpoint))
    }

    /// Metadata are equal when every value is.
    public static func == (lhs: MSALAuthorityMetadata, rhs: MSALAuthorityMetadata) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.values == rhs.storage.values
    }

    /// Hashes every value.
    public func hash(into hasher: inout Hasher) {
        storage.values.hash(into: &hasher)
    }
}
