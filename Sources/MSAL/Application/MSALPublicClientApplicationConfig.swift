import Foundation
import MSALSupport

/// The configuration of an ``MSALPublicClientApplication``.
///
/// A reference type, as in MSAL for iOS, so `let config = …; config.knownAuthorities = […]` ports
/// unchanged; it is safe to share between tasks. The application copies it when created: later
/// changes do not affect an existing application.
public final class MSALPublicClientApplicationConfig: Sendable {
    /// The default authority: `https://login.microsoftonline.com/common`.
    public static let defaultAuthorityURL = URL(string: "https://login.microsoftonline.com/common")!

    private struct Values: Sendable {
        var clientId: String
        var redirectUri: String?
        var sliceConfig: MSALSliceConfig?
        var bypassRedirectURIValidation = false
        var nestedAuthBrokerClientId: String?
        var nestedAuthBrokerRedirectUri: String?
        var settings: ApplicationSettings
        var extendedLifetimeEnabled = false
        var multipleCloudsSupported = false
        var interactiveSecrets: any InteractiveSecretsSource = SecureInteractiveSecrets()
        var systemBrowserEnvironment: [String: String]? = nil
        var webAuthSessions = WebAuthSessions.shared
        var linuxBroker: MSALLinuxBrokerOptions?
    }

    /// The shared settings as they are now, read at once.
    package var settings: ApplicationSettings { values.withLock { $0.settings } }

    private let values: Mutex<Values>

    /// The application (client) id registered with the identity provider.
    ///
    /// Settable, as in MSAL for iOS; an application reads it once, when it is created.
    public var clientId: String {
        get { values.withLock { $0.clientId } }
        set { values.withLock { $0.clientId = newValue } }
    }

    /// The redirect URI registered for the application; `nil` picks a loopback `http://localhost`.
    ///
    /// Settable, as in MSAL for iOS; an application reads it once, when it is created.
    public var redirectUri: String? {
        get { values.withLock { $0.redirectUri } }
        set { values.withLock { $0.redirectUri = newValue } }
    }

    /// Sends every request to the identity provider to one slice of the service (the `slice` and
    /// `dc` query parameters), as Microsoft's test environments need. Default `nil`.
    public var sliceConfig: MSALSliceConfig? {
        get { values.withLock { $0.sliceConfig } }
        set { values.withLock { $0.sliceConfig = newValue } }
    }

    /// MSAL for iOS skips its check that the redirect URI is the app's `msauth.<bundle id>://auth`
    /// scheme when this is set. swift-msal makes no such check (a loopback redirect needs none), so
    /// the value is kept and has no effect.
    @available(*, deprecated, message: "No app URL schemes on Linux: swift-msal never checks the redirect URI's scheme")
    public var bypassRedirectURIValidation: Bool {
        get { values.withLock { $0.bypassRedirectURIValidation } }
        set { values.withLock { $0.bypassRedirectURIValidation = newValue } }
    }

    /// The client id of a nested application that MSAL for iOS's broker signs in on the hosting
    /// application's behalf (nested app authentication). Linux has no such broker: the value is
    /// kept and never sent.
    @available(*, deprecated, message: "Nested app authentication goes through MSAL for iOS's broker: not on Linux")
    public var nestedAuthBrokerClientId: String? {
        get { values.withLock { $0.nestedAuthBrokerClientId } }
        set { values.withLock { $0.nestedAuthBrokerClientId = newValue } }
    }

    /// The redirect URI of the nested application (see ``nestedAuthBrokerClientId``): kept, never
    /// sent.
    @available(*, deprecated, message: "Nested app authentication goes through MSAL for iOS's broker: not on Linux")
    public var nestedAuthBrokerRedirectUri: String? {
        get { values.withLock { $0.nestedAuthBrokerRedirectUri } }
        set { values.withLock { $0.nestedAuthBrokerRedirectUri = newValue } }
    }

    /// Creates a configuration for `clientId` with the default authority and redirect URI.
    public convenience init(clientId: String) {
        self.init(clientId: clientId, redirectUri: nil, authority: nil)
    }

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - clientId: The application (client) id registered with the identity provider.
    ///   - redirectUri: The registered redirect URI; `nil` is `http://localhost` on a free port.
    ///   - authority: `nil` is `https://login.microsoftonline.com/common`.
    public init(clientId: String, redirectUri: String?, authority: MSALAuthority?) {
        let authority = authority ?? MSALAADAuthority.defaultCommon
        self.values = Mutex(
            Values(
                clientId: clientId, redirectUri: redirectUri,
                settings: ApplicationSettings(authority: authority, cacheConfig: MSALCacheConfig())))
    }

    private init(values: Values) {
        self.values = Mutex(values)
    }

    /// An independent copy (MSAL for iOS's `copy()`): every setting as it is now, the slice
    /// configuration copied too; changing either object later does not change the other. An
    /// application makes one of these when it is created.
    public func copy() -> MSALPublicClientApplicationConfig {
        var snapshot = values.withLock { $0 }
        snapshot.sliceConfig = snapshot.sliceConfig?.copy()
        return MSALPublicClientApplicationConfig(values: snapshot)
    }

    /// Creates a configuration with a nested application (MSAL for iOS's nested app
    /// authentication, done by its broker). Linux has no such broker: the nested client id and
    /// redirect URI are kept and never sent; the configuration is that of `clientId`.
    @available(*, deprecated, message: "Nested app authentication goes through MSAL for iOS's broker: not on Linux")
    public convenience init(
        clientId: String, redirectUri: String?, authority: MSALAuthority?, nestedAuthBrokerClientId: String?,
        nestedAuthBrokerRedirectUri: String?
    ) {
        self.init(clientId: clientId, redirectUri: redirectUri, authority: authority)
        values.withLock {
            $0.nestedAuthBrokerClientId = nestedAuthBrokerClientId
            $0.nestedAuthBrokerRedirectUri = nestedAuthBrokerRedirectUri
        }
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

    /// Capabilities the client declares to the service, such as `["CP1"]` (continuous access evaluation).
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

    /// Whether access tokens past expiry but within their extended lifetime may be returned when
    /// the service is unavailable. Default `false`.
    public var extendedLifetimeEnabled: Bool {
        get { values.withLock { $0.extendedLifetimeEnabled } }
        set { values.withLock { $0.extendedLifetimeEnabled = newValue } }
    }

    /// Whether accounts of every cloud are returned, not only the authority's. Default `false`.
    public var multipleCloudsSupported: Bool {
        get { values.withLock { $0.multipleCloudsSupported } }
        set { values.withLock { $0.multipleCloudsSupported = newValue } }
    }

    /// Where the token cache is kept. Default: the file at `$XDG_CACHE_HOME/msal/token_cache.json`.
    public var cacheConfig: MSALCacheConfig {
        get { values.withLock { $0.settings.cacheConfig } }
        set { values.withLock { $0.settings.cacheConfig = newValue } }
    }

    /// How HTTP requests are sent. `nil` (the default) is ``MSALCurlTransport``; tests and
    /// apps without network pass `MSALReplayTransport` from `MSALTesting`, or their own.
    public var transport: (any MSALHTTPTransport)? {
        get { values.withLock { $0.settings.transport } }
        set { values.withLock { $0.settings.transport = newValue } }
    }

    /// The time source for token lifetimes and waits. `nil` (the default) is the system clock.
    public var clock: (any MSALClock)? {
        get { values.withLock { $0.settings.clock } }
        set { values.withLock { $0.settings.clock = newValue } }
    }

    /// Whether unknown Microsoft Entra hosts are checked with instance discovery before use.
    /// Default `true`; turn it off only for hosts you trust (prefer ``knownAuthorities``).
    public var validatesAuthority: Bool {
        get { values.withLock { $0.settings.validatesAuthority } }
        set { values.withLock { $0.settings.validatesAuthority = newValue } }
    }

    /// Whether and how Microsoft's Linux identity broker is used (``MSALLinuxBrokerOptions``);
    /// `nil` (the default) never uses it. Set `MSALLinuxBrokerOptions()` to sign in through the
    /// broker on the session bus, falling back to the browser when none answers.
    public var linuxBroker: MSALLinuxBrokerOptions? {
        get { values.withLock { $0.linuxBroker } }
        set { values.withLock { $0.linuxBroker = newValue } }
    }

    /// Where interactive requests get their PKCE verifier, `state` and `nonce`. Not public: only
    /// this package's recorded conformance scenarios replace the secure default.
    package var interactiveSecrets: any InteractiveSecretsSource {
        get { values.withLock { $0.interactiveSecrets } }
        set { values.withLock { $0.interactiveSecrets = newValue } }
    }

    /// The environment the default system browser (``MSALSystemBrowser/init()``) reads `$BROWSER`
    /// and `PATH` from instead of the process's. Not public: tests that run in parallel with others
    /// cannot `setenv` (it races every thread that reads the environment, such as a process launch).
    package var systemBrowserEnvironment: [String: String]? {
        get { values.withLock { $0.systemBrowserEnvironment } }
        set { values.withLock { $0.systemBrowserEnvironment = newValue } }
    }

    /// The registry ``MSALPublicClientApplication/cancelCurrentWebAuthSession()`` cancels from:
    /// the process's own. Not public: tests give an application a registry of its own, so that
    /// canceling it cannot end other tests' sign-ins running in the same process.
    package var webAuthSessions: WebAuthSessions {
        get { values.withLock { $0.webAuthSessions } }
        set { values.withLock { $0.webAuthSessions = newValue } }
    }
}
