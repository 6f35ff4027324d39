import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// `MSALPublicClientApplication.cancelCurrentWebAuthSession()` (issue 38): an interactive request
/// waiting for its web UI ends as the user canceling it.
@Suite("cancelCurrentWebAuthSession ends a waiting interactive sign-in")
struct CancelWebAuthSessionTests {
    /// A web UI that shows the page and then waits (up to a minute) for a user who never comes.
    final class WaitingWebUI: MSALWebUI {
        let presented = Mutex(0)

        func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
            presented.withLock { $0 += 1 }
            try await Task.sleep(nanoseconds: 60_000_000_000)
            return nil
        }

        var launchesExternalBrowser: Bool { false }
    }

    static func application(_ sessions: WebAuthSessions) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: FlowIdentity.clientID, redirectUri: nil,
            authority: try MSALAuthority.authority(url: URL(string: "https://login.microsoftonline.com/common")!))
        config.cacheConfig = .memory
        config.transport = FlowTransport([])
        config.clock = ManualClock(FlowIdentity.now)
        // A registry of its own: canceling it cannot reach other suites' sign-ins in this process.
        config.webAuthSessions = sessions
        return try MSALPublicClientApplication(configuration: config)
    }

    @Test("The waiting request fails with userCanceled/internalErrorSessionCanceled; nothing is left registered")
    func cancelsTheWait() async throws {
        let sessions = WebAuthSessions()
        let app = try Self.application(sessions)
        let webUI = WaitingWebUI()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
        let signIn = Task { try await app.acquireToken(with: parameters) }
        // Wait (bounded) until the page is shown.
        for _ in 0..<2_000 where webUI.presented.withLock({ $0 }) == 0 {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        #expect(webUI.presented.withLock { $0 } == 1)
        #expect(sessions.cancelAll())
        do {
            _ = try await signIn.value
            Issue.record("the sign-in was not canceled")
        } catch let error as MSALFailure {
            #expect(error.code == .userCanceled)
            #expect(error.internalCode == .internalErrorSessionCanceled)
            #expect((error as NSError).code == MSALError.userCanceled.rawValue)
        }
        #expect(!sessions.cancelAll(), "the finished sign-in is no longer registered")
        // A new sign-in can start: the application's one-at-a-time claim was released.
        let again = Task { try await app.acquireToken(with: parameters) }
        for _ in 0..<2_000 where webUI.presented.withLock({ $0 }) == 1 {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        #expect(sessions.cancelAll())
        await #expect(throws: MSALFailure.self) { _ = try await again.value }
    }

    /// A web UI that cancels every waiting sign-in as its first step, as a user's cancel that comes
    /// the moment the page shows.
    final class CancelingWebUI: MSALWebUI {
        let sessions: WebAuthSessions
        let found = Mutex<[Bool]>([])

        init(sessions: WebAuthSessions) {
            self.sessions = sessions
        }

        func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
            let canceled = sessions.cancelAll()
            found.withLock { $0.append(canceled) }
            try await Task.sleep(nanoseconds: 60_000_000_000)
            return nil
        }

        var launchesExternalBrowser: Bool { false }
    }

    @Test("A cancel as soon as the page shows always finds the sign-in (it is registered before the web UI runs)")
    func cancelAtOnce() async throws {
        let sessions = WebAuthSessions()
        let app = try Self.application(sessions)
        let webUI = CancelingWebUI(sessions: sessions)
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
        for round in 0..<20 {
            await #expect(throws: MSALFailure.self, "round \(round)") { _ = try await app.acquireToken(with: parameters) }
        }
        #expect(webUI.found.withLock { $0 } == Array(repeating: true, count: 20))
        #expect(!sessions.cancelAll())
    }

    @Test("Canceling with nothing waiting answers false and changes nothing")
    func nothingWaiting() {
        #expect(!WebAuthSessions().cancelAll())
    }

    @Test("The caller's own task cancellation still cancels the sign-in")
    func callerCancellation() async throws {
        let sessions = WebAuthSessions()
        let app = try Self.application(sessions)
        let webUI = WaitingWebUI()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
        let signIn = Task { try await app.acquireToken(with: parameters) }
        for _ in 0..<2_000 where webUI.presented.withLock({ $0 }) == 0 {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        signIn.cancel()
        do {
            _ = try await signIn.value
            Issue.record("the sign-in was not canceled")
        } catch let error as MSALFailure {
            #expect(error.code == .userCanceled)
        }
        #expect(!sessions.cancelAll())
    }
}
