import Foundation
import MSALTesting
import Testing

@testable import MSAL

/// `ClientCredentialsFlow` through ``MSALConfidentialClientApplication/acquireTokenForClient(with:)``
/// over recorded traffic (``MSALReplayTransport``, no sockets): the request it sends, the cache and
/// its partition, proactive and forced refresh, one request for concurrent callers, the error
/// mapping and the authority override. Every test replays a fixture built in code, checks the
/// exact requests sent, and that every recorded interaction was used.
@Suite("Client credentials flow over recorded traffic")
struct ClientCredentialsFlowTests {
    static let clientID = FlowIdentity.clientID
    static let tenant = FlowIdentity.tenant
    static let graph = "https://graph.microsoft.com/.default"
    static let vault = "https://vault.azure.net/.default"

    /// The form fields the replay matches a client credentials request on.
    static func grantForm(scope: String = graph) -> [String: String] {
        ["grant_type": "client_credentials", "client_id": clientID, "scope": scope]
    }

    /// The complete form of a client credentials request authenticated with the secret.
    static func expectedForm(scope: String = graph) -> [String] {
        AppFlowReplay.lines([
            "client_id": clientID, "grant_type": "client_credentials", "scope": scope, "client_info": "1",
            "client_secret": AppFlowReplay.secret,
        ])
    }

    /// An app token answer: no refresh token, ID token or client_info.
    static func appToken(_ accessToken: String, expiresIn: Int = 3599, refreshIn: Int? = nil) -> String {
        var body = #"{"token_type":"Bearer","expires_in":\#(expiresIn),"ext_expires_in":\#(expiresIn),"access_token":"\#(accessToken)""#
        if let refreshIn { body += #","refresh_in":\#(refreshIn)"# }
        return body + "}"
    }

    static func parameters(
        _ scopes: [String] = [graph], correlationID: UUID = UUID(), forceRefresh: Bool = false
    )
        -> MSALClientCredentialParameters
    {
        let parameters = MSALClientCredentialParameters(scopes: scopes)
        parameters.correlationId = correlationID
        parameters.forceRefresh = forceRefresh
        return parameters
    }

    @Test("The request: client_credentials with the secret, the /.default scope as given, client_info=1, the correlation id; an app result")
    func request() async throws {
        let harness = try ConfidentialReplayHarness(
            "cc-request", AppFlowReplay.metadata() + [AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-1"))])
        let correlationID = UUID()
        let result = try await harness.app.acquireTokenForClient(with: Self.parameters(correlationID: correlationID))

        #expect(harness.sent.count == 3, "discovery, metadata, token: \(harness.sent.map(\.url))")
        let request = try #require(harness.tokenRequests.first)
        #expect(harness.tokenRequests.count == 1)
        #expect(request.url.absoluteString == AppFlowReplay.tokenEndpoint())
        #expect(AppFlowReplay.form(request) == Self.expectedForm(), "no reserved scope, no user")
        #expect(request.headers["client-request-id"] == correlationID.uuidString.lowercased())
        #expect(request.headers["x-client-SKU"] == "MSAL.Swift.Linux")
        #expect(request.headers["return-client-request-id"] == "true")

        #expect(result.accessToken == "app-at-1")
        #expect(result.tokenSource == .identityProvider)
        #expect(result.expiresOn == Date(timeIntervalSince1970: FlowIdentity.now + 3599))
        #expect(result.refreshOn == nil, "the answer had no refresh_in")
        #expect(result.scopes == [Self.graph])
        #expect(result.idToken == nil)
        #expect(result.account.identifier == nil, "an app token belongs to no user")
        #expect(result.tenantProfile.tenantId == Self.tenant)
        #expect(result.correlationId == correlationID)
        #expect(result.authority.url.absoluteString.lowercased().hasSuffix("/\(Self.tenant)"))
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("An assertion credential: the provider is asked for the token endpoint; client_assertion with the jwt-bearer type, no secret")
    func assertionCredential() async throws {
        let asked = Recorder<MSALClientAssertionRequest>()
        let assertion = "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJ0b2tlbiJ9.c2lnbmVk"
        let harness = try ConfidentialReplayHarness(
            "cc-assertion",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(
                    form: Self.grantForm().merging(["client_assertion": assertion]) { $1 }, body: Self.appToken("app-at-1"))
            ],
            credential: .assertion { request in
                asked.append(request)
                return assertion
            })
        let result = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(result.accessToken == "app-at-1")
        #expect(asked.values == [MSALClientAssertionRequest(clientId: Self.clientID, tokenEndpoint: AppFlowReplay.tokenEndpoint())])
        let request = try #require(harness.tokenRequests.first)
        #expect(
            AppFlowReplay.form(request)
                == AppFlowReplay.lines([
                    "client_id": Self.clientID, "grant_type": "client_credentials", "scope": Self.graph, "client_info": "1",
                    "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", "client_assertion": assertion,
                ]))
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("A cached app token answers with no request, under the caller's correlation id; another resource asks the service")
    func cacheHit() async throws {
        let harness = try ConfidentialReplayHarness(
            "cc-cache-hit",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-graph")),
                AppFlowReplay.token(form: Self.grantForm(scope: Self.vault), body: Self.appToken("app-at-vault")),
            ])
        _ = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(harness.sent.count == 3)
        harness.clock.advance(by: 600)
        for _ in 0..<2 {
            let correlationID = UUID()
            let hit = try await harness.app.acquireTokenForClient(with: Self.parameters(correlationID: correlationID))
            #expect(hit.accessToken == "app-at-graph")
            #expect(hit.tokenSource == .cache)
            #expect(hit.correlationId == correlationID)
            #expect(hit.expiresOn == Date(timeIntervalSince1970: FlowIdentity.now + 3599))
            #expect(hit.tenantProfile.tenantId == Self.tenant)
        }
        #expect(harness.sent.count == 3, "the cache answered twice with no request")

        let vault = try await harness.app.acquireTokenForClient(with: Self.parameters([Self.vault]))
        #expect(vault.accessToken == "app-at-vault")
        #expect(vault.tokenSource == .identityProvider)
        #expect(harness.sent.count == 4, "the metadata is known: only the token request")
        #expect(AppFlowReplay.form(harness.sent[3]) == Self.expectedForm(scope: Self.vault))
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("Past refresh_on a new token is asked for; when the service fails (5xx, retried once) the cached token is returned")
    func proactiveRefresh() async throws {
        let harness = try ConfidentialReplayHarness(
            "cc-refresh-on",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-1", refreshIn: 1800)),
                AppFlowReplay.token(
                    form: Self.grantForm(), status: 500, body: AppFlowReplay.oauthError("server_error", "AADSTS90033: down")),
                AppFlowReplay.token(
                    form: Self.grantForm(), status: 500, body: AppFlowReplay.oauthError("server_error", "AADSTS90033: down")),
                AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-2", refreshIn: 1800)),
            ])
        let first = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(first.refreshOn == Date(timeIntervalSince1970: FlowIdentity.now + 1800))

        harness.clock.advance(by: 1799)
        #expect(try await harness.app.acquireTokenForClient(with: Self.parameters()).tokenSource == .cache, "a second before refresh_on")
        #expect(harness.sent.count == 3)

        harness.clock.advance(by: 1)
        let correlationID = UUID()
        let kept = try await harness.app.acquireTokenForClient(with: Self.parameters(correlationID: correlationID))
        #expect(kept.accessToken == "app-at-1")
        #expect(kept.tokenSource == .cache)
        #expect(kept.correlationId == correlationID)
        #expect(harness.tokenRequests.count == 3, "the refresh was tried, and retried once after the 5xx")
        #expect(harness.clock.sleeps == [0.5])

        harness.clock.advance(by: 30)
        let throttled = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(throttled.accessToken == "app-at-1" && throttled.tokenSource == .cache, "the failed request is throttled for 60 s")
        #expect(harness.tokenRequests.count == 3)

        harness.clock.advance(by: 31)
        let replaced = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(replaced.accessToken == "app-at-2")
        #expect(replaced.tokenSource == .identityProvider)
        // refresh_on counts from the whole second the answer came in (the retry's 0.5 s wait moved the clock).
        #expect(replaced.refreshOn == Date(timeIntervalSince1970: harness.clock.now().timeIntervalSince1970.rounded(.down) + 1800))
        #expect(harness.tokenRequests.count == 4)
        let hit = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(hit.accessToken == "app-at-2" && hit.tokenSource == .cache)
        #expect(harness.tokenRequests.count == 4)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("forceRefresh asks the service while a valid token is cached, and the new token replaces it")
    func forceRefresh() async throws {
        let harness = try ConfidentialReplayHarness(
            "cc-force-refresh",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-1")),
                AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-2")),
            ])
        _ = try await harness.app.acquireTokenForClient(with: Self.parameters())
        harness.clock.advance(by: 60)
        let forced = try await harness.app.acquireTokenForClient(with: Self.parameters(forceRefresh: true))
        #expect(forced.accessToken == "app-at-2")
        #expect(forced.tokenSource == .identityProvider)
        #expect(forced.expiresOn == Date(timeIntervalSince1970: FlowIdentity.now + 60 + 3599))
        #expect(harness.tokenRequests.count == 2)
        #expect(harness.tokenRequests.map(AppFlowReplay.form) == [Self.expectedForm(), Self.expectedForm()])
        let hit = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(hit.accessToken == "app-at-2" && hit.tokenSource == .cache)
        #expect(try harness.rows(.accessToken, ["secret"]) == [["app-at-2"]], "one app token for the scope")
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("Concurrent callers with an empty cache share one token request; each result carries its own correlation id")
    func singleFlight() async throws {
        let harness = try ConfidentialReplayHarness(
            "cc-single-flight", AppFlowReplay.metadata() + [AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-1"))])
        let ids = (0..<8).map { _ in UUID() }
        let results = try await withThrowingTaskGroup(of: (UUID, MSALResult).self) { group in
            for id in ids {
                group.addTask { (id, try await harness.app.acquireTokenForClient(with: Self.parameters(correlationID: id))) }
            }
            return try await group.reduce(into: [(UUID, MSALResult)]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(Set(results.map(\.1.accessToken)) == ["app-at-1"])
        for (id, result) in results { #expect(result.correlationId == id) }
        #expect(harness.tokenRequests.count == 1)
        #expect(harness.sent.count == 3)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("The token is cached as an app token: partition <client id>_<tenant>_AppTokenCache, realm the tenant, environment the host")
    func cachedUnderTheAppPartition() async throws {
        let recorder = PartitionRecorder()
        let harness = try ConfidentialReplayHarness(
            "cc-partition", AppFlowReplay.metadata() + [AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-1"))],
            cacheConfig: MSALCacheConfig(storage: .custom(recorder)))
        _ = try await harness.app.acquireTokenForClient(with: Self.parameters())
        let partition = "\(Self.clientID)_\(Self.tenant)_AppTokenCache"
        #expect(recorder.writeKeys == [partition])
        #expect(!recorder.readKeys.isEmpty && recorder.readKeys.allSatisfy { $0 == partition }, "the lookups before the request")
        #expect(recorder.accesses.allSatisfy { $0.isApplicationCache })
        let accessesAfterFetch = recorder.accesses.count
        #expect(
            try harness.rows(.accessToken, ["client_id", "environment", "realm", "target", "home_account_id", "secret"]) == [
                [Self.clientID, "login.microsoftonline.com", Self.tenant, Self.graph, "<none>", "app-at-1"]
            ])
        #expect(try harness.rows(.refreshToken, ["secret"]).isEmpty)
        #expect(try harness.rows(.idToken, ["secret"]).isEmpty)

        let rowsRead = recorder.accesses.count - accessesAfterFetch
        let hit = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(hit.tokenSource == .cache)
        let hitAccesses = recorder.accesses.dropFirst(accessesAfterFetch + rowsRead)
        #expect(
            Array(hitAccesses) == [PartitionRecorder.Access(key: partition, isWrite: false, isApplicationCache: true)], "one read, no write"
        )
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test(
        "Error answers map to MSALFailure with the caller's correlation id, and nothing is cached",
        arguments: [
            (401, "invalid_client", "AADSTS7000215: Invalid client secret provided.", MSALInternalError.internalErrorInvalidClient),
            (400, "invalid_scope", "AADSTS1002012: The provided value for scope is not valid.", .internalErrorInvalidScope),
            (400, "unauthorized_client", "AADSTS700016: Application not found.", .internalErrorUnauthorizedClient),
            (400, "invalid_grant", "AADSTS50000: no user here.", .internalErrorInvalidGrant),
        ])
    func errorAnswer(status: Int, error: String, description: String, internalCode: MSALInternalError) async throws {
        let harness = try ConfidentialReplayHarness(
            "cc-\(error)",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.grantForm(), status: status, body: AppFlowReplay.oauthError(error, description))
            ])
        let correlationID = UUID()
        let failure = try #require(
            await expectMSALError { try await harness.app.acquireTokenForClient(with: Self.parameters(correlationID: correlationID)) })
        #expect(failure.code == .internal, "an app token never asks for interaction")
        #expect(failure.internalCode == internalCode)
        #expect(failure.oauthError == error)
        #expect(failure.httpStatusCode == status)
        #expect(failure.correlationID == correlationID)
        #expect(failure.message.contains(description.prefix(12)))
        #expect(harness.tokenRequests.count == 1, "a 4xx is not retried")
        #expect(harness.clock.sleeps.isEmpty)
        #expect(try harness.rows(.accessToken, ["secret"]).isEmpty)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("A 5xx is retried once after 0.5 s, then reported; a repeat within 60 s is a throttling cache hit with no request")
    func serverError() async throws {
        let down = AppFlowReplay.oauthError("server_error", "AADSTS90033: A transient error has occurred.")
        let harness = try ConfidentialReplayHarness(
            "cc-5xx",
            AppFlowReplay.metadata() + [
                AppFlowReplay.token(form: Self.grantForm(), status: 503, body: down),
                AppFlowReplay.token(form: Self.grantForm(), status: 503, body: down),
            ])
        let correlationID = UUID()
        let failure = try #require(
            await expectMSALError { try await harness.app.acquireTokenForClient(with: Self.parameters(correlationID: correlationID)) })
        #expect(failure.code == .internal)
        #expect(failure.internalCode == .internalErrorUnhandledResponse)
        #expect(failure.httpStatusCode == 503)
        #expect(failure.correlationID == correlationID)
        #expect(failure.isThrottlingCacheHit == false)
        #expect(harness.tokenRequests.count == 2)
        #expect(harness.clock.sleeps == [0.5])

        harness.clock.advance(by: 30)
        let again = UUID()
        let throttled = try #require(
            await expectMSALError { try await harness.app.acquireTokenForClient(with: Self.parameters(correlationID: again)) })
        #expect(throttled.isThrottlingCacheHit)
        #expect(throttled.correlationID == again)
        #expect(harness.tokenRequests.count == 2, "throttled: nothing sent")
        #expect(try harness.rows(.accessToken, ["secret"]).isEmpty)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test(
        "The parameters' authority overrides the tenant: its metadata, token endpoint, realm and partition; the default tenant stays apart")
    func authorityOverride() async throws {
        let other = AppFlowReplay.otherTenant
        let recorder = PartitionRecorder()
        let harness = try ConfidentialReplayHarness(
            "cc-authority-override",
            AppFlowReplay.metadata(other) + [AppFlowReplay.token(other, form: Self.grantForm(), body: Self.appToken("app-at-other"))]
                + [
                    AppFlowReplay.configuration(Self.tenant),
                    AppFlowReplay.token(form: Self.grantForm(), body: Self.appToken("app-at-home")),
                ],
            cacheConfig: MSALCacheConfig(storage: .custom(recorder)))
        let overridden = Self.parameters()
        overridden.authority = try ConfidentialReplayHarness.authority(other)
        let result = try await harness.app.acquireTokenForClient(with: overridden)
        #expect(result.accessToken == "app-at-other")
        #expect(result.tenantProfile.tenantId == other)
        #expect(result.authority.url.absoluteString.lowercased().hasSuffix("/\(other)"))
        #expect(harness.tokenRequests.map(\.url.absoluteString) == [AppFlowReplay.tokenEndpoint(other)])
        #expect(recorder.writeKeys == ["\(Self.clientID)_\(other)_AppTokenCache"])

        let home = try await harness.app.acquireTokenForClient(with: Self.parameters())
        #expect(home.accessToken == "app-at-home", "the other tenant's token does not answer for the configured one")
        #expect(home.tenantProfile.tenantId == Self.tenant)
        #expect(
            harness.tokenRequests.map(\.url.absoluteString) == [AppFlowReplay.tokenEndpoint(other), AppFlowReplay.tokenEndpoint()])
        #expect(recorder.writeKeys == ["\(Self.clientID)_\(other)_AppTokenCache", "\(Self.clientID)_\(Self.tenant)_AppTokenCache"])
        #expect(
            try harness.rows(.accessToken, ["realm", "secret"])
                == [[other, "app-at-other"], [Self.tenant, "app-at-home"]].sorted {
                    $0.lexicographicallyPrecedes($1)
                })

        let again = try await harness.app.acquireTokenForClient(with: overridden)
        #expect(again.accessToken == "app-at-other" && again.tokenSource == .cache)
        #expect(harness.sent.count == 5, "instance discovery once per host; the configuration once per tenant")
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("A proof-of-possession scheme on an app token request is refused before any request, never answered with a bearer token")
    func proofOfPossessionRefused() async throws {
        let harness = try ConfidentialReplayHarness("cc-pop-refused", [])
        let parameters = Self.parameters()
        parameters.authenticationScheme = MSALAuthenticationSchemePop(
            httpMethod: .GET, request: URL(string: "https://graph.microsoft.com/v1.0/users")!, nonce: nil, additionalParameters: nil)
        let error = await #expect(throws: MSALFailure.self) { _ = try await harness.app.acquireTokenForClient(with: parameters) }
        #expect(error?.internalCode == .internalErrorInvalidParameter)
        #expect(error?.correlationID == parameters.correlationId)
        #expect(harness.sent.isEmpty)
    }
}
