import Foundation
import MSALEmulator
import MSALJOSE
import MSALJSON
import Testing

@Suite("Emulator bad inputs: every endpoint answers 4xx (an AAD error or an error page), never crashes")
struct BadInputTests {
    /// One request and what must come back.
    struct Case: Sendable {
        var name: String
        var method = "GET"
        var path: String
        var headers: [(String, String)] = []
        var form: [(String, String)]?
        var body: [UInt8]?
        var status: Int
        /// The `error` of a JSON answer, or of the redirect's query.
        var error: String?
        var code: Int?
    }

    private static let client = EmulatorHarness.clientID
    private static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    private static func authorize(_ parameters: [(String, String)], tenant: String = "common") -> String {
        "/\(tenant)/oauth2/v2.0/authorize?" + RawResponse.formEncoded(parameters)
    }

    private static let good: [(String, String)] = [
        ("client_id", client), ("response_type", "code"), ("redirect_uri", "http://localhost:4000/"), ("scope", "User.Read openid"),
        ("state", "s"), ("code_challenge", challenge), ("code_challenge_method", "S256"),
    ]

    private static func replacing(_ name: String, with value: String?) -> [(String, String)] {
        var parameters = good.filter { $0.0 != name }
        if let value { parameters.append((name, value)) }
        return parameters
    }

    static let authorizeCases: [Case] = [
        Case(name: "authorize: no parameters → page", path: authorize([]), status: 400),
        Case(name: "authorize: unknown client → page", path: authorize(replacing("client_id", with: "nope")), status: 400, code: 700016),
        Case(
            name: "authorize: unregistered redirect → page, no redirect",
            path: authorize(replacing("redirect_uri", with: "http://evil.example/")),
            status: 400, code: 50011),
        Case(
            name: "authorize: redirect with a fragment → page",
            path: authorize(replacing("redirect_uri", with: "http://localhost:4000/#x")),
            status: 400, code: 50011),
        Case(name: "authorize: duplicated client_id → page", path: authorize(good + [("client_id", client)]), status: 400, code: 9000411),
        Case(name: "authorize: unknown tenant → page", path: authorize(good, tenant: "nowhere.example"), status: 400, code: 90002),
        Case(name: "authorize: consumers is not hosted → page", path: authorize(good, tenant: "consumers"), status: 400, code: 90002),
        Case(name: "authorize: bad percent escape → page", path: "/common/oauth2/v2.0/authorize?client_id=%zz", status: 400),
        Case(
            name: "authorize: no code_challenge → error redirect", path: authorize(replacing("code_challenge", with: nil)), status: 302,
            error: "invalid_request"),
        Case(
            name: "authorize: plain PKCE → error redirect", path: authorize(replacing("code_challenge_method", with: "plain")), status: 302,
            error: "invalid_request"),
        Case(
            name: "authorize: short code_challenge → error redirect", path: authorize(replacing("code_challenge", with: "abc")),
            status: 302,
            error: "invalid_request"),
        Case(
            name: "authorize: response_type=token → error redirect", path: authorize(replacing("response_type", with: "token")),
            status: 302,
            error: "unsupported_response_type"),
        Case(
            name: "authorize: no scope → error redirect", path: authorize(replacing("scope", with: nil)), status: 302,
            error: "invalid_request"),
        Case(
            name: "authorize: two resources → error redirect", path: authorize(replacing("scope", with: "User.Read api://other/read")),
            status: 302, error: "invalid_scope"),
        Case(
            name: "authorize: unknown prompt → error redirect", path: authorize(good + [("prompt", "always")]), status: 302,
            error: "invalid_request"),
        Case(
            name: "authorize: response_mode=fragment → error redirect", path: authorize(good + [("response_mode", "fragment")]),
            status: 302,
            error: "invalid_request"),
        Case(
            name: "authorize: POST that is not a form → page", method: "POST", path: "/common/oauth2/v2.0/authorize",
            body: Array("{}".utf8),
            status: 400),
        Case(
            name: "authorize: POST for an unknown user → page", method: "POST", path: "/common/oauth2/v2.0/authorize",
            form: good + [("emulator_user", "mallory@example")], status: 400, code: 50034),
        Case(name: "authorize: POST without a user → page", method: "POST", path: "/common/oauth2/v2.0/authorize", form: good, status: 400),
        Case(name: "authorize: PUT → 405", method: "PUT", path: authorize(good), status: 405),
    ]

    private static let token = "/common/oauth2/v2.0/token"

    static let tokenCases: [Case] = [
        Case(name: "token: GET → 405", path: token, status: 405, error: "invalid_request", code: 900561),
        Case(
            name: "token: JSON body", method: "POST", path: token, headers: [("Content-Type", "application/json")], body: Array("{}".utf8),
            status: 400, error: "invalid_request"),
        Case(name: "token: empty form", method: "POST", path: token, form: [], status: 400, error: "invalid_request", code: 900144),
        Case(
            name: "token: unknown client", method: "POST", path: token, form: [("client_id", "nope"), ("grant_type", "refresh_token")],
            status: 400, error: "unauthorized_client", code: 700016),
        Case(
            name: "token: no grant_type", method: "POST", path: token, form: [("client_id", client)], status: 400, error: "invalid_request"),
        Case(
            name: "token: password grant", method: "POST", path: token, form: [("client_id", client), ("grant_type", "password")],
            status: 400,
            error: "unsupported_grant_type", code: 70003),
        Case(
            name: "token: duplicated parameter", method: "POST", path: token,
            form: [("client_id", client), ("grant_type", "refresh_token"), ("grant_type", "refresh_token")], status: 400, code: 9000411),
        Case(
            name: "token: code grant without a code", method: "POST", path: token,
            form: [("client_id", client), ("grant_type", "authorization_code"), ("scope", "User.Read")], status: 400,
            error: "invalid_request"),
        Case(
            name: "token: unknown code", method: "POST", path: token,
            form: [
                ("client_id", client), ("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", "http://localhost"),
                ("code_verifier", String(repeating: "a", count: 43)), ("scope", "User.Read"),
            ],
            status: 400, error: "invalid_grant"),
        Case(
            name: "token: garbage refresh token", method: "POST", path: token,
            form: [("client_id", client), ("grant_type", "refresh_token"), ("refresh_token", "garbage"), ("scope", "User.Read")],
            status: 400,
            error: "invalid_grant", code: 9002313),
        Case(
            name: "token: refresh without a scope", method: "POST", path: token,
            form: [("client_id", client), ("grant_type", "refresh_token"), ("refresh_token", "garbage")], status: 400,
            error: "invalid_request"),
        Case(
            name: "token: garbage device code", method: "POST", path: token,
            form: [("client_id", client), ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", "x")],
            status: 400,
            error: "bad_verification_code"),
        Case(
            name: "token: non-UTF-8 form value", method: "POST", path: token,
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array("client_id=%FF%FE".utf8), status: 400, error: "invalid_request"),
        Case(
            name: "token: broken percent escape", method: "POST", path: token,
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array("client_id=%4".utf8), status: 400, error: "invalid_request"),
        Case(
            name: "token: control characters in scope", method: "POST", path: token,
            form: [("client_id", client), ("grant_type", "refresh_token"), ("refresh_token", "x"), ("scope", "User.Read\u{1}")],
            status: 400,
            error: "invalid_scope"),
        Case(
            name: "token: consumers", method: "POST", path: "/consumers/oauth2/v2.0/token", form: [("client_id", client)], status: 400,
            error: "invalid_tenant", code: 90002),
        Case(
            name: "devicecode: no client", method: "POST", path: "/common/oauth2/v2.0/devicecode", form: [("scope", "User.Read")],
            status: 400,
            error: "invalid_request"),
        Case(
            name: "devicecode: no scope", method: "POST", path: "/common/oauth2/v2.0/devicecode", form: [("client_id", client)],
            status: 400,
            error: "invalid_request"),
        Case(
            name: "devicecode: unknown client", method: "POST", path: "/common/oauth2/v2.0/devicecode",
            form: [("client_id", "nope"), ("scope", "User.Read")], status: 400, error: "unauthorized_client"),
        Case(name: "devicecode: GET → 405", path: "/common/oauth2/v2.0/devicecode", status: 405, error: "invalid_request"),
    ]

    static let otherCases: [Case] = [
        Case(
            name: "instance discovery: another host",
            path: "/common/discovery/instance?api-version=1.1&authorization_endpoint=https://evil.example/common/oauth2/v2.0/authorize",
            status: 400, error: "invalid_instance", code: 50049),
        Case(
            name: "instance discovery: no authorization_endpoint", path: "/common/discovery/instance?api-version=1.1", status: 400,
            error: "invalid_request"),
        Case(
            name: "openid-configuration: unknown tenant", path: "/nowhere/v2.0/.well-known/openid-configuration", status: 400,
            error: "invalid_tenant", code: 90002),
        Case(name: "keys: unknown tenant", path: "/nowhere/discovery/v2.0/keys", status: 400, error: "invalid_tenant"),
        Case(name: "keys: POST → 405", method: "POST", path: "/common/discovery/v2.0/keys", form: [], status: 405),
        Case(name: "resource: no Authorization", path: "/resource/me", status: 401),
        Case(
            name: "resource: Basic credentials", path: "/resource/me", headers: [("Authorization", "Basic YTpi")], status: 401,
            error: "invalid_token"),
        Case(
            name: "resource: garbage token", path: "/resource/me", headers: [("Authorization", "Bearer a.b.c")], status: 401,
            error: "invalid_token"),
        Case(
            name: "resource: alg none", path: "/resource/me",
            headers: [("Authorization", "Bearer eyJhbGciOiJub25lIn0.eyJ0aWQiOiJ4In0.")], status: 401, error: "invalid_token"),
        Case(
            name: "devicelogin: unknown code", method: "POST", path: "/devicelogin", form: [("user_code", "ZZZZ"), ("emulator_user", "x")],
            status: 400),
        Case(name: "devicelogin: no code", method: "POST", path: "/devicelogin", form: [], status: 400),
        Case(name: "unknown path", path: "/common/oauth2/v2.0/nothing", status: 404),
        Case(name: "deep unknown path", path: "/a/b/c/d/e/f/g", status: 404),
    ]

    @Test("Each bad request gets the documented answer (authorize, token and device code, discovery, resource, pages)")
    func badRequests() async throws {
        try await EmulatorHarness.with { harness in
            for testCase in Self.authorizeCases + Self.tokenCases + Self.otherCases {
                try await Self.check(testCase, harness)
            }
        }
    }

    private static func check(_ testCase: Case, _ harness: EmulatorHarness) async throws {
        let name = Comment(rawValue: testCase.name)
        let response = try await harness.call(
            testCase.method, testCase.path, headers: testCase.headers, form: testCase.form, body: testCase.body)
        #expect(response.status == testCase.status, "\(testCase.name): \(response.text.prefix(300))")
        #expect(response.headers["x-ms-request-id"] != nil, name)
        if testCase.status == 302 {
            #expect(response.locationQuery["error"] == testCase.error, name)
            #expect(response.locationQuery["state"] == "s", name)
            #expect(response.headers["location"]?.hasPrefix("http://localhost:4000/?") == true, name)
        } else {
            #expect(response.headers["location"] == nil, name)
            if let error = testCase.error { #expect(response.error == error, name) }
            if let code = testCase.code {
                if response.headers["content-type"]?.hasPrefix("application/json") == true {
                    #expect(response.errorCodes == [code], name)
                    #expect((response.json["error_description"] as? String)?.hasPrefix("AADSTS\(code):") == true, name)
                    #expect(response.json["trace_id"] as? String == response.headers["x-ms-request-id"], name)
                } else {
                    #expect(response.text.contains("AADSTS\(code)"), name)
                }
            }
        }
        let record = harness.emulator.requests.last
        #expect(record?.status == testCase.status, name)
    }

    @Test("The correlation id is echoed in the error body and, when asked, in the client-request-id header")
    func correlation() async throws {
        try await EmulatorHarness.with { harness in
            let id = "0f8fad5b-d9cb-469f-a165-70867728950e"
            let response = try await harness.call(
                "POST", "/common/oauth2/v2.0/token", headers: [("client-request-id", id), ("return-client-request-id", "true")],
                form: [
                    ("client_id", EmulatorHarness.clientID), ("grant_type", "refresh_token"), ("refresh_token", "x"),
                    ("scope", "User.Read"),
                ])
            #expect(response.json["correlation_id"] as? String == id)
            #expect(response.headers["client-request-id"] == id)
            #expect((response.json["error_description"] as? String)?.contains("Correlation ID: \(id)") == true)
            #expect(response.headers["x-ms-clitelem"] == "1,9002313,0,,")
            let hostile = try await harness.call(
                "GET", "/resource/me", headers: [("client-request-id", "<script>"), ("return-client-request-id", "true")])
            #expect(hostile.headers["client-request-id"] == nil)
        }
    }

    @Test("The protected resource refuses tokens of another key, another audience, or revoked")
    func resourceRefusals() async throws {
        try await EmulatorHarness.with { harness in
            let flow = RawFlow(harness: harness)
            let pkce = try PKCE.generate()
            let tokens = try await flow.redeem(try await flow.code(pkce: pkce), verifier: pkce.verifier)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            #expect(try await harness.resource("Bearer \(accessToken)").status == 200)

            // The same claims signed with another key.
            let claims = try JWT.decodeUnverified(accessToken)
            let forger = try JWSSigningKey.generateRSA(keyID: try #require(claims.keyID))
            let forged = try forger.sign(claims: JSON(claims.claims.root))
            let refusedForgery = try await harness.resource("Bearer \(forged)")
            #expect(refusedForgery.status == 401)
            #expect(refusedForgery.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)

            var other = flow
            other.scope = "api://another-api/read openid offline_access"
            let otherTokens = try await other.redeem(try await other.code(pkce: pkce), verifier: pkce.verifier)
            let wrongAudience = try await harness.resource("Bearer \(try #require(otherTokens.json["access_token"] as? String))")
            #expect(wrongAudience.status == 401)

            try harness.emulator.revokeAccessTokens(of: EmulatorHarness.adele)
            #expect(try await harness.resource("Bearer \(accessToken)").status == 401)
        }
    }

    @Test(
        "Raw bytes: TLS, oversized heads, URIs and bodies, and pipelined requests get answers or a closed connection; the emulator keeps serving"
    )
    func rawBytes() async throws {
        var configuration = EmulatorHarness.configuration
        configuration.limits = .init(maximumBodyBytes: 4096, maximumURIBytes: 1024, maximumHeaderBytes: 2048)
        try await EmulatorHarness.with(configuration) { harness in
            let port = harness.emulator.port
            let tls: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00, 0x00, 0xA1, 0x03, 0x03] + Array(repeating: 0x41, count: 64)
            #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, tls)).allSatisfy { $0 == 400 })

            let longURI = "GET /" + String(repeating: "a", count: 2000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, Array(longURI.utf8))) == [414])

            let bigHeader = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + String(repeating: "b", count: 4000) + "\r\n\r\n"
            let headerStatuses = RawSocket.statuses(try await RawSocket.exchange(port: port, Array(bigHeader.utf8)))
            #expect(headerStatuses == [400] || headerStatuses == [431])

            let declared = "POST /common/oauth2/v2.0/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n"
            #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, Array(declared.utf8))) == [413])

            let chunk = String(repeating: "c", count: 3000)
            let chunked =
                "POST /common/oauth2/v2.0/token HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "bb8\r\n\(chunk)\r\nbb8\r\n\(chunk)\r\n0\r\n\r\n"
            #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, Array(chunked.utf8))) == [413])

            let garbage = "\u{0}\u{1}\u{2} NOT HTTP AT ALL\r\n\r\n"
            #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, Array(garbage.utf8))).allSatisfy { $0 == 400 })

            let absolute = "GET http://127.0.0.1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, Array(absolute.utf8))) == [400])

            let pipelined =
                "GET /common/discovery/v2.0/keys HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /common/v2.0/.well-known/openid-configuration HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, Array(pipelined.utf8))) == [200, 404, 200])

            let rebound =
                "GET /common/v2.0/.well-known/openid-configuration HTTP/1.1\r\nHost: attacker.example:\(port)\r\nConnection: close\r\n\r\n"
            #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, Array(rebound.utf8))) == [400])
            for host in ["localhost:\(port)", "[::1]:\(port)", "127.0.0.1"] {
                let loopback = "GET /common/v2.0/.well-known/openid-configuration HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"
                #expect(RawSocket.statuses(try await RawSocket.exchange(port: port, Array(loopback.utf8))) == [200], "\(host)")
            }

            #expect(try await harness.call("GET", "/common/v2.0/.well-known/openid-configuration").status == 200)
        }
    }

    @Test("Mutated requests (a fixed pseudo-random sequence) never stop the emulator")
    func mutatedRequests() async throws {
        try await EmulatorHarness.with { harness in
            let seed =
                "POST /common/oauth2/v2.0/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: 60\r\nConnection: close\r\n\r\nclient_id=\(EmulatorHarness.clientID)&grant_type=refresh_token&r"
            var generator = SplitMix64(seed: 0x5eed)
            for _ in 0..<150 {
                var bytes = Array(seed.utf8)
                for _ in 0..<Int(generator.next() % 6 + 1) {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
                    }
                }
                let answer = try await RawSocket.exchange(port: harness.emulator.port, bytes, closeOutput: true)
                #expect(RawSocket.statuses(answer).allSatisfy { (200..<500).contains($0) }, "\(answer.prefix(200))")
            }
            #expect(try await harness.call("GET", "/common/v2.0/.well-known/openid-configuration").status == 200)
        }
    }
}

/// A small deterministic generator (SplitMix64) so the mutations are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
