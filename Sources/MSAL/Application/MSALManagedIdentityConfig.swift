import Foundation
import MSALSupport

/// The configuration of an ``MSALManagedIdentityApplication``: which identity, and where its
/// tokens are cached.
///
/// A reference type like the other configurations, safe to share between tasks. The application
/// copies it when created.
public final class MSALManagedIdentityConfig: Sendable {
    private struct Values: Sendable {
        var settings = ApplicationSettings(authority: ManagedIdentityFlow.placeholderAuthority, cacheConfig: .memory)
        var imdsBaseURL: URL? = nil
        var arcTokenDirectory = "/var/opt/azcmagent/tokens"
        var arcAgentPath = "/opt/azcmagent/bin/himds"
    }

    /// The identity tokens are asked for.
    public let identity: MSALManagedIdentity
    /// The shared settings as they are now, read at once.
    package var settings: ApplicationSettings { values.withLock { $0.settings } }

    private let values = Mutex(Values())

    /// Creates a configuration for `identity`.
    public init(identity: MSALManagedIdentity) {
        self.identity = identity
    }

    /// Where tokens are cached. Default: in memory, for the life of the application.
    public var cacheConfig: MSALCacheConfig {
        get { values.withLock { $0.settings.cacheConfig } }
        set { values.withLock { $0.settings.cacheConfig = newValue } }
    }

    /// How HTTP requests are sent. `nil` (the default) is ``MSALCurlTransport``.
    public var transport: (any MSALHTTPTransport)? {
        get { values.withLock { $0.settings.transport } }
        set { values.withLock { $0.settings.transport = newValue } }
    }

    /// The time source for lifetimes and retry waits. `nil` (the default) is the system clock.
    public var clock: (any MSALClock)? {
        get { values.withLock { $0.settings.clock } }
        set { values.withLock { $0.settings.clock = newValue } }
    }

    /// The environment variables the source is detected from (``MSALManagedIdentitySource``).
    /// `nil` (the default) reads the process environment when the application is created; a
    /// dictionary replaces it entirely, for tests and for programs that configure identity
    /// explicitly.
    public var environment: [String: String]? {
        get { values.withLock { $0.settings.environment } }
        set { values.withLock { $0.settings.environment = newValue } }
    }

    /// The instance metadata service to ask instead of `http://169.254.169.254` (the same as
    /// setting `AZURE_POD_IDENTITY_AUTHORITY_HOST`, which MSAL for Python and .NET read; this
    /// property wins). Only the IMDS source uses it. Tests point it at a local server.
    public var imdsBaseURL: URL? {
        get { values.withLock { $0.imdsBaseURL } }
        set { values.withLock { $0.imdsBaseURL = newValue } }
    }

    /// Capabilities declared to the source, such as `["CP1"]`; only Service Fabric takes them (`xms_cc`).
    public var clientApplicationCapabilities: [String]? {
        get { values.withLock { $0.settings.clientApplicationCapabilities } }
        set { values.withLock { $0.settings.clientApplicationCapabilities = newValue } }
    }

    /// Seconds before expiry at which a cached token is no longer returned. Default 300.
    public var tokenExpirationBuffer: Double {
        get { values.withLock { $0.settings.tokenExpirationBuffer } }
        set { values.withLock { $0.settings.tokenExpirationBuffer = newValue } }
    }

    /// The directory the Azure Arc agent writes its challenge key files to (Linux:
    /// `/var/opt/azcmagent/tokens`); a challenge naming a file elsewhere is refused. Tests point it
    /// at a directory of their own.
    package var arcTokenDirectory: String {
        get { values.withLock { $0.arcTokenDirectory } }
        set { values.withLock { $0.arcTokenDirectory = newValue } }
    }

    /// The Arc agent's executable, whose presence makes Azure Arc the source when its variables are unset.
    package var arcAgentPath: String {
        get { values.withLock { $0.arcAgentPath } }
        set { values.withLock { $0.arcAgentPath = newValue } }
    }

    package func copy() -> MSALManagedIdentityConfig {
        let copy = MSALManagedIdentityConfig(identity: identity)
        let current = values.withLock { $0 }
        copy.values.withLock { $0 = current }
        return copy
    }
}
