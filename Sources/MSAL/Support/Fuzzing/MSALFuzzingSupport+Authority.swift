// Compiled only with the package trait TestEntryPoints, which FuzzTesting enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
import Foundation

@_spi(Fuzzing) extension MSALFuzzingSupport {
    /// An authority URL split by the SDK's parser (`AuthorityComponents`).
    public struct ParsedAuthority: Sendable, Hashable {
        /// The kind, given or detected.
        public var kind: MSALAuthorityKind
        /// `https`, or `http` for an opted-in loopback authority.
        public var scheme: String
        /// The lower-cased host.
        public var host: String
        /// An explicit port other than the scheme's default.
        public var port: Int?
        /// The canonical tenant.
        public var tenant: String
        /// The tenant segment as written.
        public var rawTenant: String
        /// The B2C policy.
        public var policy: String?
        /// The path segments of a generic OpenID Connect issuer.
        public var issuerPath: [String]
        /// Whether the host is a loopback address.
        public var isLoopback: Bool
        /// The canonical authority URL.
        public var canonical: String
    }

    /// Parses `text` as an authority of `kind` (`nil`: detected), as `MSALAuthority(url:)` does.
    ///
    /// - Throws: ``MSALFailure`` (``MSALInternalError/invalidAuthority``).
    public static func parseAuthority(
        _ text: String, kind: MSALAuthorityKind?, allowInsecureLoopback: Bool
    ) throws(MSALFailure) -> ParsedAuthority {
        let parsed = try AuthorityComponents.parse(text, kind: kind, options: allowInsecureLoopback ? [.allowInsecureLoopback] : [])
        return ParsedAuthority(
            kind: parsed.kind, scheme: parsed.scheme, host: parsed.host, port: parsed.port, tenant: parsed.tenant,
            rawTenant: parsed.rawTenant, policy: parsed.policy, issuerPath: parsed.issuerPath, isLoopback: parsed.isLoopback,
            canonical: parsed.canonical)
    }

    /// One alias group of an instance-discovery answer.
    public struct DiscoveryGroup: Sendable, Hashable {
        /// The host requests go to.
        public var preferredNetwork: String
        /// The host cache entries are written under.
        public var preferredCache: String
        /// Every host of the cloud.
        public var aliases: [String]

        /// A group of `aliases`, requests going to `preferredNetwork`, entries written under `preferredCache`.
        public init(preferredNetwork: String, preferredCache: String, aliases: [String]) {
            self.preferredNetwork = preferredNetwork
            self.preferredCache = preferredCache
            self.aliases = aliases
        }
    }

    /// Parses an instance-discovery body (`InstanceDiscoveryResponse`).
    ///
    /// - Throws: ``MSALFailure`` (``MSALInternalError/invalidAuthorityMetadata``).
    public static func parseInstanceDiscovery(
        _ body: [UInt8]
    ) throws(MSALFailure) -> (tenantDiscoveryEndpoint: String?, groups: [DiscoveryGroup]) {
        let response = try InstanceDiscoveryResponse.parse(body, correlationID: nil)
        let groups = response.groups.map {
            DiscoveryGroup(preferredNetwork: $0.preferredNetwork, preferredCache: $0.preferredCache, aliases: $0.aliases)
        }
        return (response.tenantDiscoveryEndpoint, groups)
    }

    /// Parses an OpenID configuration body (`OpenIDConfiguration`) and validates it for `authority` (of
    /// `kind`; `nil`: detected) as the resolver does, with `group` as the cloud's aliases (the authority's own host when `nil`) and
    /// `knownAuthorities` as the app's known authorities.
    ///
    /// - Throws: ``MSALFailure`` (`invalidAuthority` for `authority` itself; `invalidAuthorityMetadata`,
    ///   `authorityIssuerMismatch` or `insecureEndpoint` for the document).
    public static func validateOpenIDConfiguration(
        _ body: [UInt8], authority: String, kind: MSALAuthorityKind?, allowInsecureLoopback: Bool, group: DiscoveryGroup?,
        knownAuthorities: [String]
    ) throws(MSALFailure) -> MSALAuthorityMetadata {
        let options: MSALAuthorityOptions = allowInsecureLoopback ? [.allowInsecureLoopback] : []
        let components = try AuthorityComponents.parse(authority, kind: kind, options: options)
        var known: [MSALAuthority] = []
        for text in knownAuthorities {
            known.append(MSALAuthority.make(components: try AuthorityComponents.parse(text, kind: nil, options: options), options: options))
        }
        let cloud =
            group.map { KnownClouds.Group(preferredNetwork: $0.preferredNetwork, preferredCache: $0.preferredCache, aliases: $0.aliases) }
            ?? KnownClouds.Group(
                preferredNetwork: components.hostAndPort, preferredCache: components.hostAndPort, aliases: [components.hostAndPort])
        let configuration = try OpenIDConfiguration.parse(body, correlationID: nil)
        let validator = AuthorityMetadataValidator(
            authority: MSALAuthority.make(components: components, options: options), group: cloud,
            policy: AuthorityValidationPolicy(validatesAuthority: true, knownAuthorities: known), isValidated: group != nil)
        return try validator.validate(configuration, correlationID: nil)
    }
}
#endif
