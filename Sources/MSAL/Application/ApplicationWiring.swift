/// The parts every application builds the same way from its ``ApplicationSettings``: the clock,
/// the HTTP pipeline, the authority resolver, the token cache, and the token client on them
/// (issue 44, item 2: one factory instead of a copy of the wiring in each application's initializer).
package struct ApplicationWiring: Sendable {
    /// The configured clock, or the system's.
    package let clock: any MSALClock
    /// The pipeline over the configured transport, or a new ``MSALCurlTransport``.
    package let pipeline: HTTPPipeline
    /// The authority resolver on that pipeline, with its own metadata store.
    package let resolver: AuthorityResolver
    /// The token cache.
    package let cache: TokenCache

    /// Builds the parts from `settings`: its transport (`nil`: a new ``MSALCurlTransport``), clock
    /// (`nil`: ``MSALSystemClock``), cache configuration and authority validation.
    ///
    /// - Parameters:
    ///   - suggestsPartitionKeys: Whether the cache names partitions for the app's hooks (confidential clients).
    ///   - pipelineConfiguration: Changes to ``MSALGlobalConfig/httpConfig``'s pipeline settings
    ///     (managed identity turns the pipeline's retry off: its flow retries by each source's policy).
    /// - Throws: ``MSALInternalError/internalErrorInvalidParameter`` when the settings exclude
    ///   `openid` (``ApplicationSettings/excludedScopes``); the cache's errors when its location
    ///   cannot be used.
    package init(
        _ settings: ApplicationSettings, suggestsPartitionKeys: Bool,
        pipelineConfiguration: (inout HTTPPipelineConfiguration) -> Void = { _ in }
    ) throws {
        if let excluded = settings.excludedScopes, excluded.contains(where: { $0.lowercased() == "openid" }) {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "excludeScopes cannot hold openid: a sign-in needs an ID token (only profile and offline_access may be left out)")
        }
        cache = try TokenCache(config: settings.cacheConfig, suggestsPartitionKeys: suggestsPartitionKeys)
        let clock = settings.clock ?? MSALSystemClock()
        self.clock = clock
        var configuration = MSALGlobalConfig.httpConfig.pipelineConfiguration()
        pipelineConfiguration(&configuration)
        pipeline = HTTPPipeline(transport: settings.transport ?? MSALCurlTransport(), clock: clock, configuration: configuration)
        resolver = AuthorityResolver(pipeline: pipeline, store: AuthorityMetadataStore(clock: clock), policy: settings.validation)
    }

    /// The token client of an application with `settings` and `role`, on these parts.
    package func tokenClient(
        clientID: String, settings: ApplicationSettings, secrets: any InteractiveSecretsSource = SecureInteractiveSecrets(),
        role: TokenClient.Role
    ) -> TokenClient {
        TokenClient(clientID: clientID, settings: settings, wiring: self, secrets: secrets, role: role)
    }
}
