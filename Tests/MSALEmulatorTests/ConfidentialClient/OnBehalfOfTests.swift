import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

/// `MSALConfidentialClientApplication.acquireTokenOnBehalfOf` against the emulator over loopback
/// HTTP: a middle-tier API trades the access token its caller sent for the user's Graph token;
/// the cache answers only the same assertion; the refresh token obtained with it is used when the
/// access token expires; refusals are typed errors.
@Suite("Confidential client: on behalf of the caller")
struct OnBehalfOfTests {
    typealias Grant = ClientCredentialsGrantTests
    typealias App = ConfidentialClientTests

    static let graphScope = "https://graph.microsoft.com/User.Read"

    /// An access token of `username` for the middle-tier API (a new one on every call).
    static func incoming(_ harness: EmulatorHarness, as username: String = EmulatorHarness.adele) async throws -> String {
        let app = try harness.application(tenant: EmulatorHarness.contoso)
        return try await harness.signIn(app, as: username, scopes: [OnBehalfOfGrantTests.apiScope]).accessToken
    }

    static func assertionGrants(_ harness: EmulatorHarness) -> Int {
        harness.emulator.requestCount(.token, grantType: .jwtBearer)
    }

    static func refreshGrants(_ harness: EmulatorHarness) -> Int {
        harness.emulator.requestCount(.token, grantType: .refreshToken)
    }

    static func user(of result: MSALResult) throws -> String? {
        try JWT.decodeUnverified(result.accessToken).stringClaim("preferred_username")
    }

    @Test("The caller's token becomes the user's Graph token; the same assertion is then answered from the cache with 0 requests")
    func exchangeThenCache() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try App.application(harness)
            let assertion = try await Self.incoming(harness)
            let first = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            #expect(first.tokenSource == .identityProvider)
            let claims = try JWT.decodeUnverified(first.accessToken)
            #expect(claims.stringListClaim("aud") == ["https://graph.microsoft.com"])
            #expect(claims.stringClaim("azp") == Grant.secretClientID)
            #expect(claims.stringClaim("preferred_username") == EmulatorHarness.adele)
            #expect(first.account.username == EmulatorHarness.adele)
            #expect(first.account.identifier?.hasSuffix(".\(EmulatorHarness.contoso)") == true)
            #expect(first.idToken != nil)
            #expect(first.tenantProfile.tenantId == EmulatorHarness.contoso)
            #expect(first.scopes.contains { $0.caseInsensitiveCompare(Self.graphScope) == .orderedSame || $0 == "User.Read" })
            #expect(Self.assertionGrants(harness) == 1)

            let second = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            #expect(second.tokenSource == .cache)
            #expect(second.accessToken == first.accessToken)
            #expect(second.expiresOn == first.expiresOn)
            #expect(second.account.username == EmulatorHarness.adele)
            #expect(second.idToken == first.idToken)
            #expect(Self.assertionGrants(harness) == 1)

            // forceRefresh presents the assertion again.
            let parameters = MSALOnBehalfOfParameters(scopes: [Self.graphScope], userAssertion: assertion)
            parameters.forceRefresh = true
            let forced = try await app.acquireTokenOnBehalfOf(with: parameters)
            #expect(forced.tokenSource == .identityProvider)
            #expect(forced.accessToken != first.accessToken)
            #expect(Self.assertionGrants(harness) == 2)
            #expect(Self.refreshGrants(harness) == 0)
            #expect(
                try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope]).accessToken == forced.accessToken)
        }
    }

    @Test("Isolation: another user's assertion, or a new token of the same user, never gets a result obtained with another assertion")
    func isolation() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try App.application(harness)
            let adele1 = try await Self.incoming(harness)
            let adele2 = try await Self.incoming(harness)
            let ben = try await Self.incoming(harness, as: EmulatorHarness.ben)
            #expect(Set([adele1, adele2, ben]).count == 3)

            let fromAdele1 = try await app.acquireTokenOnBehalfOf(userAssertion: adele1, scopes: [Self.graphScope])
            let fromBen = try await app.acquireTokenOnBehalfOf(userAssertion: ben, scopes: [Self.graphScope])
            #expect(try Self.user(of: fromBen) == EmulatorHarness.ben)
            #expect(fromBen.account.username == EmulatorHarness.ben)
            #expect(fromBen.tokenSource == .identityProvider)
            let fromAdele2 = try await app.acquireTokenOnBehalfOf(userAssertion: adele2, scopes: [Self.graphScope])
            #expect(fromAdele2.tokenSource == .identityProvider, "the same user's other token is another caller")
            #expect(Self.assertionGrants(harness) == 3)
            #expect(Set([fromAdele1.accessToken, fromAdele2.accessToken, fromBen.accessToken]).count == 3)

            // Ben's is still cached; Adele's first assertion gets a token of Adele, never another's.
            #expect(try await app.acquireTokenOnBehalfOf(userAssertion: ben, scopes: [Self.graphScope]).accessToken == fromBen.accessToken)
            let again = try await app.acquireTokenOnBehalfOf(userAssertion: adele1, scopes: [Self.graphScope])
            #expect(try Self.user(of: again) == EmulatorHarness.adele)
            #expect(again.accessToken != fromAdele2.accessToken && again.accessToken != fromBen.accessToken)

            // A forged copy of an assertion (one byte changed) is another assertion: refused by the service, never answered from the cache.
            var forged = Array(ben)
            forged[forged.count - 4] = forged[forged.count - 4] == "A" ? "B" : "A"
            let refused = await App.msalError {
                _ = try await app.acquireTokenOnBehalfOf(userAssertion: String(forged), scopes: [Self.graphScope])
            }
            #expect(refused?.code == .interactionRequired)
            #expect(refused?.oauthError == "invalid_grant")
        }
    }

    @Test(
        "Expired access token: the refresh token obtained with the same assertion is redeemed (the assertion has expired too), then the cache"
    )
    func refreshTokenAfterExpiry() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try App.application(harness)
            let assertion = try await Self.incoming(harness)
            let first = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            harness.emulator.advanceClock(by: 3700)
            let refreshed = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            #expect(refreshed.tokenSource == .identityProvider)
            #expect(refreshed.accessToken != first.accessToken)
            #expect(try Self.user(of: refreshed) == EmulatorHarness.adele)
            #expect(Self.refreshGrants(harness) == 1)
            #expect(Self.assertionGrants(harness) == 1)
            let cached = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            #expect(cached.tokenSource == .cache)
            #expect(cached.accessToken == refreshed.accessToken)

            // Another assertion does not get to use that refresh token: the expired assertion of
            // someone else is presented, and refused.
            let other = try await Self.incoming(harness, as: EmulatorHarness.ben)
            harness.emulator.advanceClock(by: 3700)
            let refused = await App.msalError { _ = try await app.acquireTokenOnBehalfOf(userAssertion: other, scopes: [Self.graphScope]) }
            #expect(refused?.code == .interactionRequired)
            #expect(refused?.oauthError == "invalid_grant")
            #expect(refused?.message.contains("500133") == true, "\(String(describing: refused))")
            #expect(Self.refreshGrants(harness) == 1)
        }
    }

    @Test("A refused refresh token is removed and the still-valid assertion presented instead")
    func refusedRefreshTokenFallsBack() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try App.application(harness)
            let assertion = try await Self.incoming(harness)
            var lifetimes = MSALEmulator.Lifetimes()
            lifetimes.accessToken = 900
            lifetimes.extendedAccessToken = 900
            harness.emulator.setLifetimes(lifetimes)
            _ = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            harness.emulator.advanceClock(by: 700)  // inside the 5-minute buffer; the assertion lives an hour
            #expect(try harness.emulator.revokeRefreshTokens(of: EmulatorHarness.adele) > 0)
            let result = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            #expect(result.tokenSource == .identityProvider)
            #expect(Self.refreshGrants(harness) == 1)
            #expect(Self.assertionGrants(harness) == 2)
            // The new refresh token replaced the dead one: after the next expiry it is used.
            harness.emulator.advanceClock(by: 700)
            _ = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            #expect(Self.refreshGrants(harness) == 2)
            #expect(Self.assertionGrants(harness) == 2)
        }
    }

    @Test("Concurrent requests with the same assertion share one token request; the completion-block twin answers from the cache")
    func concurrentAndCertificate() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try App.application(harness)
            let assertion = try await Self.incoming(harness)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope]).accessToken }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(Self.assertionGrants(harness) == 1)

            let completion = await withCheckedContinuation { (continuation: CheckedContinuation<(String?, (any Error)?), Never>) in
                app.acquireTokenOnBehalfOf(with: MSALOnBehalfOfParameters(scopes: [Self.graphScope], userAssertion: assertion)) {
                    result, error in
                    continuation.resume(returning: (result?.accessToken, error))
                }
            }
            #expect(completion.0.map(tokens.contains) == true)
            #expect(completion.1 == nil)
        }
    }

    @Test("Bad input: not a JWT, no scopes, a token for another audience, a wrong secret — typed errors with the correlation id")
    func badInput() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try App.application(harness)
            let assertion = try await Self.incoming(harness)
            for bad in ["", "Bearer \(assertion)", "not a token", "a.b", "a.b.c.d", "a.b.c\n"] {
                let parameters = MSALOnBehalfOfParameters(scopes: [Self.graphScope], userAssertion: bad)
                parameters.correlationId = UUID()
                let error = await App.msalError { _ = try await app.acquireTokenOnBehalfOf(with: parameters) }
                #expect(error?.internalCode == .internalErrorInvalidParameter, "\(bad.prefix(20))")
                #expect(error?.correlationID == parameters.correlationId)
                #expect(error.map { !$0.message.contains(assertion) } == true, "the message never quotes the assertion")
            }
            let noScopes = await App.msalError { _ = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [" "]) }
            #expect(noScopes?.internalCode == .internalErrorInvalidParameter)

            let graphToken = try await harness.signIn(
                try harness.application(tenant: EmulatorHarness.contoso), as: EmulatorHarness.adele, scopes: ["User.Read"]
            ).accessToken
            let parameters = MSALOnBehalfOfParameters(scopes: [Self.graphScope], userAssertion: graphToken)
            parameters.correlationId = UUID()
            let audience = await App.msalError { _ = try await app.acquireTokenOnBehalfOf(with: parameters) }
            #expect(audience?.code == .interactionRequired)
            #expect(audience?.oauthError == "invalid_grant")
            #expect(audience?.correlationID == parameters.correlationId)
            #expect(audience?.message.contains("50013") == true)

            let wrong = try App.application(harness, credential: .secret("not the secret"))
            let refused = await App.msalError {
                _ = try await wrong.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            }
            #expect(refused?.internalCode == .internalErrorInvalidClient)
            #expect(refused?.oauthError == "invalid_client")
            #expect(Self.assertionGrants(harness) == 2)
        }
    }

    @Test(
        "The cache file: the access and refresh tokens carry user_assertion_hash under keys of their own; a new application reads them with 0 requests"
    )
    func cacheFile() async throws {
        let directory = try FaultCacheDirectory()
        defer { directory.remove() }
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let cache = MSALCacheConfig(storage: .file(path: directory.cacheFile))
            let assertion = try await Self.incoming(harness)
            let first = try await App.application(harness, cache: cache).acquireTokenOnBehalfOf(
                userAssertion: assertion, scopes: [Self.graphScope])
            let bytes = try #require(directory.bytes())
            let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            let document = try #require(parsed?.compactMapValues { $0 as? [String: [String: Any]] })
            let hash = Base64URL.encode(try MessageDigest.sha256(Array(assertion.utf8)))
            for section in ["AccessToken", "RefreshToken"] {
                let entries = try #require(document[section])
                #expect(entries.count == 1, "\(section)")
                for (key, entry) in entries {
                    #expect(key.hasSuffix("-obo"), "\(key)")
                    #expect(entry["user_assertion_hash"] as? String == hash)
                    #expect(entry["home_account_id"] as? String == first.account.identifier)
                }
            }
            for section in ["IdToken", "Account"] {
                let entries = try #require(document[section])
                #expect(entries.count == 1)
                #expect(entries.values.allSatisfy { $0["user_assertion_hash"] == nil })
            }
            let again = try await App.application(harness, cache: cache).acquireTokenOnBehalfOf(
                userAssertion: assertion, scopes: [Self.graphScope])
            #expect(again.tokenSource == .cache)
            #expect(again.accessToken == first.accessToken)
            #expect(again.account.username == EmulatorHarness.adele)
            #expect(Self.assertionGrants(harness) == 1)
        }
    }

    @Test(
        "DPoP on behalf of the caller: the assertion's exchange carries a proof and the token is bound to the app's key; the cache answers it apart from the bearer one (which the unbound refresh token gets); after expiry the refresh token is redeemed with a proof"
    )
    func dpop() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try App.application(harness)
            let assertion = try await Self.incoming(harness)
            func parameters() -> MSALOnBehalfOfParameters {
                let parameters = MSALOnBehalfOfParameters(scopes: [Self.graphScope], userAssertion: assertion)
                parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
                return parameters
            }
            func jkt(_ result: MSALResult) throws -> String? {
                try JWT.decodeUnverified(result.accessToken).claims.root["cnf"]?["jkt"]?.string
            }
            let bound = try await app.acquireTokenOnBehalfOf(with: parameters())
            #expect(bound.authenticationScheme == "DPoP" && bound.authorizationHeader == "DPoP \(bound.accessToken)")
            let thumbprint = try #require(try jkt(bound))
            #expect(try Self.user(of: bound) == EmulatorHarness.adele)
            _ = try bound.dpopProof(httpMethod: .GET, requestUrl: URL(string: "https://graph.microsoft.com/v1.0/me")!)

            let cached = try await app.acquireTokenOnBehalfOf(with: parameters())
            #expect(cached.tokenSource == .cache && cached.accessToken == bound.accessToken && cached.authenticationScheme == "DPoP")
            // A bearer request for the same assertion is another token, from the (unbound) refresh
            // token obtained with the assertion.
            let bearer = try await app.acquireTokenOnBehalfOf(userAssertion: assertion, scopes: [Self.graphScope])
            let bearerBinding = try jkt(bearer)
            #expect(bearer.authenticationScheme == "Bearer" && bearer.accessToken != bound.accessToken && bearerBinding == nil)
            #expect(Self.assertionGrants(harness) == 1 && Self.refreshGrants(harness) == 1)

            harness.emulator.advanceClock(by: 3700)
            let refreshed = try await app.acquireTokenOnBehalfOf(with: parameters())
            #expect(refreshed.tokenSource == .identityProvider && refreshed.authenticationScheme == "DPoP")
            #expect(try jkt(refreshed) == thumbprint)
            #expect(Self.refreshGrants(harness) == 2 && Self.assertionGrants(harness) == 1)
        }
    }

}
