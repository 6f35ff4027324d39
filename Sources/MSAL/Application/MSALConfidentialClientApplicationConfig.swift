import Foundation
import MSALSupport

/// The configuration of an ``MSALConfidentialClientApplication``: a service or web app that
/// proves its own identity with a credential.
///
/// A reference type like ``MSALPublicClientApplicationConfig``, safe to share between tasks. The
/// application copies it when created: later changes do not affect an existing application.
public final class MSALConfidentialClientApplicationConfig: Sendable {
    private struct Values: Sendable {
        var settings: ApplicationSettings
        var azureRegion: MSALAzureRegion? = nil
        var instanceMetadataBaseURL: URL? = nil
    }

    /// The application (client) id registered with the identity provider.
    public let clientId: String
    /// How the application proves its identity: a secret, a certificate or an assertion.
    public let clientCredential: MSALClientCredential
    /// The shared settings as they are now, read at once.
    package var settings: ApplicationSettings { values.withLock { $0.settings } }

    private let values: Mutex<Values>

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - clientId: The application (client) id registered with the identity provider.
    ///   - clientCredential: The application's credential.
    ///   - authority: Where tokens come from. App tokens need a tenant: for Microsoft Entra ID name
    ///     it (`https://login.microsoftonline.com/<tenant id or domain>`), not `common` or
    ///     `organizations`.
    public init(clientId: String, clientCredential: MSALClientCredential, authority: MSALAuthority) {
        self.clientId = clientId
        self.clientCredential = clientCredential
        self.values = Mutex(Values(settings: ApplicationSettings(authority: authority, cacheConfig: .memory)))
    }

    /// A copy of every setting at once (one lock, so a caller changing its object meanwhile is seen
    /// wholly or not at all), with `clientId` when given.
    package func copy(clientId: String? = nil) -> MSALConfidentialClientApplicationConfig {
        let current = values.withLock { $0 }
        let copy = MSALConfidentialClientApplicationConfig(
            clientId: clientId ?? self.clientId, clientCredential: clientCredential, authority: current.settings.authority)
        copy.values.withLock { $0 = current }
        return copy
    }

    /// The authority tokens are requested from unless the parameters name another.
    public var authority: MSALAuthority {
        get { values.withLock { $0.settings.authority } }
        set { values.withLock { $0.settings.authority = newValue } }
    }

    /// Authorities trusted without instance discovery (B2C, CIAM, ADFS and custom domains need this
    /// when validation is on).
    public var knownAuthorities: [MSALAuthority] {
        get { values.withLock { $0.settings.knownAuthorities } }
        set { values.withLock { $0.settings.knownAuthorities = newValue } }
    }

    /// Capabilities the client declares to the service, such as `["CP1"]` (continuous access
    /// evaluation: the resource may then answer with a claims challenge).
    public var clientApplicationCapabilities: [String]? {
        get { values.withLock { $0.settings.clientApplicationCapabilities } }
        set { values.withLock { $0.settings.clientApplicationCapabilities = newValue } }
    }

    /// Reserved scopes left out of every user token request, as MSAL for Python's
    /// `exclude_scopes`: `offline_access` for an app that wants no refresh token (each silent
    /// request after the access token expires then needs a sign-in), `profile` for a smaller ID
    /// token. `openid` cannot be left out: creating the application fails with
    /// ``MSALInternalError/internalErrorInvalidParameter``. App tokens send no reserved scope
    /// anyway. Default `nil`: `openid profile offline_access` are always added.
    public var excludeScopes: [String]? {
        get { values.withLock { $0.settings.excludedScopes } }
        set { values.withLock { $0.settings.excludedScopes = newValue } }
    }

    /// Seconds before expiry at which a cached access token is no longer returned. Default 300.
    public var tokenExpirationBuffer: Double {
        get { values.withLock { $0.settings.tokenExpirationBuffer } }
        set { values.withLock { $0.settings.tokenExpirationBuffer = newValue } }
    }

    /// Where the token cache is kept. Default: in memory, for the life of the application (a
    /// service usually keeps one application for its whole run); a file or custom storage shares
    /// it across processes and with the other MSAL libraries.
    public var cacheConfig: MSALCacheConfig {
        get { values.withLock { $0.settings.cacheConfig } }
        set { values.withLock { $0.settings.cacheConfig = newValue } }
    }

    /// How HTTP requests are sent. `nil` (the default) is ``MSALCurlTransport``.
    public var transport: (any MSALHTTPTransport)? {
        get { values.withLock { $0.settings.transport } }
        set { values.withLock { $0.settings.transport = newValue } }
    }

    /// The time source for token lifetimes, assertion reuse and waits. `nil` (the default) is the
    /// system clock.
    public var clock: (any MSALClock)? {
        get { values.withLock { $0.settings.clock } }
        set { values.withLock { $0.settings.clock = newValue } }
    }

    /// The Azure region app tokens (``MSALConfidentialClientApplication/acquireTokenForClient(with:)``)
    /// are requested in, for a Microsoft Entra authority on a Microsoft cloud host: the token
    /// request goes to `<region>.login.microsoft.com` (`<region>.<host>` in other clouds), while
    /// discovery, the metadata and the cache stay with the global authority. Default `nil`: the
    /// region `MSAL_FORCE_REGION` names, if any, else the global endpoint. An invalid name makes
    /// the application's creation fail; a detection that finds no region uses the global
    /// endpoint. A regional request that fails is not retried on the global endpoint.
    public var azureRegion: MSALAzureRegion? {
        get { values.withLock { $0.azureRegion } }
        set { values.withLock { $0.azureRegion = newValue } }
    }

    /// The environment variables read for `MSAL_FORCE_REGION` and `REGION_NAME`. `nil` (the
    /// default) reads the process environment when the application is created.
    public var environment: [String: String]? {
        get { values.withLock { $0.settings.environment } }
        set { values.withLock { $0.settings.environment = newValue } }
    }

    /// The instance metadata service asked for the region by ``MSALAzureRegion/autoDetect``
    /// (default `http://169.254.169.254`). Tests point it at a local server.
    public var instanceMetadataBaseURL: URL? {
        get { values.withLock { $0.instanceMetadataBaseURL } }
        set { values.withLock { $0.instanceMetadataBaseURL = newValue } }
    }

    /// Whether unknown Microsoft Entra hosts are checked with instance discovery before use.
    /// Default `true`; turn it off only for hosts you trust (prefer ``knownAuthorities``).
    public var validatesAuthority: Bool {
        get { values.withLock { $0.settings.validatesAuthority } }
        set { values.withLock { $0.settings.validatesAuthority = newValue } }
    }
}
