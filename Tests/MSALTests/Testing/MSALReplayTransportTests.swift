import Foundation
import MSALTesting
import Testing

@Suite("MSALReplayTransport: matching, consumption, diagnostics and concurrency")
struct MSALReplayTransportTests {
    /// A transport over a fixture with the given interactions (JSON array elements).
    static func transport(_ interactions: String...) throws -> MSALReplayTransport {
        let document = #"{"name":"test","description":"","interactions":["# + interactions.joined(separator: ",") + "]}"
        return MSALReplayTransport(fixture: try MSALRecordedFixture(data: Data(document.utf8)))
    }

    static func get(_ url: String, headers: MSALHTTPHeaders = [:]) -> MSALHTTPRequest {
        MSALHTTPRequest(method: .get, url: URL(string: url)!, headers: headers)
    }

    static func send(
        _ transport: MSALReplayTransport, _ request: MSALHTTPRequest,
        limits: MSALHTTPLimits = .default
    ) async throws -> MSALHTTPResponse {
        try await transport.send(request, limits: limits)
    }

    /// Sends `request`, expects it to match nothing, and returns the error message.
    static func unmatched(_ transport: MSALReplayTransport, _ request: MSALHTTPRequest) async -> String {
        let error = await #expect(throws: MSALFailure.self) { try await send(transport, request) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .networkFailure)
        return error?.message ?? ""
    }

    static let discovery =
        #"{"request":{"method":"GET","url":"https://Login.MicrosoftOnline.com/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.microsoftonline.com/common/oauth2/v2.0/authorize"},"response":{"status":200,"body":{"ok":true}}}"#

    @Test("Method must be equal, upper case")
    func method() async throws {
        let transport = try Self.transport(#"{"request":{"method":"GET","url":"https://a.example/x"},"response":{"status":200}}"#)
        let post = MSALHTTPRequest(method: .post, url: URL(string: "https://a.example/x")!, body: [])
        let message = await Self.unmatched(transport, post)
        #expect(message.contains("matches POST https://a.example/x"))
        #expect(message.contains("method differs (sent POST, recorded GET)"))
        let lower = MSALHTTPRequest(method: MSALHTTPRequest.Method(rawValue: "get"), url: URL(string: "https://a.example/x")!)
        #expect(await Self.unmatched(transport, lower).contains("method differs"))
        #expect(try await Self.send(transport, Self.get("https://a.example/x")).statusCode == 200)
    }

    @Test("Scheme and host ignore case; the port defaults by scheme")
    func origin() async throws {
        let transport = try Self.transport(
            Self.discovery,
            #"{"request":{"method":"GET","url":"http://127.0.0.1:8080/x"},"response":{"status":201}}"#,
            #"{"request":{"method":"GET","url":"https://b.example/x"},"response":{"status":202}}"#)
        let response = try await Self.send(
            transport,
            Self.get(
                "HTTPS://login.microsoftonline.COM/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.microsoftonline.com/common/oauth2/v2.0/authorize"
            ))
        #expect(response.body == Array(#"{"ok":true}"#.utf8))
        let message = await Self.unmatched(transport, Self.get("http://127.0.0.1:8081/x"))
        #expect(message.contains("origin differs (sent http://127.0.0.1:8081, recorded http://127.0.0.1:8080)"))
        #expect(try await Self.send(transport, Self.get("http://127.0.0.1:8080/x")).statusCode == 201)
        #expect(await Self.unmatched(transport, Self.get("http://b.example/x")).contains("origin differs"))
        #expect(try await Self.send(transport, Self.get("https://b.example:443/x")).statusCode == 202)
    }

    @Test("The path must be exactly equal")
    func path() async throws {
        let transport = try Self.transport(#"{"request":{"method":"GET","url":"https://a.example/common/x"},"response":{"status":200}}"#)
        #expect(
            await Self.unmatched(transport, Self.get("https://a.example/Common/x"))
                .contains("path differs (sent /Common/x, recorded /common/x)"))
        #expect(await Self.unmatched(transport, Self.get("https://a.example/common/x/")).contains("path differs"))
        #expect(try await Self.send(transport, Self.get("https://a.example/common/x")).statusCode == 200)
    }

    @Test("Query parameters compare as decoded pairs in any order")
    func query() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"GET","url":"https://a.example/q?b=2&a=1&s=x+y"},"response":{"status":200},"repeatable":true}"#,
            Self.discovery)
        #expect(try await Self.send(transport, Self.get("https://a.example/q?a=1&s=x%20y&b=2")).statusCode == 200)
        #expect(try await Self.send(transport, Self.get("https://a.example/q?s=x+y&b=2&a=1")).statusCode == 200)
        let missing = await Self.unmatched(transport, Self.get("https://a.example/q?a=1&s=x+y"))
        #expect(missing.contains("query differs (missing b=2)"))
        let extra = await Self.unmatched(transport, Self.get("https://a.example/q?a=1&b=2&s=x+y&c=3"))
        #expect(extra.contains("query differs (unexpected c=3)"))
        let repeated = await Self.unmatched(transport, Self.get("https://a.example/q?a=1&a=1&b=2&s=x+y"))
        #expect(repeated.contains("unexpected a=1"))
        let other = await Self.unmatched(transport, Self.get("https://a.example/q?a=2&b=2&s=x+y"))
        #expect(other.contains("missing a=1; unexpected a=2"))
        // A percent-encoded authorization_endpoint matches the fixture's literal one.
        let encoded =
            "https://login.microsoftonline.com/common/discovery/instance?authorization_endpoint=https%3A%2F%2Flogin.microsoftonline.com%2Fcommon%2Foauth2%2Fv2.0%2Fauthorize&api-version=1.1"
        #expect(try await Self.send(transport, Self.get(encoded)).statusCode == 200)
    }

    @Test("Recorded headers must be present with their value; names ignore case; others are fine")
    func headers() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"GET","url":"https://a.example/h","headers":{"x-client-SKU":"MSAL.Swift.Linux","Accept":"application/json"}},"response":{"status":200},"repeatable":true}"#
        )
        let good: MSALHTTPHeaders = ["X-CLIENT-SKU": "MSAL.Swift.Linux", "accept": "application/json", "client-request-id": "1"]
        #expect(try await Self.send(transport, Self.get("https://a.example/h", headers: good)).statusCode == 200)
        let wrong: MSALHTTPHeaders = ["x-client-sku": "MSAL.Python", "Accept": "application/json"]
        #expect(
            await Self.unmatched(transport, Self.get("https://a.example/h", headers: wrong))
                .contains(#"header x-client-SKU has another value (recorded "MSAL.Swift.Linux")"#))
        let missing: MSALHTTPHeaders = ["x-client-SKU": "MSAL.Swift.Linux"]
        #expect(
            await Self.unmatched(transport, Self.get("https://a.example/h", headers: missing))
                .contains("header Accept is missing"))
    }

    @Test("Recorded form parameters are a subset of the sent form body")
    func form() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"POST","url":"https://a.example/token","form":{"grant_type":"refresh_token","scope":"openid profile"}},"response":{"status":200},"repeatable":true}"#
        )
        let url = URL(string: "https://a.example/token")!
        let good = MSALHTTPRequest.form(
            url: url,
            parameters: [
                ("client_id", "c"), ("scope", "openid profile"), ("grant_type", "refresh_token"), ("refresh_token", "r"),
            ])
        #expect(try await Self.send(transport, good).statusCode == 200)
        let wrong = MSALHTTPRequest.form(url: url, parameters: [("grant_type", "authorization_code"), ("scope", "openid profile")])
        #expect(await Self.unmatched(transport, wrong).contains(#"form parameter grant_type has another value (recorded "refresh_token")"#))
        let missing = MSALHTTPRequest.form(url: url, parameters: [("grant_type", "refresh_token")])
        #expect(await Self.unmatched(transport, missing).contains("form parameter scope is missing"))
        let json = MSALHTTPRequest(method: .post, url: url, headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(await Self.unmatched(transport, json).contains("no application/x-www-form-urlencoded body"))
    }

    @Test("Non-repeatable interactions answer once each, the first available match wins")
    func orderedConsumption() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"GET","url":"https://a.example/poll"},"response":{"status":400,"body_text":"first"}}"#,
            #"{"request":{"method":"GET","url":"https://a.example/other"},"response":{"status":200,"body_text":"other"}}"#,
            #"{"request":{"method":"GET","url":"https://a.example/poll"},"response":{"status":200,"body_text":"second"}}"#)
        #expect(try await Self.send(transport, Self.get("https://a.example/poll")).body == Array("first".utf8))
        #expect(transport.unusedInteractions.count == 2)
        #expect(try await Self.send(transport, Self.get("https://a.example/poll")).body == Array("second".utf8))
        let message = await Self.unmatched(transport, Self.get("https://a.example/poll"))
        #expect(
            message.contains(
                "Closest: interactions[0] (GET https://a.example/poll): it matches, but it was already used and is not repeatable."))
        #expect(transport.unusedInteractions.map(\.request.url.path) == ["/other"])
        #expect(try await Self.send(transport, Self.get("https://a.example/other")).body == Array("other".utf8))
        #expect(transport.unusedInteractions.isEmpty)
        #expect(transport.sentRequests.map(\.url.path) == ["/poll", "/poll", "/poll", "/other"])
    }

    @Test("A repeatable interaction answers every time and is never reported unused")
    func repeatable() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"GET","url":"https://a.example/keys"},"response":{"status":200,"body":{"keys":[]}},"repeatable":true}"#,
            #"{"request":{"method":"GET","url":"https://a.example/meta"},"response":{"status":200},"repeatable":true}"#)
        for _ in 0..<3 {
            #expect(try await Self.send(transport, Self.get("https://a.example/keys")).body == Array(#"{"keys":[]}"#.utf8))
        }
        #expect(transport.unusedInteractions.isEmpty)
        try transport.verifyAllInteractionsUsed()
    }

    @Test("An unmatched request throws, names the request and the closest interaction, and is recorded")
    func unmatchedDiagnostics() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"POST","url":"https://login.microsoftonline.com/common/oauth2/v2.0/token"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","url":"https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration"},"response":{"status":200}}"#
        )
        let request = Self.get("https://login.microsoftonline.com/organizations/v2.0/.well-known/openid-configuration")
        let message = await Self.unmatched(transport, request)
        #expect(
            message
                == #"No recorded interaction of fixture "test" matches GET https://login.microsoftonline.com/organizations/v2.0/.well-known/openid-configuration. Closest: interactions[1] (GET https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration): path differs (sent /organizations/v2.0/.well-known/openid-configuration, recorded /common/v2.0/.well-known/openid-configuration)."#
        )
        #expect(transport.unmatchedRequests == [MSALReplayTransport.UnmatchedRequest(request: request, message: message)])
        #expect(transport.sentRequests == [request])

        let empty = try Self.transport()
        let none = await Self.unmatched(empty, Self.get("https://a.example/"))
        #expect(none == #"No recorded interaction of fixture "test" matches GET https://a.example/: the fixture has no interactions."#)
    }

    @Test("body_text replays byte for byte; body replays its compact JSON")
    func bodies() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"GET","url":"https://a.example/text"},"response":{"status":429,"headers":{"Retry-After":"120"},"body_text":"Too Many Requests\n{ not json, é }"}}"#,
            #"{"request":{"method":"GET","url":"https://a.example/jsontext"},"response":{"status":200,"headers":{"Content-Type":"application/json"},"body_text":"{ \"b\" : 1,\n  \"a\" : 2 }"}}"#,
            #"{"request":{"method":"GET","url":"https://a.example/json"},"response":{"status":200,"body":{"z": 1.50, "a": ["x\"y", null, true], "n": {}}}}"#,
            #"{"request":{"method":"GET","url":"https://a.example/empty"},"response":{"status":204,"headers":{"Set-Cookie":["a=1","b=2"]}}}"#
        )
        let text = try await Self.send(transport, Self.get("https://a.example/text"))
        #expect(text.statusCode == 429)
        #expect(text.body == Array("Too Many Requests\n{ not json, é }".utf8))
        #expect(text.headers["retry-after"] == "120")
        #expect(!text.headers.contains("Content-Type"))
        let jsonText = try await Self.send(transport, Self.get("https://a.example/jsontext"))
        #expect(jsonText.body == Array("{ \"b\" : 1,\n  \"a\" : 2 }".utf8))
        #expect(jsonText.headers.values(of: "content-type") == ["application/json"])
        let json = try await Self.send(transport, Self.get("https://a.example/json"))
        #expect(String(decoding: json.body, as: UTF8.self) == #"{"z":1.50,"a":["x\"y",null,true],"n":{}}"#)
        #expect(json.headers["Content-Type"] == "application/json; charset=utf-8")
        let empty = try await Self.send(transport, Self.get("https://a.example/empty"))
        #expect(empty.statusCode == 204)
        #expect(empty.body.isEmpty)
        #expect(empty.headers.values(of: "set-cookie") == ["a=1", "b=2"])
    }

    @Test("A recorded body over maximumResponseBodySize throws bodyTooLarge")
    func bodyTooLarge() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"GET","url":"https://a.example/big"},"response":{"status":200,"body_text":"0123456789A"}}"#,
            #"{"request":{"method":"GET","url":"https://a.example/fits"},"response":{"status":200,"body_text":"0123456789"}}"#)
        let limits = MSALHTTPLimits(maximumResponseBodySize: 10)
        let error = await #expect(throws: MSALFailure.self) {
            try await Self.send(transport, Self.get("https://a.example/big"), limits: limits)
        }
        #expect(error?.internalCode == .bodyTooLarge)
        #expect(error?.message.contains("11 bytes, more than the limit of 10") == true)
        #expect(try await Self.send(transport, Self.get("https://a.example/fits"), limits: limits).body.count == 10)
        try transport.verifyAllInteractionsUsed()
    }

    @Test("100 concurrent requests against a repeatable interaction all get its response")
    func concurrentRepeatable() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"GET","url":"https://a.example/keys"},"response":{"status":200,"body":{"keys":[1]}},"repeatable":true}"#)
        let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<100 {
                group.addTask { try await Self.send(transport, Self.get("https://a.example/keys")).body }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        #expect(bodies.count == 100)
        #expect(bodies.allSatisfy { $0 == Array(#"{"keys":[1]}"#.utf8) })
        #expect(transport.sentRequests.count == 100)
        #expect(transport.unmatchedRequests.isEmpty)
    }

    @Test("Concurrent requests never consume the same non-repeatable interaction twice")
    func concurrentNonRepeatable() async throws {
        let interactions = (0..<50).map {
            #"{"request":{"method":"GET","url":"https://a.example/once"},"response":{"status":200,"body_text":"\#($0)"}}"#
        }
        let document = #"{"name":"once","description":"","interactions":["# + interactions.joined(separator: ",") + "]}"
        let transport = MSALReplayTransport(fixture: try MSALRecordedFixture(data: Data(document.utf8)))
        let results = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<60 {
                group.addTask {
                    (try? await Self.send(transport, Self.get("https://a.example/once"))).map { String(decoding: $0.body, as: UTF8.self) }
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        let answered = results.compactMap { $0 }
        #expect(answered.count == 50)
        #expect(Set(answered) == Set((0..<50).map(String.init)))
        #expect(transport.unmatchedRequests.count == 10)
        #expect(transport.unusedInteractions.isEmpty)
    }

    @Test("verifyAllInteractionsUsed fails while an interaction is left, and after an unmatched request")
    func verify() async throws {
        let transport = try Self.transport(
            #"{"request":{"method":"GET","url":"https://a.example/1"},"response":{"status":200}}"#,
            #"{"request":{"method":"GET","url":"https://a.example/2"},"response":{"status":200}}"#)
        _ = try await Self.send(transport, Self.get("https://a.example/1"))
        let left = #expect(throws: MSALFailure.self) { try transport.verifyAllInteractionsUsed() }
        #expect(left?.message == #"1 interaction(s) of fixture "test" never used: interactions[1] (GET https://a.example/2)"#)
        _ = try await Self.send(transport, Self.get("https://a.example/2"))
        try transport.verifyAllInteractionsUsed()
        _ = await Self.unmatched(transport, Self.get("https://a.example/3"))
        let extra = #expect(throws: MSALFailure.self) { try transport.verifyAllInteractionsUsed() }
        #expect(extra?.message == "1 request(s) matched no interaction: GET https://a.example/3")
    }

    @Test("A transport loads a fixture file")
    func contentsOf() async throws {
        let transport = try MSALReplayTransport(contentsOf: FixtureLoader.url("Conformance/Authority/aad-common.json"))
        #expect(transport.fixture.name == "aad-common")
        #expect(transport.unusedInteractions.count == transport.fixture.interactions.count)
    }
}
