import Foundation

/// Validates authorities and discovers their endpoints, as an application does before its first
/// token request: URL checks, instance discovery for Microsoft Entra hosts, the OpenID
/// configuration, and the issuer and endpoint checks of `docs/authorities.md`.
///
/// Results are cached (24 hours; `invalid_instance` for one hour), and concurrent first requests
/// for one authority share one network request, so calling ``metadata(for:correlationID:)`` on
/// every token request costs a dictionary lookup once the authority is warm.
public struct MSALAuthorityResolver: Sendable {
    package let resolver: AuthorityResolver

    /// Creates a resolver.
    ///
    /// - Parameters:
    ///   - transport: how requests are sent; ``MSALCurlTransport`` by default, or
    ///     `MSALReplayTransport` from `MSALTesting` to replay recorded traffic.
    ///   - validatesAuthority: whether unknown Microsoft Entra hosts are checked with instance discovery.
    ///   - knownAuthorities: authorities trusted as given: no instance discovery for their hosts, and
    ///     endpoints on their hosts are accepted.
    ///   - clock: the time source for cache lifetimes.
    public init(
        transport: any MSALHTTPTransport = MSALCurlTransport(),
        validatesAuthority: Bool = true,
        knownAuthorities: [MSALAuthority] = [],
        clock: any MSALClock = MSALSystemClock()
    ) {
        self.resolver = AuthorityResolver(
            pipeline: HTTPPipeline(transport: transport, clock: clock),
            store: AuthorityMetadataStore(clock: clock),
            policy: AuthorityValidationPolicy(validatesAuthority: validatesAuthority, knownAuthorities: knownAuthorities))
    }

    /// The validated metadata of `authority`, from the cache or discovered.
    ///
    /// - Parameters:
    ///   - authority: the authority to resolve.
    ///   - correlationID: sent with the discovery requests and carried by any error; `nil`: a new
    ///     random one, made only when the metadata is not in memory (`UUID()` reads `/dev/urandom`
    ///     on Linux, far more than answering from memory costs).
    /// - Throws: ``MSALFailure``, with internal code ``MSALInternalError/internalErrorFailedAuthorityValidation``
    ///   (`invalid_instance`), ``MSALInternalError/invalidTenant``, ``MSALInternalError/invalidAuthorityMetadata``,
    ///   ``MSALInternalError/authorityIssuerMismatch``, ``MSALInternalError/insecureEndpoint``, or a network error.
    public func metadata(for authority: MSALAuthority, correlationID: UUID? = nil) async throws -> MSALAuthorityMetadata {
        if correlationID == nil, let metadata = resolver.cachedMetadata(for: authority) { return metadata }
        return try await resolver.resolve(authority, correlationID: correlationID ?? UUID())
    }

    /// The cached metadata of `authority`, or `nil`; never does I/O.
    public func cachedMetadata(for authority: MSALAuthority) -> MSALAuthorityMetadata? {
        resolver.cachedMetadata(for: authority)
    }
}
