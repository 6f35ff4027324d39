import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// `MSALManagedIdentityApplication` against scripted answers: source detection, each source's
/// request, the response shapes, the retry policies, the cache and proactive refresh, and the
/// Azure Arc challenge's file checks. Nothing is sent anywhere (the transport is a queue).
@Suite("Managed identity: sources, requests, retries and the cache")
struct ManagedIdentityTests {
    static let imdsBase = URL(string: "http://127.0.0.1:9/")!
    static let resource = "https://management.azure.com"

    static func app(
        _ identity: MSALManagedIdentity = .systemAssigned, environment: [String: String] = [:], steps: [QueueTransport.Step],
        clock: ManualClock = ManualClock(), cache: MSALCacheConfig = .memory, arcDirectory: String? = nil,
        configure: (MSALManagedIdentityConfig) -> Void = { _ in }
    ) throws -> (MSALManagedIdentityApplication, QueueTransport, ManualClock) {
        let transport = QueueTransport(steps)
        let configuration = MSALManagedIdentityConfig(identity: identity)
        configuration.environment = environment
        configuration.imdsBaseURL = imdsBase
        configuration.transport = transport
        configuration.clock = clock
        configuration.cacheConfig = cache
        configuration.arcAgentPath = "/nonexistent/himds"
        if let arcDirectory { configuration.arcTokenDirectory = arcDirectory }
        configure(configuration)
        return (try MSALManagedIdentityApplication(configuration: configuration), transport, clock)
    }

    static func token(_ name: String = "mi-token", expiresIn: String = "\"86399\"") -> QueueTransport.Step {
        .respond(
            .json(
                200,
                #"{"access_token":"\#(name)","client_id":"c","expires_in":\#(expiresIn),"ext_expires_in":"86399","resource":"https://management.azure.com/","token_type":"Bearer"}"#
            ))
    }

    static func status(_ code: Int, _ body: String = "{}", headers: MSALHTTPHeaders = [:]) -> QueueTransport.Step {
        .respond(.json(code, body, headers: headers))
    }

    static func query(_ request: MSALHTTPRequest) -> [String: String] {
        Dictionary(
            (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first })
    }

    static func msalError(_ body: () async throws -> Void) async -> MSALFailure? {
        do {
            try await body()
            return nil
        } catch {
            return error as? MSALFailure
        }
    }

    @Test("The source is detected from the environment in MSAL.NET's order; empty variables do not count")
    func detection() {
        let cases: [([String: String], Bool, MSALManagedIdentitySource)] = [
            ([:], false, .imds),
            (["IDENTITY_ENDPOINT": "http://localhost:8081/msi/token", "IDENTITY_HEADER": "h"], false, .appService),
            (
                [
                    "IDENTITY_ENDPOINT": "https://10.0.0.4:2377/metadata/identity/oauth2/token", "IDENTITY_HEADER": "h",
                    "IDENTITY_SERVER_THUMBPRINT": "t",
                ], false, .serviceFabric
            ),
            (["MSI_ENDPOINT": "http://localhost:50342/oauth2/token"], false, .cloudShell),
            (["MSI_ENDPOINT": "http://127.0.0.1:46808/", "MSI_SECRET": "s"], false, .machineLearning),
            (
                ["IDENTITY_ENDPOINT": "http://localhost:40342/metadata/identity/oauth2/token", "IMDS_ENDPOINT": "http://localhost:40342"],
                false, .azureArc
            ),
            ([:], true, .azureArc),
            (["IDENTITY_ENDPOINT": "http://localhost:8081/msi/token", "IDENTITY_HEADER": ""], false, .imds),
            (["IDENTITY_ENDPOINT": "", "IDENTITY_HEADER": "h", "MSI_ENDPOINT": ""], false, .imds),
            (["IDENTITY_ENDPOINT": "http://localhost:8081/msi/token", "IDENTITY_HEADER": "h"], true, .appService),
        ]
        for (variables, agent, expected) in cases {
            #expect(MSALManagedIdentitySource.detect(variables, arcAgentInstalled: agent) == expected, "\(variables) agent \(agent)")
        }
    }

    @Test(
        "IMDS: the request's URL, query and headers for each identity; a string expires_in; then the cache with 0 requests",
        arguments: [
            (MSALManagedIdentity.systemAssigned, nil as (String, String)?),
            (.userAssigned(.clientID("11111111-aaaa-bbbb-cccc-222222222222")), ("client_id", "11111111-aaaa-bbbb-cccc-222222222222")),
            (.userAssigned(.objectID("33333333-aaaa-bbbb-cccc-444444444444")), ("object_id", "33333333-aaaa-bbbb-cccc-444444444444")),
            (
                .userAssigned(
                    .resourceID("/subscriptions/s/resourcegroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/n")),
                ("msi_res_id", "/subscriptions/s/resourcegroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/n")
            ),
        ])
    func imds(identity: MSALManagedIdentity, selector: (String, String)?) async throws {
        let (app, transport, clock) = try Self.app(identity, steps: [Self.token()])
        #expect(app.source == .imds)
        let result = try await app.acquireToken(forResource: Self.resource + "/.default")
        #expect(result.accessToken == "mi-token")
        #expect(result.tokenSource == .identityProvider)
        #expect(result.expiresOn == clock.now().addingTimeInterval(86399))
        #expect(result.refreshOn == clock.now().addingTimeInterval(43199), "half the life of a token living more than two hours")
        #expect(result.scopes == [Self.resource])
        #expect(result.idToken == nil && result.account.identifier == nil)
        let request = try #require(transport.requests.first)
        #expect(request.method == .get)
        #expect(request.url.absoluteString.hasPrefix("http://127.0.0.1:9/metadata/identity/oauth2/token?"))
        var expected = ["api-version": "2018-02-01", "resource": Self.resource]
        if let selector { expected[selector.0] = selector.1 }
        #expect(Self.query(request) == expected)
        #expect(request.headers["Metadata"] == "true")
        #expect(request.headers["x-ms-client-request-id"] == result.correlationId.uuidString.lowercased())
        #expect(request.headers["Authorization"] == nil)

        let cached = try await app.acquireToken(forResource: Self.resource)
        #expect(cached.tokenSource == .cache)
        #expect(cached.accessToken == "mi-token")
        #expect(transport.callCount == 1)
        let parameters = MSALManagedIdentityParameters(resource: Self.resource)
        parameters.forceRefresh = true
        let error = await Self.msalError { _ = try await app.acquireToken(with: parameters) }
        #expect(error != nil, "forceRefresh asks again (and the queue is empty)")
        #expect(transport.callCount == 2)
    }

    @Test("Past refresh_on a new token is asked for; while the endpoint fails the still-valid cached token is returned")
    func proactiveRefresh() async throws {
        let (app, transport, clock) = try Self.app(steps: [
            Self.token("first"), Self.status(400, #"{"error":"invalid_request","error_description":"down"}"#), Self.token("second"),
        ])
        let first = try await app.acquireToken(forResource: Self.resource)
        #expect(first.accessToken == "first")
        let refreshOn = try #require(first.refreshOn)
        clock.advance(by: refreshOn.timeIntervalSince(clock.now()) - 1)
        #expect(try await app.acquireToken(forResource: Self.resource).tokenSource == .cache, "a second before refresh_on")
        #expect(transport.callCount == 1)
        clock.advance(by: 1)
        let kept = try await app.acquireToken(forResource: Self.resource)
        #expect(kept.accessToken == "first" && kept.tokenSource == .cache, "the refresh failed: the cached token, still valid")
        #expect(transport.callCount == 2)
        clock.advance(by: 600)
        let replaced = try await app.acquireToken(forResource: Self.resource)
        #expect(replaced.accessToken == "second" && replaced.tokenSource == .identityProvider)
        #expect(transport.callCount == 3)
        let hit = try await app.acquireToken(forResource: Self.resource)
        #expect(hit.accessToken == "second" && hit.tokenSource == .cache, "the new token's refresh_on is ahead")
        #expect(transport.callCount == 3)
    }

    @Test("IMDS override: AZURE_POD_IDENTITY_AUTHORITY_HOST names the host (a trailing slash dropped); the configuration wins")
    func imdsOverride() async throws {
        let (app, transport, _) = try Self.app(
            environment: ["AZURE_POD_IDENTITY_AUTHORITY_HOST": "http://127.0.0.1:7//"], steps: [Self.token()]
        ) { $0.imdsBaseURL = nil }
        _ = try await app.acquireToken(forResource: Self.resource)
        #expect(transport.requests.first?.url.absoluteString.hasPrefix("http://127.0.0.1:7/metadata/identity/oauth2/token?") == true)
        let bad = try Self.app(environment: ["AZURE_POD_IDENTITY_AUTHORITY_HOST": "ftp://x"], steps: []) { $0.imdsBaseURL = nil }
        let error = await Self.msalError { _ = try await bad.0.acquireToken(forResource: Self.resource) }
        #expect(error?.internalCode == .invalidManagedIdentityEndpoint)
        #expect(bad.1.callCount == 0)
    }

    @Test("IMDS retries: 410 seven times every 10 s; 404, 429 and 5xx three times after 1, 2, 4 s; a timeout too; 400 never")
    func imdsRetries() async throws {
        let (gone, goneTransport, goneClock) = try Self.app(steps: Array(repeating: Self.status(410), count: 7) + [Self.token()])
        #expect(try await gone.acquireToken(forResource: Self.resource).accessToken == "mi-token")
        #expect(goneTransport.callCount == 8)
        #expect(goneClock.sleeps == Array(repeating: 10, count: 7))

        let (down, downTransport, downClock) = try Self.app(steps: [Self.status(500), Self.status(503), Self.status(502), Self.status(504)])
        let error = await Self.msalError { _ = try await down.acquireToken(forResource: Self.resource) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .managedIdentityRequestFailed)
        #expect(error?.httpStatusCode == 504)
        #expect(error?.message.contains("imds") == true)
        #expect(downTransport.callCount == 4)
        #expect(downClock.sleeps == [1, 2, 4])

        let timeout = MSALFailure(.internal, internalCode: .networkTimeout, message: "timed out")
        let (slow, slowTransport, slowClock) = try Self.app(steps: [.fail(timeout), Self.status(404), Self.status(429), Self.token()])
        #expect(try await slow.acquireToken(forResource: Self.resource).accessToken == "mi-token")
        #expect(slowTransport.callCount == 4)
        #expect(slowClock.sleeps == [1, 2, 4])

        let (missing, missingTransport, missingClock) = try Self.app(
            steps: [Self.status(400, #"{"error":"invalid_request","error_description":"Identity not found"}"#)])
        let refused = await Self.msalError { _ = try await missing.acquireToken(forResource: Self.resource) }
        #expect(refused?.code == .internal)
        #expect(refused?.internalCode == .managedIdentityRequestFailed)
        #expect(refused?.oauthError == "invalid_request")
        #expect(refused?.message.contains("Identity not found") == true)
        #expect(refused?.message.contains("not assigned") == true)
        #expect(refused?.correlationID != nil)
        #expect(missingTransport.callCount == 1)
        #expect(missingClock.sleeps.isEmpty)
    }

    @Test("App Service: X-IDENTITY-HEADER, API 2019-08-01, mi_res_id; an epoch expires_on; 429's Retry-After waited for; 502 not retried")
    func appService() async throws {
        let clock = ManualClock()
        let expiresOn = Int(clock.now().timeIntervalSince1970) + 3600
        let environment = ["IDENTITY_ENDPOINT": "http://127.0.0.1:8081/msi/token", "IDENTITY_HEADER": "header-secret"]
        let (app, transport, _) = try Self.app(
            .userAssigned(.resourceID("/subscriptions/s/rg/x")), environment: environment,
            steps: [
                Self.status(429, "{}", headers: ["Retry-After": "3"]),
                .respond(.json(200, #"{"access_token":"as-token","expires_on":"\#(expiresOn)","resource":"r","token_type":"Bearer"}"#)),
            ], clock: clock)
        #expect(app.source == .appService)
        let result = try await app.acquireToken(forResource: Self.resource)
        #expect(result.accessToken == "as-token")
        #expect(result.expiresOn == Date(timeIntervalSince1970: Double(expiresOn)), "the epoch time, whatever the wait")
        #expect(result.refreshOn == nil, "a token of an hour is not refreshed early")
        #expect(clock.sleeps == [3])
        let request = try #require(transport.requests.last)
        #expect(request.url.absoluteString.hasPrefix("http://127.0.0.1:8081/msi/token?"))
        #expect(Self.query(request) == ["api-version": "2019-08-01", "resource": Self.resource, "mi_res_id": "/subscriptions/s/rg/x"])
        #expect(request.headers["X-IDENTITY-HEADER"] == "header-secret")

        let (gateway, gatewayTransport, _) = try Self.app(environment: environment, steps: [Self.status(502), Self.token()])
        let error = await Self.msalError { _ = try await gateway.acquireToken(forResource: Self.resource) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorUnhandledResponse)
        #expect(gatewayTransport.callCount == 1)
    }

    @Test(
        "Service Fabric: https only; the object id as principalId, client and resource ids refused; claims name the cached token to replace"
    )
    func serviceFabric() async throws {
        var environment = [
            "IDENTITY_ENDPOINT": "https://127.0.0.1:2377/metadata/identity/oauth2/token", "IDENTITY_HEADER": "sf-secret",
            "IDENTITY_SERVER_THUMBPRINT": "abc",
        ]
        let (app, transport, _) = try Self.app(
            .userAssigned(.objectID("oid-1")), environment: environment, steps: [Self.token("first"), Self.token("second")]
        ) { $0.clientApplicationCapabilities = ["CP1"] }
        #expect(app.source == .serviceFabric)
        _ = try await app.acquireToken(forResource: Self.resource)
        let parameters = MSALManagedIdentityParameters(resource: Self.resource)
        parameters.claims = #"{"access_token":{"nbf":{"essential":true,"value":"1"}}}"#
        #expect(try await app.acquireToken(with: parameters).accessToken == "second")
        let first = Self.query(transport.requests[0])
        #expect(first == ["api-version": "2019-07-01-preview", "resource": Self.resource, "principalId": "oid-1", "xms_cc": "CP1"])
        #expect(transport.requests[0].headers["secret"] == "sf-secret")
        // SHA-256 of "first", lower-case hex.
        #expect(
            Self.query(transport.requests[1])["token_sha256_to_refresh"]
                == "a7937b64b8caa58f03721bb6bacf5c78cb235febe0e70b1b84cd99541461a08e")

        for identity in [MSALManagedIdentity.userAssigned(.clientID("c")), .userAssigned(.resourceID("r"))] {
            let refused = try Self.app(identity, environment: environment, steps: [])
            let error = await Self.msalError { _ = try await refused.0.acquireToken(forResource: Self.resource) }
            #expect(error?.internalCode == .managedIdentityNotSupported)
            #expect(refused.1.callCount == 0)
        }
        environment["IDENTITY_ENDPOINT"] = "http://127.0.0.1:2377/token"
        let plain = try Self.app(environment: environment, steps: [])
        #expect(
            await Self.msalError { _ = try await plain.0.acquireToken(forResource: Self.resource) }?.internalCode
                == .invalidManagedIdentityEndpoint)
    }

    @Test("Cloud Shell posts a form with Metadata: true and serves only its own identity; Machine Learning sends clientid and secret")
    func cloudShellAndMachineLearning() async throws {
        let (shell, shellTransport, _) = try Self.app(
            environment: ["MSI_ENDPOINT": "http://127.0.0.1:50342/oauth2/token"], steps: [Self.token()])
        #expect(shell.source == .cloudShell)
        _ = try await shell.acquireToken(forResource: Self.resource)
        let post = try #require(shellTransport.requests.first)
        #expect(post.method == .post)
        #expect(post.formParameters.map { "\($0.0)=\($0.1)" } == ["resource=\(Self.resource)"])
        #expect(post.headers["Metadata"] == "true")
        let userAssigned = try Self.app(
            .userAssigned(.clientID("c")), environment: ["MSI_ENDPOINT": "http://127.0.0.1:50342/oauth2/token"], steps: [])
        #expect(
            await Self.msalError { _ = try await userAssigned.0.acquireToken(forResource: Self.resource) }?.internalCode
                == .managedIdentityNotSupported)

        let environment = [
            "MSI_ENDPOINT": "http://127.0.0.1:46808/msi/token", "MSI_SECRET": "ml-secret", "DEFAULT_IDENTITY_CLIENT_ID": "default-client",
        ]
        let (ml, mlTransport, _) = try Self.app(environment: environment, steps: [Self.token()])
        #expect(ml.source == .machineLearning)
        _ = try await ml.acquireToken(forResource: Self.resource)
        #expect(
            Self.query(try #require(mlTransport.requests.first)) == [
                "api-version": "2017-09-01", "resource": Self.resource, "clientid": "default-client",
            ])
        #expect(mlTransport.requests.first?.headers["secret"] == "ml-secret")
        let noDefault = try Self.app(environment: environment.filter { $0.key != "DEFAULT_IDENTITY_CLIENT_ID" }, steps: [])
        #expect(
            await Self.msalError { _ = try await noDefault.0.acquireToken(forResource: Self.resource) }?.internalCode
                == .managedIdentityNotSupported)
    }

    /// A scratch directory standing for the Arc agent's token directory.
    final class ArcDirectory {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("msal-arc-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func write(_ name: String, _ text: String) throws -> String {
            let file = (path as NSString).appendingPathComponent(name)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            return file
        }
    }

    static func challenge(_ realm: String) -> QueueTransport.Step {
        status(401, #"{"error":"unauthorized"}"#, headers: ["WWW-Authenticate": "Basic realm=\(realm)"])
    }

    @Test(
        "Azure Arc: the 401 challenge's key file in the agent's directory is read and sent back as Basic; only the system-assigned identity"
    )
    func arc() async throws {
        let directory = try ArcDirectory()
        let file = try directory.write("4f2a.key", "arc-secret-value")
        let environment = [
            "IDENTITY_ENDPOINT": "http://127.0.0.1:40342/metadata/identity/oauth2/token", "IMDS_ENDPOINT": "http://127.0.0.1:40342",
        ]
        let (app, transport, _) = try Self.app(
            environment: environment, steps: [Self.challenge(file), Self.token()], arcDirectory: directory.path)
        #expect(app.source == .azureArc)
        #expect(try await app.acquireToken(forResource: Self.resource).accessToken == "mi-token")
        #expect(transport.callCount == 2)
        #expect(transport.requests[0].headers["Authorization"] == nil)
        #expect(transport.requests[1].headers["Authorization"] == "Basic arc-secret-value")
        #expect(Self.query(transport.requests[1]) == ["api-version": "2020-06-01", "resource": Self.resource])
        #expect(transport.requests.allSatisfy { $0.headers["Metadata"] == "true" })

        let userAssigned = try Self.app(.userAssigned(.clientID("c")), environment: environment, steps: [], arcDirectory: directory.path)
        #expect(
            await Self.msalError { _ = try await userAssigned.0.acquireToken(forResource: Self.resource) }?.internalCode
                == .managedIdentityNotSupported)
    }

    @Test(
        "Azure Arc: a challenge naming a file elsewhere, a link, a file not named .key, one over 4096 bytes, one not printable ASCII, or no challenge is refused; nothing is sent back"
    )
    func arcRefusals() async throws {
        let directory = try ArcDirectory()
        let elsewhere = try ArcDirectory()
        let outside = try elsewhere.write("x.key", "stolen")
        let big = try directory.write("big.key", String(repeating: "a", count: 4097))
        let notKey = try directory.write("secret.txt", "s")
        let target = try directory.write("real.key", "s")
        let notText = (directory.path as NSString).appendingPathComponent("bytes.key")
        try Data([0x61, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: notText))
        let twoLines = try directory.write("lines.key", "abc\r\nInjected: 1")
        let link = (directory.path as NSString).appendingPathComponent("link.key")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let traversal = directory.path + "/../" + ((elsewhere.path as NSString).lastPathComponent) + "/x.key"
        let environment = [
            "IDENTITY_ENDPOINT": "http://127.0.0.1:40342/metadata/identity/oauth2/token", "IMDS_ENDPOINT": "http://127.0.0.1:40342",
        ]
        let cases: [(QueueTransport.Step, String)] = [
            (Self.challenge(outside), "outside"), (Self.challenge(traversal), "traversal"), (Self.challenge("/etc/passwd"), "passwd"),
            (Self.challenge(big), "big"), (Self.challenge(notKey), "not .key"), (Self.challenge(link), "link"),
            (Self.challenge((directory.path as NSString).appendingPathComponent("missing.key")), "missing"),
            (Self.challenge(notText), "not UTF-8"), (Self.challenge(twoLines), "line break"),
            (Self.status(401, "{}"), "no header"), (Self.status(401, "{}", headers: ["WWW-Authenticate": "Bearer realm=x"]), "not basic"),
        ]
        for (step, name) in cases {
            let (app, transport, _) = try Self.app(environment: environment, steps: [step, Self.token()], arcDirectory: directory.path)
            let error = await Self.msalError { _ = try await app.acquireToken(forResource: Self.resource) }
            #expect(error?.internalCode == .managedIdentityChallengeRejected, "\(name): \(String(describing: error))")
            #expect(transport.callCount == 1, "\(name): nothing sent back")
            #expect(error.map { !$0.message.contains("stolen") } == true)
        }
        let (noChallenge, _, _) = try Self.app(environment: environment, steps: [Self.token()], arcDirectory: directory.path)
        let error = await Self.msalError { _ = try await noChallenge.acquireToken(forResource: Self.resource) }
        #expect(error?.internalCode == .managedIdentityRequestFailed)
    }

    @Test(
        "Past refresh_on a new token is fetched; while the source fails the cached token is returned; concurrent callers share one request")
    func refreshAndConcurrency() async throws {
        let (app, transport, clock) = try Self.app(steps: [Self.token("one"), Self.status(400, "{}"), Self.token("two")])
        let tasks = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await app.acquireToken(forResource: Self.resource).accessToken } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(tasks) == ["one"])
        #expect(transport.callCount == 1)
        clock.advance(by: 43_200)
        let stale = try await app.acquireToken(forResource: Self.resource)
        #expect(stale.accessToken == "one", "the source failed: the still-valid token")
        #expect(stale.tokenSource == .cache)
        let fresh = try await app.acquireToken(forResource: Self.resource)
        #expect(fresh.accessToken == "two")
        #expect(transport.callCount == 3)
    }

    @Test("Bad input: an empty or spaced resource; a response without a token or expiry, expired, not JSON, or with a foreign token type")
    func badInput() async throws {
        let (app, transport, _) = try Self.app(steps: [])
        for resource in ["", "  ", "/.default", "a b"] {
            #expect(
                await Self.msalError { _ = try await app.acquireToken(forResource: resource) }?.internalCode
                    == .internalErrorInvalidParameter)
        }
        #expect(transport.callCount == 0)
        #expect(throws: MSALFailure.self) { try MSALManagedIdentityApplication(identity: .userAssigned(.clientID(" "))) }
        for body in [
            #"{"expires_in":"3600"}"#, #"{"access_token":"t"}"#, #"{"access_token":"t","expires_in":"soon"}"#,
            #"{"access_token":"t","expires_on":"1000000000"}"#, "<html>", #"{"access_token":"t","expires_in":60,"token_type":"pop"}"#,
            #"{"access_token":"t","expires_in":"0"}"#,
        ] {
            let (bad, _, _) = try Self.app(steps: [.respond(.json(200, body))])
            let error = await Self.msalError { _ = try await bad.acquireToken(forResource: Self.resource) }
            #expect(error?.internalCode == .managedIdentityRequestFailed, "\(body)")
        }
    }

    @Test("The cache file: an app token under client id system_assigned_managed_identity, environment localhost, realm managed_identity")
    func cacheFile() async throws {
        let directory = try ArcDirectory()
        let path = (directory.path as NSString).appendingPathComponent("cache.json")
        let (app, _, _) = try Self.app(steps: [Self.token()], cache: MSALCacheConfig(storage: .file(path: path)))
        _ = try await app.acquireToken(forResource: Self.resource)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let tokens = try #require(json?["AccessToken"] as? [String: [String: Any]])
        let entry = try #require(tokens.values.first)
        #expect(tokens.count == 1)
        #expect(entry["home_account_id"] is NSNull)
        #expect(entry["client_id"] as? String == "system_assigned_managed_identity")
        #expect(entry["environment"] as? String == "localhost")
        #expect(entry["realm"] as? String == "managed_identity")
        #expect(entry["target"] as? String == Self.resource)
        #expect(entry["secret"] as? String == "mi-token")
        // Another application on the same file answers from it.
        let (second, transport, _) = try Self.app(steps: [], cache: MSALCacheConfig(storage: .file(path: path)))
        #expect(try await second.acquireToken(forResource: Self.resource).tokenSource == .cache)
        #expect(transport.callCount == 0)
    }
}
