import Foundation
import MSALSupport

/// A confidential-client application: a service, daemon or web app that proves its own identity
/// with a credential (a secret, a certificate or an assertion) and gets tokens for itself.
///
/// One instance is safe to use from many tasks at once, and meant to live as long as the service:
/// its cache, its signed client assertion and its authority metadata are reused across requests,
/// and concurrent requests that need the same token share one network request.
public final class MSALConfidentialClientApplication: Sendable {
    /// The configuration the application was created with (a copy).
    public let configuration: MSALConfidentialClientApplicationConfig
    package let cache: TokenCache
    /// What the token flows share: transport, authority resolver, cache and clock.
    package let client: TokenClient
    /// The client authentication form fields, with the signed assertion they reuse.
    package let authentication: ClientAuthentication
    /// The Azure region app tokens are requested in (``MSALConfidentialClientApplicationConfig/azureRegion``).
    package let region: RegionResolver
    /// Account lists derived from the cache, reused while it is unchanged.
    package let accountMemoStore = TokenCacheAccountMemo()

    /// Creates an application.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for an empty client id,
    ///   an invalid Azure region name or a certificate credential's refused extra claims, or a cache error when the cache location cannot be used.
    public init(configuration: MSALConfidentialClientApplicationConfig) throws {
        let clientID = configuration.clientId.trimmingCharacters(in: .whitespaces)
        guard !clientID.isEmpty else {
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "The client id is empty")
        }
        // One consistent snapshot of every setting (the caller may go on changing its object).
        let copy = configuration.copy(clientId: clientID)
        try copy.clientCredential.validate()
        let settings = copy.settings
        let variables = settings.environment ?? ProcessInfo.processInfo.environment
        let regionSetting = try RegionResolver.effectiveSetting(copy.azureRegion, variables: variables)
        self.configuration = copy
        let wiring = try ApplicationWiring(settings, suggestsPartitionKeys: true)
        self.cache = wiring.cache
        // Region detection asks the instance metadata service once, for at most 2 seconds, never retried.
        var regionPipelineConfiguration = MSALGlobalConfig.httpConfig.pipelineConfiguration()
        regionPipelineConfiguration.retryCount = 0
        regionPipelineConfiguration.defaultThrottle = 0
        regionPipelineConfiguration.limits.connectTimeout = 2
        regionPipelineConfiguration.limits.totalTimeout = 2
        self.region = RegionResolver(
            setting: regionSetting, variables: variables, imdsBaseURL: copy.instanceMetadataBaseURL,
            pipeline: HTTPPipeline(
                transport: settings.transport ?? MSALCurlTransport(), clock: wiring.clock, configuration: regionPipelineConfiguration),
            logger: MSALLogger())
        let authentication = ClientAuthentication(credential: copy.clientCredential, clientID: clientID, clock: wiring.clock)
        self.authentication = authentication
        self.client = wiring.tokenClient(clientID: clientID, settings: settings, role: .confidentialClient(authentication))
    }

    /// Creates an application for `clientId` with `clientCredential` at `authority`, caching in memory.
    public convenience init(clientId: String, clientCredential: MSALClientCredential, authority: MSALAuthority) throws {
        try self.init(
            configuration: MSALConfidentialClientApplicationConfig(
                clientId: clientId, clientCredential: clientCredential, authority: authority))
    }
}
