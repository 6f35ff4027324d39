import Foundation
import MSALTesting
import Testing

@testable import MSAL

/// `OnBehalfOfFlow` through ``MSALConfidentialClientApplication/acquireTokenOnBehalfOf(with:)``
/// over recorded traffic (``MSALReplayTransport``, no sockets): the JWT bearer request with
/// `requested_token_use=on_behalf_of`, the cache keyed by the assertion's hash, the refresh token
/// obtained with the assertion, proactive and forced refresh, one request for concurrent callers,
/// the error mapping and the authority override. Every test replays a fixture built in code,
/// checks the exact requests sent, and that every recorded interaction was used.
@Suite("On-behalf-of flow over recorded traffic")
struct OnBehalfOfFlowTests {
    static let clientID = FlowIdentity.clientID
    static let tenant = FlowIdentity.tenant
    static let scope = "https://graph.microsoft.com/User.Read"
    /// The `scope` parameter: the requested scope, then the reserved ones.
    static let scopeParameter = "https://graph.microsoft.com/User.Read openid profile offline_access"
    /// Two access tokens the middle tier was called with (same user, different tokens).
    static let assertionA =
        "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJhcGk6Ly9taWRkbGUtdGllciIsIm9pZCI6ImFiZSJ9.c2lnbmF0dXJlLWE"
    static let assertionB =
        "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJhcGk6Ly9taWRkbGUtdGllciIsIm9pZCI6ImFiZSJ9.c2lnbmF0dXJlLWI"
    /// base64url(SHA-256(assertion)) without padding, computed outside Swift (Python's hashlib).
    static let hashA = "AAWLj4mYzoT3DsKZiCTicYWsl1sTmY-xxD6xPmhknYw"
    static let hashB = "-NqbHw5j3FyEjqxCE_DWHE7ahO-uBoLS7ix2v6SypJo"
    static let jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The form fields the replay matches an on-behalf-of request on.
    static func assertionForm(_ assertion: String = assertionA) -> [String: String] {
        ["grant_type": jwtBearer, "assertion": assertion, "requested_token_use": "on_behalf_of", "scope": scopeParameter]
    }

    /// The form fields the replay matches a refresh of the token obtained on behalf of the caller on.
    static func refreshForm(_ refreshToken: String) -> [String: String] {
        ["grant_type": "refresh_token", "refresh_token": refreshToken, "scope": scopeParameter]
    }

    /// The complete form of an on-behalf-of request authenticated with the secret.
    static func expectedAssertionForm(_ assertion: String = assertionA) -> [String] {
        AppFlowReplay.lines([
            "client_id": clientID, "grant_type": jwtBearer, "assertion": assertion, "requested_token_use": "on_behalf_of",
            "scope": scopeParameter, "client_info": "1", "client_secret": AppFlowReplay.secret,
        ])
    }

    /// The complete form of a refresh request authenticated with the secret.
    static func expectedRefreshForm(_ refreshToken: String) -> [String] {
        AppFlowReplay.lines([
            "client_id": clientID, "grant_type": "refresh_token", "refresh_token": refreshToken, "scope": scopeParameter,
            "client_info": "1", "client_secret": AppFlowReplay.secret,
        ])
    }

    /// The user's tokens for the downstream API: access and refresh token, and client_info naming Abe.
    static func userToken(_ accessToken: String, refreshToken: String = "obo-rt-1", refreshIn: Int? = nil) -> String {
        var body =
            #"{"token_type":"Bearer","scope":"\#(scope)","expires_in":3599,"ext_expires_in":3599,"access_token":"\#(accessToken)","#
            + #""refresh_token":"\#(refreshToken)","client_info":"\#(FlowTokens.clientInfo(.abe))""#
        if let refreshIn { body += #","refresh_in":\#(refreshIn)"# }
        return body + "}"
    }

    static func parameters(
        _ assertion: String = assertionA, correlationID: UUID = UUID(), forceRefresh: Bool = false
    )
        -> MSALOnBehalfOfParameters
    {
        let parameters = MSALOnBehalfOfParameters(scopes: [scope], userAssertion: assertion)
        parameters.correlationId = correlationID
        parameters.forceRefresh = forceRefresh
        return parameters
    }

    @Test("The request: the JWT bearer grant with the assertion, requested_token_use=on_behalf_of, the scopes, client_info and the secret")
    func request() async throws {
        let harness = try ConfidentialReplayHarness(
            "obo-request", AppFlowReplay.metadata() + [AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-1"))])
        let correlationID = UUID()
        let result = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(correlationID: correlationID))

        #expect(harness.sent.count == 3, "discovery, metadata, token: \(harness.sent.map(\.url))")
        let request = try #require(harness.tokenRequests.first)
        #expect(request.url.absoluteString == AppFlowReplay.tokenEndpoint())
        #expect(AppFlowReplay.form(request) == Self.expectedAssertionForm())
        #expect(request.headers["client-request-id"] == correlationID.uuidString.lowercased())
        #expect(request.headers["x-client-SKU"] == "MSAL.Swift.Linux")

        #expect(result.accessToken == "obo-at-1")
        #expect(result.tokenSource == .identityProvider)
        #expect(result.account.identifier == TestAccount.abe.home, "the caller's user")
        #expect(result.scopes == [Self.scope])
        #expect(result.expiresOn == Date(timeIntervalSince1970: FlowIdentity.now + 3599))
        #expect(result.refreshOn == nil)
        #expect(result.correlationId == correlationID)
        #expect(result.tenantProfile.tenantId == Self.tenant)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("Parameters checked before any request: no scope, an assertion that is not a JWT or carries its Bearer prefix")
    func parametersChecked() async throws {
        let harness = try ConfidentialReplayHarness("obo-parameters", [])
        for (scopes, assertion) in [
            ([String](), Self.assertionA), (["openid"], Self.assertionA), ([Self.scope], ""), ([Self.scope], "Bearer " + Self.assertionA),
            ([Self.scope], "a.b"),
        ] {
            let correlationID = UUID()
            let parameters = MSALOnBehalfOfParameters(scopes: scopes, userAssertion: assertion)
            parameters.correlationId = correlationID
            let failure = await expectMSALError { try await harness.app.acquireTokenOnBehalfOf(with: parameters) }
            #expect(failure?.internalCode == .internalErrorInvalidParameter, "\(scopes) \(assertion.count)")
            #expect(failure?.correlationID == correlationID)
            #expect(failure.map { !$0.message.contains("c2lnbmF0dXJlLWE") } == true, "the assertion is not quoted")
        }
        #expect(harness.sent.isEmpty)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test(
        "The same assertion is answered from the cache with no request; another assertion of the same user asks the service, and its tokens replace the first one's (one entry per user and scopes)"
    )
    func cacheHit() async throws {
        let harness = try ConfidentialReplayHarness(
            "obo-cache-hit",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-a", refreshToken: "obo-rt-a")),
                AppFlowReplay.token(form: Self.assertionForm(Self.assertionB), body: Self.userToken("obo-at-b", refreshToken: "obo-rt-b")),
                AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-a2", refreshToken: "obo-rt-a2")),
            ])
        _ = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        harness.clock.advance(by: 600)
        let correlationID = UUID()
        let hit = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(correlationID: correlationID))
        #expect(hit.accessToken == "obo-at-a")
        #expect(hit.tokenSource == .cache)
        #expect(hit.correlationId == correlationID)
        #expect(hit.account.identifier == TestAccount.abe.home)
        #expect(hit.expiresOn == Date(timeIntervalSince1970: FlowIdentity.now + 3599))
        #expect(harness.sent.count == 3, "no request for the hit")

        let other = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(Self.assertionB))
        #expect(other.accessToken == "obo-at-b", "never the token obtained with another assertion")
        #expect(other.tokenSource == .identityProvider)
        #expect(harness.tokenRequests.count == 2)
        #expect(AppFlowReplay.form(harness.tokenRequests[1]) == Self.expectedAssertionForm(Self.assertionB))
        #expect(try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(Self.assertionB)).tokenSource == .cache)

        // The first assertion's access and refresh tokens were replaced: it is presented again (no refresh token of another caller).
        let again = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        #expect(again.accessToken == "obo-at-a2")
        #expect(again.tokenSource == .identityProvider)
        #expect(harness.tokenRequests.count == 3)
        #expect(AppFlowReplay.form(harness.tokenRequests[2]) == Self.expectedAssertionForm())
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("The tokens are cached under the assertion's hash: the partition key and user_assertion_hash of the access and refresh tokens")
    func cachedUnderTheAssertionHash() async throws {
        let recorder = PartitionRecorder()
        let harness = try ConfidentialReplayHarness(
            "obo-partition",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-a", refreshToken: "obo-rt-a")),
                AppFlowReplay.token(form: Self.assertionForm(Self.assertionB), body: Self.userToken("obo-at-b", refreshToken: "obo-rt-b")),
            ],
            cacheConfig: MSALCacheConfig(storage: .custom(recorder)))
        _ = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        #expect(recorder.writeKeys == [Self.hashA])
        #expect(!recorder.readKeys.isEmpty && recorder.readKeys.allSatisfy { $0 == Self.hashA })
        #expect(recorder.accesses.allSatisfy { !$0.isApplicationCache })
        #expect(
            try harness.rows(.accessToken, ["user_assertion_hash", "secret", "home_account_id", "realm", "target"]) == [
                [Self.hashA, "obo-at-a", TestAccount.abe.home, Self.tenant, Self.scope]
            ])
        #expect(try harness.rows(.refreshToken, ["user_assertion_hash", "secret"]) == [[Self.hashA, "obo-rt-a"]])

        let writes = recorder.writeKeys.count
        _ = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(Self.assertionB))
        #expect(Array(recorder.writeKeys.dropFirst(writes)) == [Self.hashB])
        #expect(
            try harness.rows(.accessToken, ["user_assertion_hash", "secret", "home_account_id", "realm", "target"]) == [
                [Self.hashB, "obo-at-b", TestAccount.abe.home, Self.tenant, Self.scope]
            ])
        #expect(try harness.rows(.refreshToken, ["user_assertion_hash", "secret"]) == [[Self.hashB, "obo-rt-b"]])
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("Past refresh_on the refresh token obtained with the assertion is redeemed; when the service fails the cached token is returned")
    func proactiveRefresh() async throws {
        let down = AppFlowReplay.oauthError("server_error", "AADSTS90033: down")
        let harness = try ConfidentialReplayHarness(
            "obo-refresh-on",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-1", refreshIn: 1800)),
                AppFlowReplay.token(form: Self.refreshForm("obo-rt-1"), status: 500, body: down),
                AppFlowReplay.token(form: Self.refreshForm("obo-rt-1"), status: 500, body: down),
                AppFlowReplay.token(
                    form: Self.refreshForm("obo-rt-1"), body: Self.userToken("obo-at-2", refreshToken: "obo-rt-2", refreshIn: 1800)),
            ])
        let first = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        #expect(first.refreshOn == Date(timeIntervalSince1970: FlowIdentity.now + 1800))
        harness.clock.advance(by: 1799)
        #expect(try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters()).tokenSource == .cache)
        #expect(harness.tokenRequests.count == 1)

        harness.clock.advance(by: 1)
        let correlationID = UUID()
        let kept = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(correlationID: correlationID))
        #expect(kept.accessToken == "obo-at-1")
        #expect(kept.tokenSource == .cache)
        #expect(kept.correlationId == correlationID)
        #expect(harness.tokenRequests.count == 3, "the refresh token was tried, and retried once after the 5xx")
        #expect(
            harness.tokenRequests.dropFirst().map(AppFlowReplay.form) == Array(repeating: Self.expectedRefreshForm("obo-rt-1"), count: 2))
        #expect(harness.clock.sleeps == [0.5])

        harness.clock.advance(by: 61)
        let replaced = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        #expect(replaced.accessToken == "obo-at-2")
        #expect(replaced.tokenSource == .identityProvider)
        #expect(replaced.account.identifier == TestAccount.abe.home)
        #expect(harness.tokenRequests.count == 4)
        #expect(try harness.rows(.refreshToken, ["secret"]) == [["obo-rt-2"]], "the new refresh token replaced the old one")
        #expect(try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters()).accessToken == "obo-at-2")
        #expect(harness.tokenRequests.count == 4)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("An expired access token: the refresh token is redeemed; once refused (invalid_grant) it is removed and the assertion presented")
    func expiredAccessToken() async throws {
        let harness = try ConfidentialReplayHarness(
            "obo-expired",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-1", refreshToken: "obo-rt-1")),
                AppFlowReplay.token(form: Self.refreshForm("obo-rt-1"), body: Self.userToken("obo-at-2", refreshToken: "obo-rt-2")),
                AppFlowReplay.token(
                    form: Self.refreshForm("obo-rt-2"), status: 400,
                    body: AppFlowReplay.oauthError("invalid_grant", "AADSTS700082: The refresh token has expired.")),
                AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-3", refreshToken: "obo-rt-3")),
            ])
        _ = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        harness.clock.advance(by: 3599 - 300)  // the expiry buffer
        let refreshed = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        #expect(refreshed.accessToken == "obo-at-2")
        #expect(refreshed.tokenSource == .identityProvider)
        #expect(AppFlowReplay.form(harness.tokenRequests[1]) == Self.expectedRefreshForm("obo-rt-1"))

        harness.clock.advance(by: 3599 - 300)
        let represented = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        #expect(represented.accessToken == "obo-at-3")
        #expect(harness.tokenRequests.count == 4)
        #expect(AppFlowReplay.form(harness.tokenRequests[2]) == Self.expectedRefreshForm("obo-rt-2"))
        #expect(AppFlowReplay.form(harness.tokenRequests[3]) == Self.expectedAssertionForm())
        #expect(try harness.rows(.refreshToken, ["secret"]) == [["obo-rt-3"]], "the refused refresh token is gone")
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("forceRefresh presents the assertion again, without the cached refresh token, and replaces the cached tokens")
    func forceRefresh() async throws {
        let harness = try ConfidentialReplayHarness(
            "obo-force-refresh",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-1", refreshToken: "obo-rt-1")),
                AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-2", refreshToken: "obo-rt-2")),
            ])
        _ = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        let forced = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(forceRefresh: true))
        #expect(forced.accessToken == "obo-at-2")
        #expect(forced.tokenSource == .identityProvider)
        #expect(harness.tokenRequests.map(AppFlowReplay.form) == [Self.expectedAssertionForm(), Self.expectedAssertionForm()])
        let hit = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        #expect(hit.accessToken == "obo-at-2" && hit.tokenSource == .cache)
        #expect(try harness.rows(.accessToken, ["secret"]) == [["obo-at-2"]])
        #expect(try harness.rows(.refreshToken, ["secret"]) == [["obo-rt-2"]])
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("Concurrent callers presenting the same assertion share one request; each result carries its own correlation id")
    func singleFlight() async throws {
        let harness = try ConfidentialReplayHarness(
            "obo-single-flight",
            AppFlowReplay.metadata() + [AppFlowReplay.token(form: Self.assertionForm(), body: Self.userToken("obo-at-1"))])
        let ids = (0..<8).map { _ in UUID() }
        let results = try await withThrowingTaskGroup(of: (UUID, MSALResult).self) { group in
            for id in ids {
                group.addTask { (id, try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(correlationID: id))) }
            }
            return try await group.reduce(into: [(UUID, MSALResult)]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(Set(results.map(\.1.accessToken)) == ["obo-at-1"])
        for (id, result) in results { #expect(result.correlationId == id) }
        #expect(harness.tokenRequests.count == 1)
        #expect(harness.sent.count == 3)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test(
        "Error answers map to MSALFailure with the caller's correlation id (the user's to fix: interactionRequired with the claims)",
        arguments: [
            (401, "invalid_client", MSALError.internal, MSALInternalError.internalErrorInvalidClient as MSALInternalError?),
            (400, "invalid_scope", .internal, .internalErrorInvalidScope),
            (400, "invalid_grant", .interactionRequired, .internalErrorInvalidGrant),
            (400, "interaction_required", .interactionRequired, nil),
        ])
    func errorAnswer(status: Int, error: String, code: MSALError, internalCode: MSALInternalError?) async throws {
        let claims = #"{"access_token":{"capolids":{"essential":true,"values":["c1"]}}}"#
        let harness = try ConfidentialReplayHarness(
            "obo-\(error)",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(
                    form: Self.assertionForm(), status: status,
                    body: AppFlowReplay.oauthError(error, "AADSTS50076: refused", claims: error == "interaction_required" ? claims : nil))
            ])
        let correlationID = UUID()
        let failure = try #require(
            await expectMSALError { try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(correlationID: correlationID)) })
        #expect(failure.code == code)
        #expect(failure.internalCode == internalCode)
        #expect(failure.oauthError == error)
        #expect(failure.httpStatusCode == status)
        #expect(failure.correlationID == correlationID)
        #expect(failure.claims == (error == "interaction_required" ? claims : nil))
        #expect(harness.tokenRequests.count == 1, "a 4xx is not retried")
        #expect(try harness.rows(.accessToken, ["secret"]).isEmpty)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("A 5xx is retried once after 0.5 s, then reported with the correlation id; nothing is cached")
    func serverError() async throws {
        let down = AppFlowReplay.oauthError("server_error", "AADSTS90033: A transient error has occurred.")
        let harness = try ConfidentialReplayHarness(
            "obo-5xx",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.assertionForm(), status: 500, body: down),
                AppFlowReplay.token(form: Self.assertionForm(), status: 500, body: down),
            ])
        let correlationID = UUID()
        let failure = try #require(
            await expectMSALError { try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters(correlationID: correlationID)) })
        #expect(failure.code == .internal)
        #expect(failure.internalCode == .internalErrorUnhandledResponse)
        #expect(failure.httpStatusCode == 500)
        #expect(failure.correlationID == correlationID)
        #expect(harness.tokenRequests.count == 2)
        #expect(harness.clock.sleeps == [0.5])
        #expect(try harness.rows(.accessToken, ["secret"]).isEmpty)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test(
        "The parameters' authority overrides the tenant: its metadata and token endpoint; the configured tenant redeems the refresh token")
    func authorityOverride() async throws {
        let other = AppFlowReplay.otherTenant
        let harness = try ConfidentialReplayHarness(
            "obo-authority-override",
            AppFlowReplay.metadata(other) + [
                AppFlowReplay.token(other, form: Self.assertionForm(), body: Self.userToken("obo-at-other", refreshToken: "obo-rt-1"))
            ] + [
                AppFlowReplay.configuration(Self.tenant),
                AppFlowReplay.token(form: Self.refreshForm("obo-rt-1"), body: Self.userToken("obo-at-home", refreshToken: "obo-rt-2")),
            ])
        let overridden = Self.parameters()
        overridden.authority = try ConfidentialReplayHarness.authority(other)
        let result = try await harness.app.acquireTokenOnBehalfOf(with: overridden)
        #expect(result.accessToken == "obo-at-other")
        #expect(result.tenantProfile.tenantId == other)
        #expect(harness.tokenRequests.map(\.url.absoluteString) == [AppFlowReplay.tokenEndpoint(other)])

        let home = try await harness.app.acquireTokenOnBehalfOf(with: Self.parameters())
        #expect(home.accessToken == "obo-at-home", "the other tenant's access token does not answer for the configured one")
        #expect(home.tenantProfile.tenantId == Self.tenant)
        #expect(
            harness.tokenRequests.map(\.url.absoluteString) == [AppFlowReplay.tokenEndpoint(other), AppFlowReplay.tokenEndpoint()])
        #expect(AppFlowReplay.form(harness.tokenRequests[1]) == Self.expectedRefreshForm("obo-rt-1"))

        let again = try await harness.app.acquireTokenOnBehalfOf(with: overridden)
        #expect(again.accessToken == "obo-at-other" && again.tokenSource == .cache)
        #expect(harness.sent.count == 5, "instance discovery once per host; the configuration once per tenant")
        try harness.transport.verifyAllInteractionsUsed()
    }
}
