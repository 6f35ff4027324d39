import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Receives the browser's redirect on a loopback port (RFC 8252 §7.3), once.
///
/// ```swift
/// let listener = try await LoopbackRedirectListener.start(redirectURI: config.redirectUri, expectedState: state,
///                                                          timeout: webview.timeout)
/// // send listener.redirectURI as redirect_uri, open the browser …
/// let redirect = try await listener.waitForRedirect()
/// ```
///
/// It binds `127.0.0.1` — and, for a `localhost` redirect URI, `[::1]` on the same port, so a browser
/// that tries IPv6 first reaches this listener and no other process can take that address — on an
/// ephemeral port unless the redirect URI names one (with `SO_REUSEADDR`, so a fixed port is free again
/// at once after a sign-in, but never `SO_REUSEPORT`: no other socket can listen there too). It accepts exactly one `GET`
/// on the redirect path whose `state` is the expected one (see ``LoopbackRequestRules``) — and, once
/// offered, serves one ``offerStart(token:authorizationURL:)`` redirect — answers it with
/// the success or failure page and closes: the port is released and a replay finds nothing listening.
/// Every other request is answered with an error status (or dropped) and the listener keeps waiting until
/// its timeout. Connections are served concurrently, each for at most the connection timeout.
package final class LoopbackRedirectListener: Sendable {
    /// The default cap on the bytes of one request: 16 KiB.
    package static let defaultMaximumRequestBytes = 16 * 1024
    /// The default time one connection has to deliver its request: 10 s.
    package static let defaultConnectionTimeout: TimeInterval = 10
    /// The most connections served at once.
    package static let maximumConnections = 64
    /// The longest listener timeout honoured; longer ones are shortened to it.
    package static let maximumTimeout: TimeInterval = 86_400

    /// The `redirect_uri` to send: `http://localhost:<port><path>` (or `127.0.0.1` when configured so).
    package let redirectURI: URL
    /// The bound port.
    package let port: Int
    /// The addresses the listener is bound to: `127.0.0.1`, and `::1` when the host is `localhost` and IPv6 is available.
    package let boundAddresses: [SocketAddress]
    private let core: LoopbackListenerCore

    /// How many open connections have begun their request (for tests).
    var requestsBegun: Int { core.requestsBegun }
    private let servers: [any Channel]

    /// Whether a server socket is still open (for tests: a closed port can be taken by another
    /// listener at once, so a refused connection alone cannot prove this one closed).
    var isListening: Bool { servers.contains { $0.isActive } }

    private init(redirectURI: URL, port: Int, core: LoopbackListenerCore, servers: [any Channel]) {
        self.redirectURI = redirectURI
        self.port = port
        self.core = core
        self.servers = servers
        self.boundAddresses = servers.compactMap(\.localAddress)
    }

    /// Starts a listener for the app's configured redirect URI.
    ///
    /// - Parameters:
    ///   - redirectURI: `nil` (→ `http://localhost:<ephemeral>/`), `http://localhost[:port][/path]` or
    ///     `http://127.0.0.1[:port][/path]`; anything else throws ``MSALInternalError/internalErrorInvalidRedirectURI``.
    ///   - expectedState: The `state` of the authorization request; the only redirect accepted carries it.
    ///   - timeout: Seconds to wait for the redirect (at most a day); then ``waitForRedirect()`` throws
    ///     ``MSALInternalError/redirectTimeout`` and the port is closed.
    ///   - successPageHTML: The page after a successful redirect; `nil` is the built-in one.
    ///   - failurePageHTML: The failure page template (see ``MSALWebviewParameters/failurePageHTML``).
    ///   - maximumRequestBytes: The most bytes a connection may send before it gets 431 and is closed.
    ///   - connectionTimeout: Seconds a connection has to deliver its request.
    /// - Throws: ``MSALInternalError/internalErrorInvalidRedirectURI`` for a bad redirect URI,
    ///   ``MSALInternalError/internalErrorInvalidParameter`` for an empty state or a bad timeout or cap,
    ///   ``MSALInternalError/loopbackListenerFailed`` when the port cannot be bound.
    package static func start(
        redirectURI: String?,
        expectedState: String,
        timeout: TimeInterval,
        successPageHTML: String? = nil,
        failurePageHTML: String? = nil,
        maximumRequestBytes: Int = defaultMaximumRequestBytes,
        connectionTimeout: TimeInterval = defaultConnectionTimeout
    ) async throws(MSALFailure) -> LoopbackRedirectListener {
        let redirect = try LoopbackRedirectURI(parsing: redirectURI)
        guard !expectedState.isEmpty else {
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "The expected state is empty.")
        }
        guard timeout.isFinite, timeout > 0 else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The web UI timeout must be a positive number of seconds, not \(timeout).")
        }
        guard connectionTimeout.isFinite, connectionTimeout > 0, maximumRequestBytes > 0 else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The connection timeout and request size cap must be positive.")
        }
        let core = LoopbackListenerCore(
            maximumRequestBytes: maximumRequestBytes,
            connectionTimeout: Self.amount(min(connectionTimeout, maximumTimeout)),
            maximumConnections: maximumConnections,
            pages: LoopbackPages(successHTML: successPageHTML, failureTemplate: failurePageHTML))
        let servers = try await bind(core: core, port: redirect.port ?? 0, dualStack: redirect.host == .localhost)
        guard let boundPort = servers.first?.localAddress?.port else {
            servers.forEach { $0.close(promise: nil) }
            throw .loopbackListenerFailed("the bound port is unknown")
        }
        let redirectURI = redirect.url(boundPort: boundPort)
        let timer = servers[0].eventLoop.scheduleTask(in: Self.amount(min(timeout, maximumTimeout))) {
            _ = core.settle(.failure(.redirectTimeout(redirectURI: redirectURI, timeout: timeout)))
        }
        core.activate(
            rules: LoopbackRequestRules(redirectURI: redirect, port: boundPort, expectedState: expectedState),
            servers: servers, timer: timer)
        return LoopbackRedirectListener(redirectURI: redirectURI, port: boundPort, core: core, servers: servers)
    }

    /// The path prefix of single-use start URLs.
    package static let startPathPrefix = "/msal-start/"

    /// Offers a single-use start URL that redirects the browser to `authorizationURL`, and returns it:
    /// `http://<redirect host>:<port>/msal-start/<token>`.
    ///
    /// Only the start URL goes on the browser's command line, where every local user can read it; the
    /// authorization URL, with `state`, `nonce` and `code_challenge`, goes to the browser in the `Location`
    /// of a 302. The first `GET` for the start URL is redirected; any later request for it (or a first one
    /// that is not a `GET`) means another program knows it, and the sign-in ends with
    /// ``MSALInternalError/startURLReused`` — whoever came first.
    ///
    /// - Parameter token: An unguessable URL-safe token (32 random bytes, base64url).
    package func offerStart(token: String, authorizationURL: URL) -> URL {
        let path = Self.startPathPrefix + token
        core.offerStart(path: path, location: authorizationURL)
        var components = URLComponents()
        components.scheme = "http"
        components.host = redirectURI.host
        components.port = port
        components.percentEncodedPath = path
        return components.url ?? redirectURI.appendingPathComponent(path)
    }

    /// Waits for the redirect; returns once the listener is closed.
    ///
    /// An OAuth error on the redirect (such as `access_denied`) is returned in ``LoopbackRedirect/error``,
    /// not thrown. Calling it again returns the same outcome.
    ///
    /// - Throws: ``MSALInternalError/redirectTimeout`` when no redirect arrived in time;
    ///   ``MSALInternalError/invalidRedirect`` for a redirect with the right `state` but neither `code` nor
    ///   `error`; code ``MSALError/userCanceled`` with ``MSALInternalError/internalErrorSessionCanceled`` when the
    ///   waiting task is canceled or ``close()`` was called first.
    package func waitForRedirect() async throws(MSALFailure) -> LoopbackRedirect {
        let outcome = await core.outcome()
        await waitUntilClosed()
        return try outcome.get()
    }

    /// Stops listening and closes every connection; a pending ``waitForRedirect()`` throws canceled.
    /// Safe to call more than once and after the redirect arrived.
    package func close() async {
        core.settle(.failure(.loopbackCanceled()))
        await waitUntilClosed()
    }

    private func waitUntilClosed() async {
        for server in servers {
            try? await server.closeFuture.get()
        }
    }

    /// Binds `127.0.0.1:port`, then for `dualStack` `[::1]` on the same port.
    ///
    /// With an ephemeral port taken on `::1` by someone else, another port is tried; with a fixed one that
    /// is an error. A system without IPv6 loopback gets the IPv4 socket alone.
    private static func bind(core: LoopbackListenerCore, port: Int, dualStack: Bool) async throws(MSALFailure) -> [any Channel] {
        let attempts = port == 0 && dualStack ? 8 : 1
        var lastError: (any Error)?
        for _ in 0..<attempts {
            let ipv4: any Channel
            do {
                ipv4 = try await bind(core: core, address: try SocketAddress(ipAddress: "127.0.0.1", port: port))
            } catch {
                throw .loopbackListenerFailed("cannot listen on 127.0.0.1:\(port) (\(error))", underlying: error)
            }
            guard dualStack, let boundPort = ipv4.localAddress?.port else { return [ipv4] }
            do {
                let ipv6 = try await bind(core: core, address: try SocketAddress(ipAddress: "::1", port: boundPort))
                return [ipv4, ipv6]
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                try? await ipv4.close()
                lastError = error
            } catch {
                return [ipv4]  // No IPv6 loopback here.
            }
        }
        throw .loopbackListenerFailed(
            "port \(port == 0 ? "(ephemeral)" : String(port)) is in use on ::1",
            underlying: lastError)
    }

    private static func bind(core: LoopbackListenerCore, address: SocketAddress) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 32)
            // Linux's SO_REUSEADDR lets a fixed port be bound again while the last sign-in's
            // closed connections sit in TIME_WAIT (the listener closes them first); it never lets
            // two sockets listen on one port (that is SO_REUSEPORT, which is not set).
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(connectionHandlers(core: core))
                }
            }
            .bind(to: address)
            .get()
    }

    /// The handlers serving one accepted connection, in pipeline order.
    static func connectionHandlers(core: LoopbackListenerCore) -> [any ChannelHandler] {
        [
            LoopbackRequestLimiter(maximumBytes: core.maximumRequestBytes),
            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)),
            HTTPResponseEncoder(),
            LoopbackConnectionHandler(core: core),
        ]
    }

    private static func amount(_ seconds: TimeInterval) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1_000_000_000))
    }
}
