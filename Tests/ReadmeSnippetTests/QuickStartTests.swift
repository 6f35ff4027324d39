import Foundation
import MSAL
import Testing

/// The README's quick start, run against the recorded tutorial sign-in
/// (`Fixtures/Tutorial/tutorial.json`): interactive sign-in, Graph called with the `Bearer`
/// header, a silent cache hit, two hours later a refresh rejected with `invalid_grant` and the
/// interactive fallback, sign-out.
@Suite struct QuickStartTests {
    @Test func initMSALBuildsTheTutorialsApplicationWithoutTouchingTheNetwork() throws {
        let application = try initMSAL()
        #expect(application.configuration.clientId == kClientID)
        #expect(application.configuration.authority.url.absoluteString == kAuthority)
        #expect(application.configuration.authority is MSALAADAuthority)
        #expect(application.configuration.redirectUri == nil)
        guard case .file(path: nil) = application.configuration.cacheConfig.storage else {
            Issue.record("initMSAL should keep the default file cache")
            return
        }
    }

    @Test func theCompletionBlockFormSignsInCallsGraphFallsBackAndSignsOut() async throws {
        let replay = try SnippetReplay(fixture: "Fixtures/Tutorial/tutorial.json")
        let graph = try await GraphStub.start()
        let user = SigningInUser()
        let log = LogLines()
        let controller = GraphController(
            applicationContext: try replay.application(), webviewParameters: MSALWebviewParameters(webUI: user),
            graphURL: graph.url, updateLogging: { log.append($0) })
        #expect(controller.currentAccount() == nil)

        // No account yet: callGraphAPI signs the user in, then calls Graph with the token.
        controller.callGraphAPI()
        #expect(try await log.waitForLine(startingWith: "Access token is", after: 0) == "Access token is tutorial-access-token-1")
        _ = try await log.waitForLine(startingWith: "Result from Graph", after: 0)
        #expect(graph.authorizations == ["Bearer tutorial-access-token-1"])
        let account = try #require(controller.currentAccount())
        #expect(account.identifier == replay.homeAccountID)
        #expect(account.username == replay.username)

        // Signed in: the token comes from the cache.
        var seen = log.all.count
        controller.callGraphAPI()
        #expect(
            try await log.waitForLine(startingWith: "Refreshed Access token is", after: seen)
                == "Refreshed Access token is tutorial-access-token-1")
        _ = try await log.waitForLine(startingWith: "Result from Graph", after: seen)
        #expect(user.authorizationURLs.count == 1)

        // Two hours later the token has expired and the refresh token is rejected (invalid_grant):
        // the MSALErrorDomain / interactionRequired check signs the user in again.
        replay.clock.advance(by: 7200)
        seen = log.all.count
        controller.callGraphAPI()
        #expect(try await log.waitForLine(startingWith: "Access token is", after: seen) == "Access token is tutorial-access-token-2")
        _ = try await log.waitForLine(startingWith: "Result from Graph", after: seen)
        #expect(graph.authorizations.last == "Bearer tutorial-access-token-2")
        #expect(user.authorizationURLs.count == 2)
        #expect(!log.all.contains { $0.hasPrefix("Could not") || $0.hasPrefix("Couldn't") })

        controller.signOut()
        #expect(log.all.last == "Signed out")
        #expect(controller.currentAccount() == nil)
        try replay.transport.verifyAllInteractionsUsed()
        try await graph.stop()
    }

    @Test func theAsyncFormFallsBackToSignInOnInteractionRequired() async throws {
        let replay = try SnippetReplay(fixture: "Fixtures/Tutorial/tutorial.json")
        let user = SigningInUser()
        let webview = MSALWebviewParameters(webUI: user)
        let application = try replay.application()

        #expect(try await graphAuthorizationHeader(application, webviewParameters: webview) == "Bearer tutorial-access-token-1")
        #expect(try await graphAuthorizationHeader(application, webviewParameters: webview) == "Bearer tutorial-access-token-1")
        #expect(user.authorizationURLs.count == 1)

        replay.clock.advance(by: 7200)
        #expect(try await graphAuthorizationHeader(application, webviewParameters: webview) == "Bearer tutorial-access-token-2")
        #expect(user.authorizationURLs.count == 2)

        try signOutAll(application)
        #expect(try application.allAccounts().isEmpty)
        try replay.transport.verifyAllInteractionsUsed()
    }

    @Test func theAsyncFormPassesOtherErrorsOn() async throws {
        // A user who closes the sign-in page: not interactionRequired, so it reaches the caller.
        let replay = try SnippetReplay(fixture: "Fixtures/Tutorial/tutorial.json")
        let application = try replay.application()
        let webview = MSALWebviewParameters(webUI: CancelingUser())
        await #expect {
            _ = try await graphAuthorizationHeader(application, webviewParameters: webview)
        } throws: { error in
            (error as? MSALFailure)?.code == .userCanceled
        }
        #expect(try application.allAccounts().isEmpty)
    }
}

/// A user who declines: the identity provider redirects with `access_denied`.
struct CancelingUser: MSALWebUI {
    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        let state = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value
        var redirect = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)!
        redirect.queryItems = [URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "state", value: state)]
        return redirect.url
    }
}
