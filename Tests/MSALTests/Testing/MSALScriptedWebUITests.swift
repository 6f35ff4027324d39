import Foundation
import MSALTesting
import Testing

@testable import MSAL

/// The scripted web UI on its own (what it records, the URLs it builds, running out of script, waits
/// and their cancellation), and a wait canceled through the public API. The conformance scenarios
/// (Fixtures/Conformance/Flows/interactive-*) drive it through every action against the real flow.
@Suite("MSALScriptedWebUI: a test web UI playing the user from a script")
struct MSALScriptedWebUITests {
    static let redirect = URL(string: "http://localhost:53111/")!
    static let authorize = URL(string: "https://login.example.com/t/oauth2/v2.0/authorize?client_id=c&state=s%2B1%20x&nonce=n&scope=a+b")!

    static func error(_ body: () async throws -> URL?) async -> (any Error)? {
        do {
            let url = try await body()
            Issue.record("expected an error, got \(String(describing: url))")
        } catch {
            return error
        }
        return nil
    }

    @Test("It records every presentation and decodes the authorization URL's parameters")
    func records() async throws {
        let webUI = MSALScriptedWebUI(.code("c-1"), .code("c-2"))
        _ = try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect)
        _ = try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect)
        #expect(webUI.authorizationURLs == [Self.authorize, Self.authorize])
        #expect(webUI.presentations.map(\.redirectURI) == [Self.redirect, Self.redirect])
        let presentation = try #require(webUI.presentations.first)
        #expect(presentation.parameter("state") == "s+1 x")
        #expect(presentation.parameter("scope") == "a b")
        #expect(presentation.parameter("missing") == nil)
        #expect(presentation.queryItems.map(\.name) == ["client_id", "state", "nonce", "scope"])
        #expect(webUI.remainingScript.isEmpty)
    }

    @Test("Redirects carry the request's own state, in the query or the fragment, or the given one")
    func redirects() async throws {
        let webUI = MSALScriptedWebUI([
            .code("abc"), .redirect([URLQueryItem(name: "code", value: "a b&c")], inFragment: true),
            .redirectWithState("other", [URLQueryItem(name: "code", value: "x")]),
            .error("access_denied", description: "AADSTS65004: declined", subError: "cancel"),
            .redirectURL(URL(string: "app://done?x=1")!),
        ])
        func next() async throws -> String {
            try #require(try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect)).absoluteString
        }
        #expect(try await next() == "http://localhost:53111/?code=abc&state=s%2B1+x")
        #expect(try await next() == "http://localhost:53111/#code=a+b%26c&state=s%2B1+x")
        #expect(try await next() == "http://localhost:53111/?code=x&state=other")
        #expect(
            try await next()
                == "http://localhost:53111/?error=access_denied&error_description=AADSTS65004%3A+declined&error_subcode=cancel&state=s%2B1+x"
        )
        #expect(try await next() == "app://done?x=1")

        // The URL swift-msal parses back is the request's: same state, same code.
        let parsed = try LoopbackRedirect.parse(
            URL(string: "http://localhost:53111/#code=a+b%26c&state=s%2B1+x")!, expectedState: "s+1 x", correlationID: UUID())
        #expect(parsed.code == "a b&c")
    }

    @Test("Cancel, launch failure and an exhausted script throw typed errors; a hand-off returns nil")
    func errors() async throws {
        let webUI = MSALScriptedWebUI(.cancel, .launchFailure, .handOff([]))
        let cancel =
            await Self.error { try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect) } as? MSALFailure
        #expect(cancel?.code == .userCanceled)
        #expect(cancel?.internalCode == .internalErrorSessionCanceled)
        let launch =
            await Self.error { try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect) } as? MSALFailure
        #expect(launch?.code == .internal)
        #expect(launch?.internalCode == .browserLaunchFailed)
        #expect(launch?.authorizationURL == nil)
        #expect(try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect) == nil)
        #expect(await webUI.deliveryResults().isEmpty)
        let exhausted =
            await Self.error { try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect) } as? MSALFailure
        #expect(exhausted?.internalCode == .internalErrorUnexpected)
        #expect(webUI.presentations.count == 4)

        webUI.append(.code("late"))
        #expect(try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect)?.query == "code=late&state=s%2B1+x")
    }

    @Test("A hand-off needs a loopback http redirect URI with a port")
    func handOffNeedsLoopback() async {
        let webUI = MSALScriptedWebUI(.handOffCode("c"))
        let error =
            await Self.error {
                try await webUI.present(authorizationURL: Self.authorize, redirectURI: URL(string: "app://auth")!)
            } as? MSALFailure
        #expect(error?.internalCode == .internalErrorUnexpected)
    }

    @Test("A wait is answered by resume(with:), counts as a presentation while waiting, and ends when canceled")
    func waits() async throws {
        let webUI = MSALScriptedWebUI(.wait, .wait)
        #expect(!webUI.resume(with: .code("nobody waits")))
        async let first = webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect)
        try await webUI.waitForPresentations(1)
        #expect(webUI.resume(with: .code("answered")))
        let answered = try await first
        #expect(answered?.query == "code=answered&state=s%2B1+x")

        let second = Task { try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect) }
        try await webUI.waitForPresentations(2)
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(!webUI.resume(with: .code("too late")))
    }

    @Test("waitForPresentations returns at once when enough were shown, and throws when canceled")
    func waitForPresentationsCancellation() async throws {
        let webUI = MSALScriptedWebUI(.code("c"))
        try await webUI.waitForPresentations(0)
        let waiter = Task { try await webUI.waitForPresentations(5) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        _ = try await webUI.present(authorizationURL: Self.authorize, redirectURI: Self.redirect)
        try await webUI.waitForPresentations(1)
    }

    @Test("Through the public API: canceling acquireToken while the web UI waits is userCanceled/sessionCanceled, with no token request")
    func canceledSignIn() async throws {
        let transport = FlowTransport(token: { _ in
            Issue.record("no token request expected")
            return FlowTokens.error(500, "{}")
        })
        let harness = try FlowHarness(transport)
        let webUI = MSALScriptedWebUI(.wait)
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
        let correlationID = UUID()
        parameters.correlationId = correlationID
        let task = Task { try await harness.app.acquireToken(with: parameters) }
        try await webUI.waitForPresentations(1)
        task.cancel()
        let error = await expectMSALError { try await task.value }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
        #expect(error?.correlationID == correlationID)
        #expect(transport.tokenRequests.isEmpty)
        #expect(try harness.app.allAccounts().isEmpty)

        // The session is free again: the next request shows the page.
        webUI.append(.cancel)
        let next = await expectMSALError { try await harness.app.acquireToken(with: parameters) }
        #expect(next?.internalCode == .internalErrorSessionCanceled)
        #expect(webUI.presentations.count == 2)
    }
}
