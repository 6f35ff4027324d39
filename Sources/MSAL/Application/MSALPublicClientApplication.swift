import Foundation

/// A public-client application: it signs users in and gets tokens for them, keeping them in its
/// token cache.
///
/// One instance is safe to use from many tasks at once. Token acquisition arrives with the
/// application issue; this type already answers the account questions of the token cache.
public final class MSALPublicClientApplication: Sendable {
    /// The configuration the application was created with (a copy).
    public let configuration: MSALPublicClientApplicationConfig
    package let cache: TokenCache
    package let accountMemoStore = TokenCacheAccountMemo()
    /// The cloud accounts are listed for; `nil` lists every cloud.
    package let environmentFilterHost: String?

    /// Creates an application.
    ///
    /// - Throws: ``MSALError`` with ``MSALInternalError/invalidParameter`` for an empty client id, or a
    ///   cache error when the cache location cannot be used.
    public init(configuration: MSALPublicClientApplicationConfig) throws {
        let clientID = configuration.clientId.trimmingCharacters(in: .whitespaces)
        guard !clientID.isEmpty else {
            throw MSALError(.internal, internalCode: .invalidParameter, message: "The client id is empty")
        }
        let copy = MSALPublicClientApplicationConfig(
            clientId: clientID, redirectUri: configuration.redirectUri, authority: configuration.authority)
        copy.knownAuthorities = configuration.knownAuthorities
        copy.clientApplicationCapabilities = configuration.clientApplicationCapabilities
        copy.tokenExpirationBuffer = configuration.tokenExpirationBuffer
        copy.extendedLifetimeEnabled = configuration.extendedLifetimeEnabled
        copy.multipleCloudsSupported = configuration.multipleCloudsSupported
        copy.cacheConfig = configuration.cacheConfig
        self.configuration = copy
        self.environmentFilterHost = copy.multipleCloudsSupported ? nil : copy.authority.host
        self.cache = try TokenCache(config: copy.cacheConfig)
    }

    /// Creates an application for `clientId` with the default authority and cache.
    public convenience init(clientId: String) throws {
        try self.init(configuration: MSALPublicClientApplicationConfig(clientId: clientId))
    }
}
