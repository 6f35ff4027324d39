import Foundation
import MSALSupport
import NIOCore
import NIOPosix
import Testing

@testable import MSAL

/// Shared helpers of the loopback listener tests.
enum LoopbackTest {
    /// Whether `listener` has closed its port: its server sockets are closed, and a connection to
    /// the port is refused within 0.5 s (tried every 100 ms).
    static func isClosed(_ listener: LoopbackRedirectListener) async -> Bool {
        guard !listener.isListening else { return false }
        for _ in 0..<5 {
            if await RawHTTPClient.isRefused(port: listener.port) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    static let state = "st-8c1f4e0a9b2d"

    /// Starts a listener. The timeouts are far longer than any test needs: in a full parallel run
    /// on a 2-core machine a test can wait tens of seconds between two of its own steps (the
    /// 30-second listener timeout and the 10-second connection timeout both expired mid-test
    /// there, closing the port between a connect and its request); tests of the timeouts pass
    /// their own.
    static func start(
        redirectURI: String? = nil, state: String = state, timeout: TimeInterval = 600,
        successPageHTML: String? = nil, failurePageHTML: String? = nil,
        maximumRequestBytes: Int = LoopbackRedirectListener.defaultMaximumRequestBytes,
        connectionTimeout: TimeInterval = 300
    ) async throws -> LoopbackRedirectListener {
        try await LoopbackRedirectListener.start(
            redirectURI: redirectURI, expectedState: state, timeout: timeout,
            successPageHTML: successPageHTML, failurePageHTML: failurePageHTML,
            maximumRequestBytes: maximumRequestBytes, connectionTimeout: connectionTimeout)
    }

    /// The `MSALFailure` `body` throws; records an issue when it throws something else or nothing.
    static func error(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async -> MSALFailure? {
        do {
            try await body()
            Issue.record("expected an MSALFailure, nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as MSALFailure {
            return error
        } catch {
            Issue.record("expected an MSALFailure, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// Sends the real redirect and checks that the listener, still waiting, accepts it and closes its port.
    static func expectStillAcceptsRedirect(
        _ listener: LoopbackRedirectListener, path: String = "/", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let response = try await RawHTTPClient.request(port: listener.port, target: "\(path)?code=the-real-code&state=\(state)")
        #expect(response.status == 200, "the real redirect was answered \(response.text)", sourceLocation: sourceLocation)
        let redirect = try await listener.waitForRedirect()
        #expect(redirect.code == "the-real-code", sourceLocation: sourceLocation)
        #expect(redirect.error == nil, sourceLocation: sourceLocation)
        #expect(
            await LoopbackTest.isClosed(listener), "the port is closed after the redirect",
            sourceLocation: sourceLocation)
    }

    /// A free port on 127.0.0.1 (bound, then closed).
    ///
    /// Chosen at random below Linux's ephemeral range (32768–60999 by default), where the kernel
    /// picks ports for outgoing connections and port-0 binds: a port the kernel handed out here was
    /// taken by another test's connection before the test listened on it, in a full parallel run.
    static func freePort() async throws -> Int {
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<32_000)
            guard
                let channel = try? await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .bind(to: try SocketAddress(ipAddress: "127.0.0.1", port: port)).get()
            else { continue }
            try await channel.close()
            return port
        }
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "no free port between 20000 and 32000 after 100 tries"])
    }

    /// `text` percent-encoded for a query value (only unreserved characters left as they are).
    static func queryEncoded(_ text: String) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved)!
    }
}
