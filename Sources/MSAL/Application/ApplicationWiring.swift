/// The parts every application builds the same way from its settings: the clock, the HTTP
/// pipeline, the authority resolver and the token cache (issue 44, item 2: one factory instead of
/// a copy of the wiring in each application's initializer).
package struct ApplicationWiring: Sendable {
    /// The configured clock, or the system's.
    package let clock: any MSALClock
    /// The pipeline over the configured transport, or a new ``MSALCurlTransport``.
    package let pipeline: HTTPPipeline
    /// The authority resolver on that pipeline, with its own metadata store.
    package let resolver: AuthorityResolver
    /// The token cache.
    package let cache: TokenCache

    /// Builds the parts.
    ///
    /// - Parameters:
    ///   - transport: The configured transport (`nil`: a new ``MSALCurlTransport``).
    ///   - clock: The configured clock (`nil`: ``MSALSystemClock``).
    ///   - cacheConfig: The cache's configuration.
    ///   - suggestsPartitionKeys: Whether the cache names partitions for the app's hooks (confidential clients).
    ///   - pipelineConfiguration: Changes to ``MSALGlobalConfig/httpConfig``'s pipeline settings
    ///     (managed identity turns the pipeline's retry off: its flow retries by each source's policy).
    ///   - validation: The authority validation policy.
    /// - Throws: the cache's errors when its location cannot be used.
    package init(
        transport: (any MSALHTTPTransport)?, clock: (any MSALClock)?, cacheConfig: MSALCacheConfig, suggestsPartitionKeys: Bool,
        pipelineConfiguration: (inout HTTPPipelineConfiguration) -> Void = { _ in }, validation: AuthorityValidationPolicy
    ) throws {
        cache = try TokenCache(config: cacheConfig, suggestsPartitionKeys: suggestsPartitionKeys)
        let clock = clock ?? MSALSystemClock()
        self.clock = clock
        var configuration = MSALGlobalConfig.httpConfig.pipelineConfiguration()
        pipelineConfiguration(&configuration)
        pipeline = HTTPPipeline(transport: transport ?? MSALCurlTransport(), clock: clock, configuration: configuration)
        resolver = AuthorityResolver(pipeline: pipeline, store: AuthorityMetadataStore(clock: clock), policy: validation)
    }
}
