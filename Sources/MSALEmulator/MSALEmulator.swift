import Foundation
import MSALSupport

/// A local identity provider that speaks the Microsoft identity platform v2.0 protocol over plain
/// HTTP on `127.0.0.1`, for tests, demos and work without a network.
///
/// It hosts the tenants, users and public clients of its ``Configuration``: instance discovery,
/// OpenID configuration, a sign-in page at the authorize endpoint, the token endpoint
/// (authorization code with PKCE, rotating refresh tokens, device code), device-code approval,
/// the signing keys (RSA-2048, generated at start), end-session, and a protected resource
/// (`GET /resource/me`). Tests steer it through its admin calls: ``inject(_:)`` faults,
/// ``approveDeviceCode(userCode:as:)``, ``revokeRefreshTokens(of:)``, ``advanceClock(by:)``, and
/// the request log (``requests``, ``requestCount(_:grantType:)``).
///
/// ```swift
/// let emulator = try MSALEmulator(configuration: .sample)
/// try await emulator.start()
/// let authority = try MSALAADAuthority(url: emulator.authorityURL(tenant: "common"), options: .allowInsecureLoopback)
/// // … use swift-msal against it …
/// try await emulator.shutdown()
/// ```
///
/// Safe to use from many tasks at once.
public final class MSALEmulator: Sendable {
    /// The resource of scopes written without one (`User.Read`): Microsoft Graph, as on Entra.
    public static let graphResource = "https://graph.microsoft.com"

    /// What the emulator hosts.
    public var configuration: Configuration { core.configuration }

    let core: EmulatorCore
    private let server = Mutex<EmulatorServer?>(nil)

    /// Creates an emulator and its signing key; it listens once ``start(port:)`` is called.
    ///
    /// - Throws: ``MSALEmulatorError`` for an inconsistent configuration
    ///   (``MSALEmulatorError/Code/invalidConfiguration``) or a key-generation failure.
    public init(configuration: Configuration = .sample) throws {
        self.core = try EmulatorCore(configuration: configuration)
    }

    /// Starts listening on `127.0.0.1:port` (0, the default, picks a free port).
    ///
    /// - Returns: ``baseURL``.
    /// - Throws: ``MSALEmulatorError/Code/alreadyRunning``, ``MSALEmulatorError/Code/bindFailed``.
    @discardableResult
    public func start(port: Int = 0) async throws -> URL {
        guard server.withLock({ $0 == nil }) else { throw MSALEmulatorError(.alreadyRunning, "the emulator is already running") }
        let core = self.core
        let started = try await EmulatorServer.start(port: port, limits: core.configuration.limits) { request in
            await core.handle(request)
        }
        let raced = server.withLock { current -> Bool in
            guard current == nil else { return true }
            current = started
            return false
        }
        if raced {
            await started.shutdown()
            throw MSALEmulatorError(.alreadyRunning, "the emulator is already running")
        }
        core.boundOrigin = "http://127.0.0.1:\(started.port)"
        return baseURL
    }

    /// Stops listening and closes every connection. Codes, tokens and the request log are kept, so
    /// an emulator may be started again (on another port unless one is given).
    public func shutdown() async throws {
        let running = server.withLock { current -> EmulatorServer? in
            defer { current = nil }
            return current
        }
        await running?.shutdown()
    }

    /// Whether it is listening.
    public var isRunning: Bool { server.withLock { $0 != nil } }

    /// The bound port; 0 before ``start(port:)``.
    public var port: Int { server.withLock { $0?.port ?? 0 } }

    /// `http://127.0.0.1:<port>` (port 0 before ``start(port:)``): where to connect.
    public var baseURL: URL {
        // Digits and a fixed host: always a URL.
        URL(string: core.boundOrigin)!
    }

    /// The origin the emulator names itself by: ``Configuration/advertisedOrigin`` when set,
    /// else ``baseURL``.
    public var advertisedBaseURL: URL {
        // The advertised origin was checked to be a URL; the bound one always is.
        URL(string: core.origin)!
    }

    /// The authority URL of a tenant: `http://127.0.0.1:<port>/<tenant>`, or under
    /// ``Configuration/advertisedOrigin`` when one is set.
    ///
    /// - Parameter tenant: A hosted tenant's id or domain, `common` or `organizations`; passed through as written.
    public func authorityURL(tenant: String) -> URL {
        advertisedBaseURL.appendingPathComponent(tenant)
    }

    /// The verification URI of the device code flow: `http://127.0.0.1:<port>/devicelogin`.
    public var deviceLoginURL: URL {
        baseURL.appendingPathComponent("devicelogin")
    }

    /// The protected resource: `http://127.0.0.1:<port>/resource/me`. It answers a `GET` carrying
    /// `Authorization: Bearer <access token>` (an unexpired token of this emulator for
    /// ``Configuration/resourceAudience``) with the user as JSON, and 401 otherwise.
    public var resourceURL: URL {
        baseURL.appendingPathComponent("resource").appendingPathComponent("me")
    }

    /// The IMDS managed-identity token endpoint: `http://127.0.0.1:<port>/metadata/identity/oauth2/token`.
    /// An app reaches it with `AZURE_POD_IDENTITY_AUTHORITY_HOST` set to ``baseURL``.
    public var imdsTokenURL: URL {
        baseURL.appendingPathComponent("metadata/identity/oauth2/token")
    }

    /// The App Service managed-identity token endpoint: `http://127.0.0.1:<port>/msi/token`, the
    /// `IDENTITY_ENDPOINT` of an app (with `IDENTITY_HEADER` = ``Configuration/appServiceIdentityHeader``).
    public var appServiceTokenURL: URL {
        baseURL.appendingPathComponent("msi/token")
    }

    /// The Azure Arc managed-identity token endpoint:
    /// `http://127.0.0.1:<port>/arc/metadata/identity/oauth2/token`, the `IDENTITY_ENDPOINT` of an
    /// Arc machine (with `IMDS_ENDPOINT` = ``azureArcIMDSURL``).
    public var azureArcTokenURL: URL {
        baseURL.appendingPathComponent("arc/metadata/identity/oauth2/token")
    }

    /// The `IMDS_ENDPOINT` of an Arc machine served by this emulator: `http://127.0.0.1:<port>/arc`.
    public var azureArcIMDSURL: URL {
        baseURL.appendingPathComponent("arc")
    }

    /// The emulator's clock: the system clock moved by ``advanceClock(by:)``.
    public var now: Date { core.now() }
}
