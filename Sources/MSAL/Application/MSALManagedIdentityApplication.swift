import Foundation

/// An application that gets tokens for the managed identity of the Azure resource it runs on —
/// a VM, an App Service or Functions app, a container, an Arc-enabled server — with no secret to
/// store: the platform proves the identity.
///
/// The source is detected once, when the application is created, from the environment the
/// platform sets (``MSALManagedIdentitySource``). Tokens are cached (in memory by default) and
/// replaced before they expire, past their `refresh_on`. One instance is safe to use from many
/// tasks at once; concurrent requests for the same resource share one request to the source.
public final class MSALManagedIdentityApplication: Sendable {
    /// The configuration the application was created with (a copy).
    public let configuration: MSALManagedIdentityConfig
    /// Where tokens come from, detected from the environment.
    public let source: MSALManagedIdentitySource
    package let cache: TokenCache
    package let flow: ManagedIdentityFlow

    /// Creates an application and detects its source.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for an empty
    ///   user-assigned id, or a cache error when the cache location cannot be used. An unusable
    ///   endpoint, or an identity the source cannot serve, is reported by the first request.
    public init(configuration: MSALManagedIdentityConfig) throws {
        let copy = configuration.copy()
        if case .userAssigned(let id) = copy.identity, id.value.trimmingCharacters(in: .whitespaces).isEmpty {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "The user-assigned managed identity's id is empty")
        }
        self.configuration = copy
        let settings = copy.settings
        let variables = settings.environment ?? ProcessInfo.processInfo.environment
        let source = MSALManagedIdentitySource.detect(
            variables, arcAgentInstalled: FileManager.default.isExecutableFile(atPath: copy.arcAgentPath))
        self.source = source
        // The flow retries by each source's own policy; the pipeline neither retries nor holds back
        // a request that failed without naming a time (a 429's Retry-After is still honoured).
        let wiring = try ApplicationWiring(settings, suggestsPartitionKeys: true) { pipeline in
            pipeline.retryCount = 0
            pipeline.defaultThrottle = 0
        }
        self.cache = wiring.cache
        self.flow = ManagedIdentityFlow(
            identity: copy.identity, source: source, endpoints: ManagedIdentityEndpoints(variables: variables, configuration: copy),
            client: wiring.tokenClient(clientID: copy.identity.cacheClientID, settings: settings, role: .managedIdentity))
    }

    /// Creates an application for `identity`, caching in memory, with the source detected from the process environment.
    public convenience init(identity: MSALManagedIdentity) throws {
        try self.init(configuration: MSALManagedIdentityConfig(identity: identity))
    }

    /// Gets a token for ``MSALManagedIdentityParameters/resource``.
    ///
    /// A cached token valid for longer than ``MSALManagedIdentityConfig/tokenExpirationBuffer`` is
    /// returned with no request, unless ``MSALManagedIdentityParameters/forceRefresh`` or
    /// ``MSALManagedIdentityParameters/claims`` is set. A token past its `refresh_on` (half its
    /// lifetime for tokens of more than two hours, when the source names none) is replaced when
    /// the source answers, and returned while it does not. The source is asked again after a
    /// failure it may recover from: IMDS after 404, 408, 410, 429, 5xx or a timeout (three times,
    /// after 1, 2 and 4 s; seven times every 10 s after a 410, while it restarts), the others after
    /// 404, 408, 429, 500, 503, 504 or a timeout (three times, after 1 s or the `Retry-After`).
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/managedIdentityRequestFailed`` with the
    ///   source's error (a source that stayed unavailable too, as ``MSALError/internal``),
    ///   ``MSALInternalError/managedIdentityNotSupported``,
    ///   ``MSALInternalError/invalidManagedIdentityEndpoint``,
    ///   ``MSALInternalError/managedIdentityChallengeRejected``, or a network error.
    public func acquireToken(with parameters: MSALManagedIdentityParameters) async throws -> MSALResult {
        try await flow.run(try flow.request(parameters))
    }

    /// ``acquireToken(with:)`` for `resource` with the default parameters.
    public func acquireToken(forResource resource: String) async throws -> MSALResult {
        try await acquireToken(with: MSALManagedIdentityParameters(resource: resource))
    }

    /// ``acquireToken(with:)`` with a completion block, called once on an arbitrary thread.
    public func acquireToken(with parameters: MSALManagedIdentityParameters, completionBlock: @escaping MSALCompletionBlock) {
        MSALParameters.complete(nil, completionBlock) { try await self.acquireToken(with: parameters) }
    }
}
