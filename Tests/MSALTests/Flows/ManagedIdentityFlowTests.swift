import Foundation
import MSALTesting
import Testing

@testable import MSAL

/// `ManagedIdentityFlow` through ``MSALManagedIdentityApplication/acquireToken(with:)`` over
/// recorded traffic (``MSALReplayTransport``, no sockets; the recorded-fixture format expresses
/// every source's request: a GET with its query and headers, Cloud Shell's form POST, Azure Arc's
/// 401 challenge and the request it answers): each source's request, the cache and its
/// partition, proactive and forced refresh, one request for concurrent callers, and the error
/// mapping with the retry policy. A managed identity has no authority to override.
@Suite("Managed identity flow over recorded traffic")
struct ManagedIdentityFlowTests {
    static let resource = "https://management.azure.com"
    static let imds = "http://169.254.169.254/metadata/identity/oauth2/token"
    static let userClientID = "11111111-aaaa-bbbb-cccc-222222222222"

    /// A managed-identity application on a replay transport with a manual clock, an environment of
    /// its own (no Arc agent installed) and the default IMDS address.
    struct Harness {
        let clock: ManualClock
        let transport: MSALReplayTransport
        let app: MSALManagedIdentityApplication

        init(
            _ name: String, _ interactions: [MSALRecordedFixture.Interaction], identity: MSALManagedIdentity = .systemAssigned,
            environment: [String: String] = [:], cacheConfig: MSALCacheConfig = .memory, arcDirectory: String? = nil
        ) throws {
            let clock = ManualClock(FlowIdentity.now)
            let transport = MSALReplayTransport(fixture: AppFlowReplay.fixture(name, interactions))
            let configuration = MSALManagedIdentityConfig(identity: identity)
            configuration.environment = environment
            configuration.transport = transport
            configuration.clock = clock
            configuration.cacheConfig = cacheConfig
            configuration.arcAgentPath = "/nonexistent/himds"
            if let arcDirectory { configuration.arcTokenDirectory = arcDirectory }
            self.clock = clock
            self.transport = transport
            self.app = try MSALManagedIdentityApplication(configuration: configuration)
        }

        var sent: [MSALHTTPRequest] { transport.sentRequests }

        /// The entries of one cache section, each as its members named `fields`, sorted.
        func rows(_ section: CacheSection, _ fields: [String], clientID: String) throws -> [[String]] {
            try app.cache.read(clientID: clientID) { contents in
                contents.document[section].values.map { entry in fields.map { entry[$0] ?? "<none>" } }.sorted {
                    $0.lexicographicallyPrecedes($1)
                }
            }
        }
    }

    /// A token answer as IMDS writes it (numbers as strings).
    static func tokenBody(_ accessToken: String, expiresIn: Int = 86399) -> String {
        #"{"access_token":"\#(accessToken)","client_id":"c","expires_in":"\#(expiresIn)","ext_expires_in":"\#(expiresIn)","resource":"\#(resource)/","token_type":"Bearer"}"#
    }

    /// An IMDS request for `resource` with the identity's `selector`, answered with `status` and `body`.
    static func imdsExchange(
        resource: String = resource, selector: String = "", status: Int = 200, body: String
    ) -> MSALRecordedFixture.Interaction {
        AppFlowReplay.exchange(
            .get, "\(imds)?api-version=2018-02-01&resource=\(resource)\(selector)", headers: ["Metadata": "true"], status: status,
            body: body)
    }

    static func parameters(
        _ resource: String = resource, correlationID: UUID = UUID(), forceRefresh: Bool = false
    )
        -> MSALManagedIdentityParameters
    {
        let parameters = MSALManagedIdentityParameters(resource: resource)
        parameters.correlationId = correlationID
        parameters.forceRefresh = forceRefresh
        return parameters
    }

    /// One source's expected request.
    struct SourceCase: Sendable, CustomTestStringConvertible {
        var source: MSALManagedIdentitySource
        var identity: MSALManagedIdentity
        var environment: [String: String]
        var method: MSALHTTPRequest.Method
        /// The URL without its query.
        var endpoint: String
        var query: [String: String]
        var headers: [String: String]
        var form: [String: String]?

        var testDescription: String { "\(source) \(identity)" }

        var recordedURL: String {
            query.isEmpty ? endpoint : endpoint + "?" + query.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "&")
        }
    }

    static let sourceCases: [SourceCase] = [
        SourceCase(
            source: .imds, identity: .systemAssigned, environment: [:], method: .get, endpoint: imds,
            query: ["api-version": "2018-02-01", "resource": resource], headers: ["Metadata": "true", "x-client-SKU": "MSAL.Swift.Linux"]),
        SourceCase(
            source: .imds, identity: .userAssigned(.clientID(userClientID)), environment: [:], method: .get, endpoint: imds,
            query: ["api-version": "2018-02-01", "resource": resource, "client_id": userClientID], headers: ["Metadata": "true"]),
        SourceCase(
            source: .imds, identity: .userAssigned(.objectID("33333333-aaaa-bbbb-cccc-444444444444")), environment: [:], method: .get,
            endpoint: imds,
            query: ["api-version": "2018-02-01", "resource": resource, "object_id": "33333333-aaaa-bbbb-cccc-444444444444"],
            headers: ["Metadata": "true"]),
        SourceCase(
            source: .appService, identity: .userAssigned(.resourceID("/subscriptions/s/rg/x")),
            environment: ["IDENTITY_ENDPOINT": "http://localhost:8081/msi/token", "IDENTITY_HEADER": "app-service-secret"],
            method: .get, endpoint: "http://localhost:8081/msi/token",
            query: ["api-version": "2019-08-01", "resource": resource, "mi_res_id": "/subscriptions/s/rg/x"],
            headers: ["X-IDENTITY-HEADER": "app-service-secret"]),
        SourceCase(
            source: .serviceFabric, identity: .userAssigned(.objectID("oid-1")),
            environment: [
                "IDENTITY_ENDPOINT": "https://10.0.0.4:2377/metadata/identity/oauth2/token", "IDENTITY_HEADER": "sf-secret",
                "IDENTITY_SERVER_THUMBPRINT": "abc",
            ], method: .get, endpoint: "https://10.0.0.4:2377/metadata/identity/oauth2/token",
            query: ["api-version": "2019-07-01-preview", "resource": resource, "principalId": "oid-1"], headers: ["secret": "sf-secret"]),
        SourceCase(
            source: .machineLearning, identity: .userAssigned(.clientID(userClientID)),
            environment: ["MSI_ENDPOINT": "http://127.0.0.1:46808/", "MSI_SECRET": "ml-secret"], method: .get,
            endpoint: "http://127.0.0.1:46808/",
            query: ["api-version": "2017-09-01", "resource": resource, "clientid": userClientID],
            headers: ["Metadata": "true", "secret": "ml-secret"]),
        SourceCase(
            source: .cloudShell, identity: .systemAssigned, environment: ["MSI_ENDPOINT": "http://localhost:50342/oauth2/token"],
            method: .post, endpoint: "http://localhost:50342/oauth2/token", query: [:], headers: ["Metadata": "true"],
            form: ["resource": resource]),
    ]

    @Test(
        "Each source's request: method, endpoint, the exact query, the headers (and Cloud Shell's form); the answer becomes the result",
        arguments: sourceCases)
    func sourceRequest(_ expected: SourceCase) async throws {
        var headers = MSALHTTPHeaders()
        for (name, value) in expected.headers { headers.add(name: name, value: value) }
        let harness = try Harness(
            "mi-\(expected.source)",
            [
                AppFlowReplay.exchange(
                    expected.method, expected.recordedURL, headers: headers, form: expected.form, status: 200, body: Self.tokenBody("mi-at")
                )
            ], identity: expected.identity, environment: expected.environment)
        #expect(harness.app.source == expected.source)
        let correlationID = UUID()
        let result = try await harness.app.acquireToken(with: Self.parameters(correlationID: correlationID))

        #expect(harness.sent.count == 1)
        let request = try #require(harness.sent.first)
        #expect(request.method == expected.method)
        #expect(request.url.absoluteString.split(separator: "?").first.map(String.init) == expected.endpoint)
        #expect(AppFlowReplay.query(request.url) == AppFlowReplay.lines(expected.query))
        for (name, value) in expected.headers { #expect(request.headers[name] == value, "\(name)") }
        #expect(request.headers["Authorization"] == nil)
        if let form = expected.form { #expect(AppFlowReplay.form(request) == AppFlowReplay.lines(form)) }
        if expected.source == .imds {
            #expect(request.headers["x-ms-client-request-id"] == correlationID.uuidString.lowercased())
        }

        #expect(result.accessToken == "mi-at")
        #expect(result.tokenSource == .identityProvider)
        #expect(result.expiresOn == Date(timeIntervalSince1970: FlowIdentity.now + 86399))
        #expect(result.refreshOn == Date(timeIntervalSince1970: FlowIdentity.now + 43199), "half the life of a long-lived token")
        #expect(result.scopes == [Self.resource])
        #expect(result.account.identifier == nil)
        #expect(result.idToken == nil)
        #expect(result.correlationId == correlationID)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("Azure Arc: the 401 challenge names a key file in the agent's directory; the same request is sent again with Basic <key>")
    func arcChallenge() async throws {
        let directory = try ManagedIdentityTests.ArcDirectory()
        let file = try directory.write("4f2a.key", "arc-secret-value")
        let endpoint = "http://localhost:40342/metadata/identity/oauth2/token"
        let url = "\(endpoint)?api-version=2020-06-01&resource=\(Self.resource)"
        let harness = try Harness(
            "mi-arc",
            [
                AppFlowReplay.exchange(
                    .get, url, headers: ["Authorization": "Basic arc-secret-value"], status: 200, body: Self.tokenBody("arc-at")),
                AppFlowReplay.exchange(
                    .get, url, headers: ["Metadata": "true"], status: 401, body: #"{"error":"unauthorized"}"#,
                    responseHeaders: ["WWW-Authenticate": "Basic realm=\(file)"]),
            ], environment: ["IDENTITY_ENDPOINT": endpoint, "IMDS_ENDPOINT": "http://localhost:40342"], arcDirectory: directory.path)
        #expect(harness.app.source == .azureArc)
        let result = try await harness.app.acquireToken(with: Self.parameters())
        #expect(result.accessToken == "arc-at")
        #expect(harness.sent.count == 2)
        #expect(harness.sent[0].headers["Authorization"] == nil, "the first request carries no key")
        #expect(harness.sent[1].headers["Authorization"] == "Basic arc-secret-value")
        #expect(
            harness.sent.map { AppFlowReplay.query($0.url) }
                == Array(repeating: ["api-version=2020-06-01", "resource=\(Self.resource)"], count: 2))
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("A cached token answers with no request (also for the resource's /.default scope); another resource asks the source")
    func cacheHit() async throws {
        let harness = try Harness(
            "mi-cache-hit",
            [
                Self.imdsExchange(body: Self.tokenBody("mi-arm")),
                Self.imdsExchange(resource: "https://vault.azure.net", body: Self.tokenBody("mi-vault")),
            ])
        _ = try await harness.app.acquireToken(with: Self.parameters())
        harness.clock.advance(by: 600)
        for resource in [Self.resource, Self.resource + "/.default", "  \(Self.resource) "] {
            let correlationID = UUID()
            let hit = try await harness.app.acquireToken(with: Self.parameters(resource, correlationID: correlationID))
            #expect(hit.accessToken == "mi-arm", "\(resource)")
            #expect(hit.tokenSource == .cache)
            #expect(hit.correlationId == correlationID)
        }
        #expect(harness.sent.count == 1)
        let vault = try await harness.app.acquireToken(with: Self.parameters("https://vault.azure.net/.default"))
        #expect(vault.accessToken == "mi-vault")
        #expect(vault.tokenSource == .identityProvider)
        #expect(harness.sent.count == 2)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("Past refresh_on a new token is asked for; when IMDS fails (5xx, three retries after 1, 2, 4 s) the cached token is returned")
    func proactiveRefresh() async throws {
        let down = #"{"error":"server_error","error_description":"unavailable"}"#
        let harness = try Harness(
            "mi-refresh-on",
            [Self.imdsExchange(body: Self.tokenBody("mi-1"))] + Array(repeating: Self.imdsExchange(status: 500, body: down), count: 4) + [
                Self.imdsExchange(body: Self.tokenBody("mi-2"))
            ])
        let first = try await harness.app.acquireToken(with: Self.parameters())
        let refreshOn = try #require(first.refreshOn)
        harness.clock.advance(by: refreshOn.timeIntervalSince(harness.clock.now()) - 1)
        #expect(try await harness.app.acquireToken(with: Self.parameters()).tokenSource == .cache, "a second before refresh_on")
        #expect(harness.sent.count == 1)

        harness.clock.advance(by: 1)
        let correlationID = UUID()
        let kept = try await harness.app.acquireToken(with: Self.parameters(correlationID: correlationID))
        #expect(kept.accessToken == "mi-1")
        #expect(kept.tokenSource == .cache)
        #expect(kept.correlationId == correlationID)
        #expect(harness.sent.count == 5)
        #expect(harness.clock.sleeps == [1, 2, 4])

        let replaced = try await harness.app.acquireToken(with: Self.parameters())
        #expect(replaced.accessToken == "mi-2")
        #expect(replaced.tokenSource == .identityProvider)
        #expect(harness.sent.count == 6)
        let hit = try await harness.app.acquireToken(with: Self.parameters())
        #expect(hit.accessToken == "mi-2" && hit.tokenSource == .cache)
        #expect(harness.sent.count == 6)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("forceRefresh asks the source while a valid token is cached, and the new token replaces it")
    func forceRefresh() async throws {
        let harness = try Harness(
            "mi-force-refresh", [Self.imdsExchange(body: Self.tokenBody("mi-1")), Self.imdsExchange(body: Self.tokenBody("mi-2"))])
        _ = try await harness.app.acquireToken(with: Self.parameters())
        let forced = try await harness.app.acquireToken(with: Self.parameters(forceRefresh: true))
        #expect(forced.accessToken == "mi-2")
        #expect(forced.tokenSource == .identityProvider)
        #expect(harness.sent.count == 2)
        let hit = try await harness.app.acquireToken(with: Self.parameters())
        #expect(hit.accessToken == "mi-2" && hit.tokenSource == .cache)
        #expect(try harness.rows(.accessToken, ["secret"], clientID: "system_assigned_managed_identity") == [["mi-2"]])
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test("Concurrent callers for the same resource share one request; each result carries its own correlation id")
    func singleFlight() async throws {
        let harness = try Harness("mi-single-flight", [Self.imdsExchange(body: Self.tokenBody("mi-1"))])
        let ids = (0..<8).map { _ in UUID() }
        let results = try await withThrowingTaskGroup(of: (UUID, MSALResult).self) { group in
            for id in ids {
                group.addTask { (id, try await harness.app.acquireToken(with: Self.parameters(correlationID: id))) }
            }
            return try await group.reduce(into: [(UUID, MSALResult)]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(Set(results.map(\.1.accessToken)) == ["mi-1"])
        for (id, result) in results { #expect(result.correlationId == id) }
        #expect(harness.sent.count == 1)
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test(
        "The token is cached as an app token of the identity: partition <cache client id>__AppTokenCache, localhost, managed_identity",
        arguments: [
            (MSALManagedIdentity.systemAssigned, "", "system_assigned_managed_identity"),
            (.userAssigned(.clientID(userClientID)), "&client_id=\(userClientID)", userClientID),
        ])
    func cachedUnderTheIdentityPartition(identity: MSALManagedIdentity, selector: String, cacheClientID: String) async throws {
        let recorder = PartitionRecorder()
        let harness = try Harness(
            "mi-partition", [Self.imdsExchange(selector: selector, body: Self.tokenBody("mi-1"))], identity: identity,
            cacheConfig: MSALCacheConfig(storage: .custom(recorder)))
        _ = try await harness.app.acquireToken(with: Self.parameters())
        let partition = "\(cacheClientID)__AppTokenCache"
        #expect(recorder.writeKeys == [partition])
        #expect(!recorder.readKeys.isEmpty && recorder.readKeys.allSatisfy { $0 == partition })
        #expect(recorder.accesses.allSatisfy { $0.isApplicationCache })
        #expect(
            try harness.rows(.accessToken, ["client_id", "environment", "realm", "target", "secret"], clientID: cacheClientID) == [
                [cacheClientID, "localhost", "managed_identity", Self.resource, "mi-1"]
            ])
        try harness.transport.verifyAllInteractionsUsed()
    }

    @Test(
        "Error answers: managedIdentityRequestFailed with the source's error, the status and the correlation id, after the source's retries",
        arguments: [
            (MSALManagedIdentitySource.imds, 400, "invalid_scope", 1, [Double]()),
            (.imds, 500, "server_error", 4, [1, 2, 4]),
            (.appService, 401, "invalid_client", 1, []),
            (.appService, 500, "server_error", 4, [1, 1, 1]),
        ])
    func errorAnswer(source: MSALManagedIdentitySource, status: Int, error: String, requests: Int, sleeps: [Double]) async throws {
        let body = #"{"error":"\#(error)","error_description":"refused by the source"}"#
        let environment =
            source == .appService ? ["IDENTITY_ENDPOINT": "http://localhost:8081/msi/token", "IDENTITY_HEADER": "app-service-secret"] : [:]
        let url =
            source == .appService
            ? "http://localhost:8081/msi/token?api-version=2019-08-01&resource=\(Self.resource)"
            : "\(Self.imds)?api-version=2018-02-01&resource=\(Self.resource)"
        let harness = try Harness(
            "mi-\(source)-\(status)",
            Array(repeating: AppFlowReplay.exchange(.get, url, status: status, body: body), count: requests), environment: environment)
        #expect(harness.app.source == source)
        let correlationID = UUID()
        let failure = try #require(
            await expectMSALError { try await harness.app.acquireToken(with: Self.parameters(correlationID: correlationID)) })
        #expect(failure.code == .internal)
        #expect(failure.internalCode == .managedIdentityRequestFailed)
        #expect(failure.httpStatusCode == status)
        #expect(failure.correlationID == correlationID)
        #expect(failure.message.contains("\(source)"))
        if status < 500 {
            #expect(failure.oauthError == error)
            #expect(failure.message.contains("refused by the source"))
        }
        #expect(harness.sent.count == requests)
        #expect(harness.clock.sleeps == sleeps)
        #expect(try harness.rows(.accessToken, ["secret"], clientID: "system_assigned_managed_identity").isEmpty)
        try harness.transport.verifyAllInteractionsUsed()
    }
}
