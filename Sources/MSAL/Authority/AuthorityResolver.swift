import Foundation
import MSALJOSE

/// Turns an authority into validated ``MSALAuthorityMetadata``: instance discovery for Microsoft
/// Entra hosts, then the OpenID configuration, with the issuer and endpoint checks of
/// `docs/authorities.md`. Results come from the ``AuthorityMetadataStore`` when warm.
package struct AuthorityResolver: Sendable {
    package let pipeline: HTTPPipeline
    package let store: AuthorityMetadataStore
    package let policy: AuthorityValidationPolicy
    private let knownHostsKey: String
    private let recent = RecentAuthority()

    package init(pipeline: HTTPPipeline, store: AuthorityMetadataStore, policy: AuthorityValidationPolicy = AuthorityValidationPolicy()) {
        self.pipeline = pipeline
        self.store = store
        self.policy = policy
        self.knownHostsKey = policy.knownHosts.sorted().joined(separator: " ")
    }

    /// The cached metadata, without I/O or parsing; `nil` when it must be resolved. The warm path:
    /// the store's unexpired metadata, remembered for the last authority object asked about so
    /// repeated requests skip building and hashing the store key.
    package func cachedMetadata(for authority: MSALAuthority) -> MSALAuthorityMetadata? {
        let now = store.clock.now()
        if let metadata = recent.metadata(for: authority, now: now) { return metadata }
        guard let (result, expires) = store.metadata.cachedEntry(key(for: authority)), case .success(let metadata) = result else {
            return nil
        }
        recent.remember(authority, metadata: metadata, expires: expires)
        return metadata
    }

    private func key(for authority: MSALAuthority) -> AuthorityMetadataStore.MetadataKey {
        AuthorityMetadataStore.MetadataKey(
            canonical: authority.components.canonical, kind: authority.kind,
            mode: policy.mode(for: authority.components), knownHosts: knownHostsKey)
    }

    /// The metadata of `authority`, from the store or discovered.
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/internalErrorFailedAuthorityValidation`` (`invalid_instance`),
    ///   ``MSALInternalError/invalidTenant``, ``MSALInternalError/invalidAuthorityMetadata``,
    ///   ``MSALInternalError/authorityIssuerMismatch``, ``MSALInternalError/insecureEndpoint``, or a network error.
    package func resolve(_ authority: MSALAuthority, correlationID: UUID) async throws -> MSALAuthorityMetadata {
        if let metadata = cachedMetadata(for: authority) { return metadata }
        let key = key(for: authority)
        let resolver = self
        return try await store.metadata.value(for: key) {
            do {
                let metadata = try await resolver.discover(authority, correlationID: correlationID)
                return .init(.success(metadata), timeToLive: AuthorityMetadataStore.metadataLifetime)
            } catch {
                return .uncached(error, correlationID: correlationID)
            }
        }
    }

    private func discover(_ authority: MSALAuthority, correlationID: UUID) async throws -> MSALAuthorityMetadata {
        let components = authority.components
        let mode = policy.mode(for: components)
        let group: KnownClouds.Group
        switch mode {
        case .validate:
            group = try await instanceGroup(for: components, correlationID: correlationID)
        case .knownAuthority, .validationOff:
            group = KnownClouds.group(containing: components.hostAndPort) ?? Self.ownGroup(components)
        case .notApplicable:
            group = Self.ownGroup(components)
        }
        let configurationURL = Self.configurationURL(components, networkHost: group.preferredNetwork)
        do {
            let configuration = try await fetchConfiguration(
                configurationURL, microsoft: authority.kind.isMicrosoft, correlationID: correlationID)
            return try AuthorityMetadataValidator(
                authority: authority, group: group, policy: policy, isValidated: mode == .validate
            ).validate(configuration, correlationID: correlationID)
        } catch var error as MSALFailure where authority.kind == .aad && !KnownClouds.trustedHosts.contains(components.host) {
            // Another provider's URL read as Microsoft Entra's finds no Entra metadata.
            error.message += " " + AuthorityComponents.oidcHint
            throw error
        }
    }

    /// A group naming only the authority's own host.
    private static func ownGroup(_ components: AuthorityComponents) -> KnownClouds.Group {
        KnownClouds.Group(
            preferredNetwork: components.hostAndPort, preferredCache: components.hostAndPort, aliases: [components.hostAndPort])
    }

    /// Where the OpenID configuration of each kind lives.
    package static func configurationURL(_ components: AuthorityComponents, networkHost: String) -> String {
        switch components.kind {
        case .aad:
            return "\(components.scheme)://\(networkHost)/\(components.tenant)/v2.0/.well-known/openid-configuration"
        case .b2c, .ciam:
            return components.canonical + "/v2.0/.well-known/openid-configuration"
        case .adfs:
            return components.canonical + "/.well-known/openid-configuration"
        case .oidc:
            var issuer = components.canonical
            if issuer.hasSuffix("/") { issuer.removeLast() }
            return issuer + "/.well-known/openid-configuration"
        }
    }

    /// The instance-discovery URL for a Microsoft Entra authority.
    ///
    /// A trusted Entra host is asked itself; a loopback authority (a local identity provider such
    /// as `MSALEmulator`, which Microsoft's service cannot vouch for) is asked itself too, over its
    /// own scheme; any other host is asked at `login.microsoftonline.com`.
    package static func instanceDiscoveryURL(_ components: AuthorityComponents) -> (discoveryHost: String, url: String) {
        let asksItself = components.isLoopback || KnownClouds.trustedHosts.contains(components.host)
        let discoveryHost = asksItself ? components.hostAndPort : KnownClouds.defaultDiscoveryHost
        let discoveryScheme = components.isLoopback ? components.scheme : "https"
        let authorize = "\(components.scheme)://\(components.hostAndPort)/\(components.tenant)/oauth2/v2.0/authorize"
        return (
            discoveryHost,
            "\(discoveryScheme)://\(discoveryHost)/common/discovery/instance?api-version=1.1&authorization_endpoint=\(authorize)"
        )
    }

    private func instanceGroup(for components: AuthorityComponents, correlationID: UUID) async throws -> KnownClouds.Group {
        let (discoveryHost, url) = Self.instanceDiscoveryURL(components)
        let key = AuthorityMetadataStore.InstanceKey(discoveryHost: discoveryHost, host: components.hostAndPort)
        let pipeline = self.pipeline
        return try await store.instances.value(for: key) {
            do {
                let response = try await pipeline.send(MSALHTTPRequest(method: .get, url: URL(string: url)!), correlationID: correlationID)
                guard response.statusCode == 200 else {
                    let error = Self.failure(response, correlationID: correlationID, what: "Instance discovery")
                    let negative = error.oauthError == "invalid_instance"
                    return .init(.failure(error), timeToLive: negative ? AuthorityMetadataStore.negativeLifetime : nil)
                }
                let discovery = try InstanceDiscoveryResponse.parse(response.body, correlationID: correlationID)
                let group = discovery.group(containing: components.hostAndPort) ?? Self.ownGroup(components)
                return .init(.success(group), timeToLive: AuthorityMetadataStore.metadataLifetime)
            } catch {
                return .uncached(error, correlationID: correlationID)
            }
        }
    }

    private func fetchConfiguration(_ url: String, microsoft: Bool, correlationID: UUID) async throws -> OpenIDConfiguration {
        guard let requestURL = URL(string: url) else {
            throw MSALFailure(
                .internal, internalCode: .invalidAuthority, message: "Cannot build the OpenID configuration URL.",
                correlationID: correlationID)
        }
        var request = MSALHTTPRequest(method: .get, url: requestURL)
        request.sendsMicrosoftHeaders = microsoft
        let response = try await pipeline.send(request, correlationID: correlationID)
        guard response.statusCode == 200 else {
            throw Self.failure(response, correlationID: correlationID, what: "Tenant discovery")
        }
        return try OpenIDConfiguration.parse(response.body, correlationID: correlationID)
    }

    /// The error for a non-200 discovery answer.
    private static func failure(_ response: MSALHTTPResponse, correlationID: UUID, what: String) -> MSALFailure {
        let internalCode: MSALInternalError
        switch OAuthErrorResponse(body: response.body).error {
        case "invalid_instance": internalCode = .internalErrorFailedAuthorityValidation
        case "invalid_tenant": internalCode = .invalidTenant
        default: internalCode = .invalidAuthorityMetadata
        }
        return MSALFailure(response: response, code: .internal, internalCode: internalCode, context: what, correlationID: correlationID)
    }
}
