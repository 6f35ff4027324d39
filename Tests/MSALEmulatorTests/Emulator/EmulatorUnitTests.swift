import Foundation
import Testing

@testable import MSALEmulator

@Suite("Emulator parts: configuration checks, redirect URI matching, scopes, forms, faults")
struct EmulatorUnitTests {
    @Test("The sample configuration is valid; inconsistent ones are refused with a reason")
    func configurationValidation() throws {
        try MSALEmulator.Configuration.sample.validate()
        func refused(
            _ change: (inout MSALEmulator.Configuration) -> Void, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            var configuration = MSALEmulator.Configuration.sample
            change(&configuration)
            #expect(sourceLocation: sourceLocation) {
                try configuration.validate()
            } throws: { error in
                guard let error = error as? MSALEmulatorError else { return false }
                return error.code == .invalidConfiguration && error.message.contains(fragment)
            }
        }
        refused({ $0.tenants = [] }, "no tenants")
        refused({ $0.tenants[0].id = "not-a-guid" }, "not a GUID")
        refused({ $0.tenants[1].id = $0.tenants[0].id }, "listed twice")
        refused({ $0.tenants[0].domain = "common" }, "not a domain")
        refused({ $0.users[1].username = $0.users[0].username.uppercased() }, "used twice")
        refused({ $0.users[0].tenantID = "11111111-1111-1111-1111-111111111111" }, "unknown home tenant")
        refused({ $0.users[1].objectID = $0.users[0].objectID }, "object id")
        refused({ $0.users[2].guestProfiles[0].tenantID = $0.users[2].tenantID }, "guest")
        refused({ $0.users[0].username = "two words" }, "spaces")
        refused({ $0.clients[1].clientID = $0.clients[0].clientID }, "registered twice")
        refused({ $0.clients[0].clientID = "a b" }, "URL-safe")
        refused({ $0.clients[0].redirectURIs = ["http://localhost/#frag"] }, "redirect URI")
        refused({ $0.autoSignIn = "nobody@example" }, "autoSignIn")
        #expect(throws: MSALEmulatorError.self) {
            _ = try MSALEmulator(configuration: MSALEmulator.Configuration(tenants: [], users: [], clients: []))
        }
    }

    @Test("Loopback redirect URIs match on any port; others only exactly")
    func redirectMatching() {
        let registered = ["http://localhost", "http://127.0.0.1/callback", "https://app.example/auth", "msal.app://auth"]
        let matching = [
            "http://localhost", "http://localhost/", "http://localhost:5000", "http://localhost:5000/", "http://LOCALHOST:1/",
            "http://127.0.0.1:65535/callback", "https://app.example/auth", "msal.app://auth",
        ]
        let refused = [
            "http://localhost:5000/other", "http://127.0.0.1:80/", "http://[::1]:5000/", "https://localhost:5000/",
            "http://localhost:5000/?x=1",
            "http://localhost:0/", "http://localhost:99999/", "http://user@localhost/", "https://app.example/auth/",
            "https://APP.example/auth",
            "http://localhost/#f", "", "localhost", "http://", "http://localhost:/", "http://localhost :5000/",
        ]
        for uri in matching { #expect(RedirectURIMatcher.matches(uri, registered: registered), "\(uri)") }
        for uri in refused { #expect(!RedirectURIMatcher.matches(uri, registered: registered), "\(uri)") }
        #expect(
            RedirectURIMatcher.appending([("code", "a b&c"), ("state", "s")], to: "http://localhost:1/")
                == "http://localhost:1/?code=a%20b%26c&state=s")
        #expect(
            RedirectURIMatcher.appending([("code", "x")], to: "https://app.example/auth?tenant=1")
                == "https://app.example/auth?tenant=1&code=x")
    }

    @Test("Scopes: OpenID scopes apart, one resource, Graph for bare names, invalid ones refused")
    func scopes() throws {
        let graph = try EmulatorScope.parse("User.Read openid profile offline_access Mail.Read")
        #expect(graph.resource == MSALEmulator.graphResource)
        #expect(graph.permissions == ["User.Read", "Mail.Read"])
        #expect(graph.openIDScopes == ["openid", "profile", "offline_access"])
        #expect(graph.granted == "User.Read Mail.Read openid profile")
        #expect(graph.includesOfflineAccess && graph.includesOpenID)

        let prefixed = try EmulatorScope.parse("https://graph.microsoft.com/User.Read User.ReadBasic.All")
        #expect(prefixed.resource == MSALEmulator.graphResource)

        let api = try EmulatorScope.parse("api://contoso-api/.default openid")
        #expect(api.resource == "api://contoso-api")
        #expect(api.permissions == ["user_impersonation"])

        let onlyOpenID = try EmulatorScope.parse("openid offline_access")
        #expect(onlyOpenID.resource == MSALEmulator.graphResource)
        #expect(onlyOpenID.permissions == ["User.Read"])
        #expect(onlyOpenID.granted == "User.Read openid")

        for bad in ["", "   ", "User.Read api://other/x", "api://x/", "/x", "api://", "a\u{7F}b", String(repeating: "s", count: 513)] {
            #expect(throws: EmulatorOAuthError.self, "\(bad)") { _ = try EmulatorScope.parse(bad) }
        }
        #expect(throws: EmulatorOAuthError.self) { _ = try EmulatorScope.parse((0..<65).map { "s\($0)" }.joined(separator: " ")) }
    }

    @Test("Form and query parsing: order kept, + and %XX decoded, bad escapes and non-UTF-8 refused, duplicates found")
    func parameters() throws {
        let parsed = try #require(EmulatorParameters(parsing: Array("a=1&b=x+y%20z&empty=&flag&a=2&&c=%E2%9C%93".utf8)))
        #expect(parsed.pairs.map(\.name) == ["a", "b", "empty", "flag", "a", "c"])
        #expect(parsed["a"] == "1")
        #expect(parsed["b"] == "x y z")
        #expect(parsed["empty"] == "")
        #expect(parsed.nonEmpty("empty") == nil)
        #expect(parsed["flag"] == "")
        #expect(parsed["c"] == "✓")
        #expect(parsed.duplicatedName == "a")
        for bad in ["a=%", "a=%4", "a=%zz", "a=%FF", "%C3%28=1"] {
            #expect(EmulatorParameters(parsing: Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(EmulatorParameters(parsing: [UInt8]())?.pairs.isEmpty == true)
    }

    @Test("Text helpers: HTML escaping, sanitizing, timestamps, correlation ids")
    func text() {
        #expect(EmulatorText.html("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(EmulatorText.sanitized("a\u{0}b\r\nc", limit: 10) == "abc")
        #expect(EmulatorText.sanitized("abcdef", limit: 3) == "abc…")
        #expect(EmulatorText.timestamp(Date(timeIntervalSince1970: 1_645_229_558)) == "2022-02-19 00:12:38Z")
        #expect(EmulatorText.correlationID("0F8FAD5B-D9CB-469F-A165-70867728950E") == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(EmulatorText.correlationID("<script>") == nil)
        #expect(EmulatorText.correlationID("") == nil)
        #expect(EmulatorText.isGUID("0b7e7b3c-6f3a-4c47-9a53-2f6a3d0c5e11"))
        #expect(!EmulatorText.isGUID("0b7e7b3c-6f3a-4c47-9a53-2f6a3d0c5e1g"))
    }

    @Test("The sign-in form reader finds the action, hidden fields (unescaped) and the user buttons")
    func signInFormReader() throws {
        let users = MSALEmulator.Configuration.sample.users
        let html = EmulatorPages.signIn(
            action: "/common/oauth2/v2.0/authorize", parameters: [("state", "a\"b<c>&'"), ("scope", "User.Read openid")],
            clientName: "<App>", tenantName: "T", users: users)
        let form = try #require(SignInForm(html: html))
        #expect(form.action == "/common/oauth2/v2.0/authorize")
        #expect(form.hiddenFields.map(\.0) == ["state", "scope"])
        #expect(form.hiddenFields.first?.1 == "a\"b<c>&'")
        #expect(form.users == users.map(\.username))
        #expect(!html.contains("<App>"))
        #expect(SignInForm(html: "<html><form action=\"/x\"></form></html>") == nil)
    }

    @Test("Faults match by endpoint, grant, client and user, are used up after their count, and delays add up")
    func faultMatching() {
        var state = EmulatorState(lifetimes: MSALEmulator.Lifetimes())
        state.faults = [
            (1, MSALEmulator.Fault(.delay(seconds: 0.5), times: 2)),
            (2, MSALEmulator.Fault(.invalidGrant(), grantType: .refreshToken, username: "Ben@Contoso.example", times: 1)),
            (3, MSALEmulator.Fault(.throttled(retryAfter: 3), clientID: "app")),
            (4, MSALEmulator.Fault(.serverError(), endpoint: .keys)),
        ]
        let first = state.takeFaults(endpoint: .token, grantType: .refreshToken, clientID: "app", username: "ben@contoso.example")
        #expect(first.delay == 0.5)
        #expect(first.response == .invalidGrant())
        let second = state.takeFaults(endpoint: .token, grantType: .refreshToken, clientID: "app", username: "ben@contoso.example")
        #expect(second.delay == 0.5)
        #expect(second.response == .throttled(retryAfter: 3))
        let third = state.takeFaults(endpoint: .token, grantType: .authorizationCode, clientID: "other", username: nil)
        #expect(third.delay == 0)
        #expect(third.response == nil)
        #expect(state.faults.map(\.id) == [3, 4])
        #expect(state.takeFaults(endpoint: .keys, grantType: nil, clientID: nil, username: nil).response == .serverError())
        #expect(state.faults.map(\.id) == [3, 4])
    }

    @Test("Fault answers have the AAD shape and the status and Retry-After asked for")
    func faultAnswers() throws {
        let throttled = EmulatorOAuthError.fault(.throttled(retryAfter: 7))
        #expect(throttled.status == 429)
        #expect(throttled.headers.contains { $0.name == "Retry-After" && $0.value == "7" })
        #expect(EmulatorOAuthError.fault(.serverError(status: 503)).error == "temporarily_unavailable")
        #expect(EmulatorOAuthError.fault(.serverError(status: 200)).status == 500)
        let custom = EmulatorOAuthError.fault(.oauthError(error: "invalid_client", errorCode: 7000218, description: "no secret"))
        let response = custom.response(traceID: "t", correlationID: "c", now: Date(timeIntervalSince1970: 0))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(body["error"] as? String == "invalid_client")
        #expect(body["error_codes"] as? [Int] == [7000218])
        #expect(
            body["error_description"] as? String
                == "AADSTS7000218: no secret\r\nTrace ID: t\r\nCorrelation ID: c\r\nTimestamp: 1970-01-01 00:00:00Z")
        #expect(body["timestamp"] as? String == "1970-01-01 00:00:00Z")
        #expect(body["trace_id"] as? String == "t")
        #expect(body["correlation_id"] as? String == "c")
        #expect(body["suberror"] == nil)
    }

    @Test("Admin calls: inject/remove faults, lifetimes, unknown users refused, start twice refused, restart after shutdown")
    func adminCalls() async throws {
        let emulator = try MSALEmulator(configuration: .sample)
        let id = emulator.inject(.init(.invalidGrant()))
        emulator.inject(.init(.serverError(), times: 0))
        #expect(emulator.faults.count == 1)
        emulator.removeFault(id)
        #expect(emulator.faults.isEmpty)
        emulator.inject(.init(.invalidGrant()))
        emulator.removeAllFaults()
        #expect(emulator.faults.isEmpty)

        emulator.setLifetimes(.init(accessToken: 0, deviceCodeInterval: -3))
        #expect(emulator.lifetimes.accessToken == 1)
        #expect(emulator.lifetimes.deviceCodeInterval == 0)
        #expect(throws: MSALEmulatorError.self) { try emulator.revokeRefreshTokens(of: "nobody") }
        #expect(throws: MSALEmulatorError.self) { try emulator.expireRefreshTokens(of: "nobody") }
        #expect(throws: MSALEmulatorError.self) { try emulator.revokeAccessTokens(of: "nobody") }

        let before = emulator.now
        emulator.advanceClock(by: 3600)
        emulator.advanceClock(by: .nan)
        #expect(emulator.now.timeIntervalSince(before) >= 3600)

        #expect(emulator.port == 0)
        let url = try await emulator.start()
        #expect(emulator.isRunning)
        #expect(url.absoluteString == "http://127.0.0.1:\(emulator.port)")
        #expect(emulator.authorityURL(tenant: "common").absoluteString == "\(url.absoluteString)/common")
        await #expect(throws: MSALEmulatorError.self) { try await emulator.start() }
        try await emulator.shutdown()
        #expect(!emulator.isRunning)
        try await emulator.start()
        #expect(try await RawResponse.send("GET", emulator.baseURL).status == 200)
        try await emulator.shutdown()
        try await emulator.shutdown()
        #expect(emulator.requests.count == 1)
        emulator.clearRequestLog()
        #expect(emulator.requests.isEmpty)
    }
}
