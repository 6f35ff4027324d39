import Foundation
import MSAL
import MSALEmulator
import Testing

@Suite("Emulator end to end: injected failures through the real HTTP path")
struct FaultInjectionTests {
    /// A signed-in app and forced-refresh parameters for its account.
    private static func signedIn(
        _ harness: EmulatorHarness, as username: String = EmulatorHarness.adele
    )
        async throws -> (MSALPublicClientApplication, MSALSilentTokenParameters)
    {
        let app = try harness.application()
        let result = try await harness.signIn(app, as: username)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        parameters.forceRefresh = true
        parameters.correlationId = UUID()
        return (app, parameters)
    }

    private static func msalError(_ body: () async throws -> Void) async -> MSALFailure? {
        do {
            try await body()
            return nil
        } catch {
            return error as? MSALFailure
        }
    }

    @Test("Refresh answered invalid_grant: interactionRequired with the sub-error kept; one request; interactive sign-in recovers")
    func invalidGrantNeedsInteraction() async throws {
        try await EmulatorHarness.with { harness in
            let (app, parameters) = try await Self.signedIn(harness)
            harness.emulator.inject(.init(.invalidGrant(subError: "bad_token"), grantType: .refreshToken, times: 1))
            let error = try #require(await Self.msalError { _ = try await app.acquireTokenSilent(with: parameters) })
            #expect(error.code == .interactionRequired)
            #expect(error.oauthError == "invalid_grant")
            #expect(error.oauthSubError == "bad_token")
            #expect(error.stsErrorCodes == [70000])
            #expect(error.httpStatusCode == 400)
            #expect(error.correlationID == parameters.correlationId)
            #expect(harness.emulator.requests.last?.correlationID == parameters.correlationId?.uuidString.lowercased())
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)
            #expect(harness.emulator.requests.last?.faulted == true)

            // The fallback: interactive sign-in works and the fault is used up.
            let again = try await harness.signIn(app, as: EmulatorHarness.adele)
            #expect(again.tokenSource == .identityProvider)
            #expect(harness.emulator.faults.isEmpty)
        }
    }

    @Test("interaction_required with a claims challenge: interactionRequired carrying the claims")
    func interactionRequiredWithClaims() async throws {
        try await EmulatorHarness.with { harness in
            let (app, parameters) = try await Self.signedIn(harness)
            let claims = #"{"access_token":{"capolids":{"essential":true,"values":["c1"]}}}"#
            harness.emulator.inject(.init(.interactionRequired(claims: claims), clientID: EmulatorHarness.clientID, times: 1))
            let error = try #require(await Self.msalError { _ = try await app.acquireTokenSilent(with: parameters) })
            #expect(error.code == .interactionRequired)
            #expect(error.oauthError == "interaction_required")
            #expect(error.claims == claims)
            #expect(error.stsErrorCodes == [50079])
        }
    }

    @Test("429 with Retry-After: throttled; repeats are refused without a request until the time passed; then one request succeeds")
    func throttledThenSuccess() async throws {
        try await EmulatorHarness.with { harness in
            let (app, parameters) = try await Self.signedIn(harness)
            harness.emulator.inject(.init(.throttled(retryAfter: 30), grantType: .refreshToken, times: 1))

            let first = try #require(await Self.msalError { _ = try await app.acquireTokenSilent(with: parameters) })
            #expect(first.code == .internal)
            #expect(first.internalCode == .throttled)
            #expect(first.httpStatusCode == 429)
            #expect(first.isThrottlingCacheHit == false)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)

            let repeated = try #require(await Self.msalError { _ = try await app.acquireTokenSilent(with: parameters) })
            #expect(repeated.isThrottlingCacheHit)
            #expect(repeated.internalCode == .throttled)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)

            harness.emulator.advanceClock(by: 31)
            let result = try await app.acquireTokenSilent(with: parameters)
            #expect(result.tokenSource == .identityProvider)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 2)
        }
    }

    @Test("One 500 on a refresh: exactly one retry, which succeeds")
    func serverErrorRetriedOnce() async throws {
        try await EmulatorHarness.with { harness in
            let (app, parameters) = try await Self.signedIn(harness)
            harness.emulator.inject(.init(.serverError(status: 500), grantType: .refreshToken, times: 1))
            let result = try await app.acquireTokenSilent(with: parameters)
            #expect(result.tokenSource == .identityProvider)
            let refreshes = harness.emulator.requests.filter { $0.grantType == .refreshToken }
            #expect(refreshes.map(\.status) == [500, 200])
            #expect(refreshes.map(\.faulted) == [true, false])
            #expect(refreshes[0].correlationID == refreshes[1].correlationID)
            // The wait before the retry went through the app's clock.
            #expect(harness.clock.sleeps.count == 1)
        }
    }

    @Test(
        "A refresh answered 503 every time: one retry, then internal (internalErrorUnhandledResponse, as MSAL for iOS); two requests in all"
    )
    func serverErrorEveryTime() async throws {
        try await EmulatorHarness.with { harness in
            let (app, parameters) = try await Self.signedIn(harness)
            harness.emulator.inject(.init(.serverError(status: 503), grantType: .refreshToken))
            let error = try #require(await Self.msalError { _ = try await app.acquireTokenSilent(with: parameters) })
            #expect(error.code == .internal)
            #expect(error.internalCode == .internalErrorUnhandledResponse)
            #expect(error.httpStatusCode == 503)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 2)
        }
    }

    @Test("A 500 on the code redemption is not retried: a code is single-use")
    func codeRedemptionNotRetried() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            harness.emulator.inject(.init(.serverError(status: 500), grantType: .authorizationCode, times: 1))
            let error = try #require(await Self.msalError { _ = try await harness.signIn(app, as: EmulatorHarness.adele) })
            #expect(error.code == .internal)
            #expect(error.internalCode == .internalErrorUnhandledResponse)
            #expect(harness.emulator.requestCount(.token, grantType: .authorizationCode) == 1)
        }
    }

    @Test("A fault for one user leaves the others alone")
    func perUserFault() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let adele = try await harness.signIn(app, as: EmulatorHarness.adele)
            let ben = try await harness.signIn(app, as: EmulatorHarness.ben)
            harness.emulator.inject(
                .init(.invalidGrant(subError: "token_expired"), grantType: .refreshToken, username: EmulatorHarness.ben))
            let adeleParameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: adele.account)
            adeleParameters.forceRefresh = true
            let benParameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: ben.account)
            benParameters.forceRefresh = true
            #expect(try await app.acquireTokenSilent(with: adeleParameters).tokenSource == .identityProvider)
            let error = try #require(await Self.msalError { _ = try await app.acquireTokenSilent(with: benParameters) })
            #expect(error.code == .interactionRequired)
            #expect(error.oauthSubError == "token_expired")
            #expect(harness.emulator.faults.count == 1)
        }
    }

    @Test("A fault at the authorize endpoint comes back as an error redirect")
    func authorizeFault() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            harness.emulator.inject(.init(.interactionRequired(), endpoint: .authorize, times: 1))
            let error = try #require(await Self.msalError { _ = try await harness.signIn(app, as: EmulatorHarness.adele) })
            #expect(error.internalCode == .internalErrorAuthorizationFailed)
            #expect(error.oauthError == "interaction_required")
            #expect(harness.emulator.requestCount(.token) == 0)
        }
    }

    @Test("A delayed answer still arrives; a revoked refresh token fails with AADSTS50173")
    func delayAndRevocation() async throws {
        try await EmulatorHarness.with { harness in
            let (app, parameters) = try await Self.signedIn(harness)
            harness.emulator.inject(.init(.delay(seconds: 0.01), grantType: .refreshToken, times: 1))
            #expect(try await app.acquireTokenSilent(with: parameters).tokenSource == .identityProvider)
            #expect(harness.emulator.requests.last { $0.grantType == .refreshToken }?.faulted == true)

            #expect(try harness.emulator.revokeRefreshTokens(of: EmulatorHarness.adele) == 1)
            let error = try #require(await Self.msalError { _ = try await app.acquireTokenSilent(with: parameters) })
            #expect(error.code == .interactionRequired)
            #expect(error.stsErrorCodes == [50173])
        }
    }
}
