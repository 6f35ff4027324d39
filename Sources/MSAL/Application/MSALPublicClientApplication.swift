import Foundation
import MSALSupport

/// A public-client application: it signs users in and gets tokens for them, keeping them in its
/// token cache.
///
/// One instance is safe to use from many tasks at once: concurrent silent requests that need the
/// same refresh share one network request, and one interactive request runs at a time.
public final class MSALPublicClientApplication: Sendable {
    /// The configuration the application was created with (a copy).
    public let configuration: MSALPublicClientApplicationConfig
    package let cache: TokenCache
    package let accountMemoStore = TokenCacheAccountMemo()
    /// The cloud accounts are listed for; `nil` lists every cloud.
    package let environmentFilterHost: String?

    /// What the token flows share: transport, authority resolver, cache and clock.
    package let client: TokenClient
    /// Set while an interactive request runs: one at a time per application.
    package let interactiveSession = Mutex(false)
    /// The account ``getCurrentAccount(with:completionBlock:)`` answered last, reported as the
    /// previous account by the next call (in memory, for this application object).
    package let currentPrincipal = Mutex<MSALAccount?>(nil)
    /// The Linux identity broker's flow, when the configuration opts in (``MSALPublicClientApplicationConfig/linuxBroker``).
    package let broker: BrokerFlow?

    /// Creates an application.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for an empty client id, or a
    ///   cache error when the cache location cannot be used.
    public init(configuration: MSALPublicClientApplicationConfig) throws {
        let clientID = configuration.clientId.trimmingCharacters(in: .whitespaces)
        guard !clientID.isEmpty else {
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "The client id is empty")
        }
        // One consistent snapshot of every setting (the caller may go on changing its object).
        let copy = configuration.copy()
        copy.clientId = clientID
        self.configuration = copy
        self.environmentFilterHost = copy.multipleCloudsSupported ? nil : copy.authority.components.hostAndPort
        let settings = copy.settings
        let wiring = try ApplicationWiring(settings, suggestsPartitionKeys: false)
        self.cache = wiring.cache
        self.client = wiring.tokenClient(
            clientID: clientID, settings: settings, secrets: copy.interactiveSecrets,
            role: .publicClient(
                TokenClient.PublicClient(
                    redirectURI: copy.redirectUri, extendedLifetimeEnabled: copy.extendedLifetimeEnabled,
                    multipleCloudsSupported: copy.multipleCloudsSupported, systemBrowserEnvironment: copy.systemBrowserEnvironment,
                    sliceParameters: copy.sliceConfig?.sliceDictionary ?? [:], webAuthSessions: copy.webAuthSessions)))
        self.broker = copy.linuxBroker.map { [client] in BrokerFlow(options: $0, tokens: client) }
    }

    /// Creates an application for `clientId` with the default authority and cache.
    public convenience init(clientId: String) throws {
        try self.init(configuration: MSALPublicClientApplicationConfig(clientId: clientId))
    }
}
