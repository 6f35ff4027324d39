import Foundation
import MSAL
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The MSAL-for-iOS tutorial's auth code, run on Linux against the recorded fixture: the system
/// browser path (a real `$BROWSER` process and the real loopback listener), silent hits, the
/// `MSALErrorDomain`/`interactionRequired` fallback, Graph called with the token, and sign-out.
@Suite(.serialized)
struct TutorialTests {
    @Test func theTutorialSignsInCallsGraphFallsBackAndSignsOut() async throws {
        let harness = try TutorialHarness()

        let controller = ViewController(harness: harness)
        try controller.initMSAL()
        #expect(controller.currentAccount() == nil)

        // No account: callGraphAPI signs in interactively, then calls Graph with the token.
        controller.callGraphAPI(nil)
        #expect(try await harness.waitForLine(startingWith: "Access token is") == "Access token is tutorial-access-token-1")
        _ = try await harness.waitForLine(startingWith: "Result from Graph")
        #expect(GraphStub.authorizations.withLock { $0.last } == "Bearer tutorial-access-token-1")
        #expect(controller.signOutEnabled)
        let account = try #require(controller.currentAccount())
        #expect(account.identifier == harness.homeAccountID)
        #expect(account.username == harness.username)

        // Signed in: callGraphAPI takes the token silently from the cache.
        var seen = harness.recorded.count
        controller.callGraphAPI(nil)
        #expect(
            try await harness.waitForLine(startingWith: "Refreshed Access token is", after: seen)
                == "Refreshed Access token is tutorial-access-token-1")

        // Two hours later the token has expired and the service rejects the refresh token
        // (invalid_grant): the tutorial's NSError check sees interactionRequired and signs in again.
        harness.clock.advance(by: 7200)
        seen = harness.recorded.count
        controller.callGraphAPI(nil)
        #expect(try await harness.waitForLine(startingWith: "Access token is", after: seen) == "Access token is tutorial-access-token-2")
        #expect(!harness.recorded.dropFirst(seen).contains { $0.hasPrefix("Could not") })

        // Sign-out removes the account.
        controller.signOut(nil)
        #expect(controller.currentAccount() == nil)
        #expect(!controller.signOutEnabled)
        try harness.transport.verifyAllInteractionsUsed()
    }
}
