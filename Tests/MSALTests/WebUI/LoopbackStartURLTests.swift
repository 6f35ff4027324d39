import Foundation
import Testing

@testable import MSAL

/// The listener's single-use start URL (issue 19, finding 3): the browser's command line carries only
/// `http://localhost:<port>/msal-start/<token>`, which redirects once to the authorization URL; any
/// second request for it ends the sign-in with `startURLReused`, whoever asked first.
@Suite("Loopback listener: the single-use start URL")
struct LoopbackStartURLTests {
    static let authorizationURL = URL(
        string: "https://login.example.test/authorize?client_id=c&state=\(LoopbackTest.state)&nonce=n&code_challenge=x")!
    static let token = "b3VyLXRlc3QtdG9rZW4tb2YtNDMtY2hhcmFjdGVycy0xMjM"

    @Test("The start URL names the redirect host and port and carries nothing but the token")
    func shape() async throws {
        let listener = try await LoopbackTest.start()
        defer { Task { await listener.close() } }
        let start = listener.offerStart(token: Self.token, authorizationURL: Self.authorizationURL)
        #expect(start.absoluteString == "http://localhost:\(listener.port)/msal-start/\(Self.token)")

        let numeric = try await LoopbackTest.start(redirectURI: "http://127.0.0.1/callback")
        defer { Task { await numeric.close() } }
        #expect(
            numeric.offerStart(token: Self.token, authorizationURL: Self.authorizationURL).absoluteString
                == "http://127.0.0.1:\(numeric.port)/msal-start/\(Self.token)")
    }

    @Test("The first GET is redirected to the authorization URL, with no-store and no-referrer; the redirect then completes the sign-in")
    func servedOnce() async throws {
        let listener = try await LoopbackTest.start()
        let start = listener.offerStart(token: Self.token, authorizationURL: Self.authorizationURL)
        let response = try await RawHTTPClient.request(port: listener.port, target: start.path)
        #expect(response.status == 302)
        #expect(response.header("Location") == [Self.authorizationURL.absoluteString])
        #expect(response.header("Cache-Control") == ["no-store"])
        #expect(response.header("Referrer-Policy") == ["no-referrer"])
        #expect(response.header("Connection") == ["close"])
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("A replay after the browser's request ends the sign-in: startURLReused, a page saying why, the port closed")
    func replayAfterBrowser() async throws {
        let listener = try await LoopbackTest.start()
        let start = listener.offerStart(token: Self.token, authorizationURL: Self.authorizationURL)
        #expect(try await RawHTTPClient.request(port: listener.port, target: start.path).status == 302)

        let replay = try await RawHTTPClient.request(port: listener.port, target: start.path)
        #expect(replay.status == 400)
        #expect(replay.header("Location").isEmpty)
        #expect(replay.body.contains("start_url_reused"))
        #expect(!replay.text.contains(Self.authorizationURL.absoluteString))
        let error = await LoopbackTest.error { _ = try await listener.waitForRedirect() }
        #expect(error?.internalCode == .startURLReused)
        #expect(error?.code == .internal)
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test("Someone who asks before the browser gets the page, but the browser's request then ends the sign-in: the code is never accepted")
    func attackerFirst() async throws {
        let listener = try await LoopbackTest.start()
        let start = listener.offerStart(token: Self.token, authorizationURL: Self.authorizationURL)
        // The attacker read the start URL from the browser's command line and asked first.
        let stolen = try await RawHTTPClient.request(port: listener.port, target: start.path, host: "127.0.0.1:\(listener.port)")
        #expect(stolen.status == 302)
        // The browser's own request comes second.
        let browser = try await RawHTTPClient.request(port: listener.port, target: start.path)
        #expect(browser.status == 400)
        #expect(browser.body.contains("start_url_reused"))
        let error = await LoopbackTest.error { _ = try await listener.waitForRedirect() }
        #expect(error?.internalCode == .startURLReused)
        // The attacker's redirect, with the right state, finds nothing listening.
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test(
        "A first request that is not a GET, or carries a query, counts as a use: a browser only ever GETs the plain path",
        arguments: [
            ("POST", ""), ("HEAD", ""), ("GET", "?x=1"),
        ])
    func otherRequestsCount(method: String, query: String) async throws {
        let listener = try await LoopbackTest.start()
        let start = listener.offerStart(token: Self.token, authorizationURL: Self.authorizationURL)
        let first = try await RawHTTPClient.request(port: listener.port, method: method, target: start.path + query)
        if query.isEmpty {
            #expect(first.status == 400)
            let error = await LoopbackTest.error { _ = try await listener.waitForRedirect() }
            #expect(error?.internalCode == .startURLReused)
        } else {
            // A GET with a query is the first use and is served; the browser's plain request is the second.
            #expect(first.status == 302)
            #expect(try await RawHTTPClient.request(port: listener.port, target: start.path).status == 400)
            let error = await LoopbackTest.error { _ = try await listener.waitForRedirect() }
            #expect(error?.internalCode == .startURLReused)
        }
    }

    @Test("Requests that do not reach the start path do not use it: a wrong Host (DNS rebinding), another token, a longer path")
    func notAUse() async throws {
        let listener = try await LoopbackTest.start()
        let start = listener.offerStart(token: Self.token, authorizationURL: Self.authorizationURL)
        #expect(
            try await RawHTTPClient.request(port: listener.port, target: start.path, host: "attacker.example:\(listener.port)").status
                == 400)
        #expect(try await RawHTTPClient.request(port: listener.port, target: "/msal-start/another-token").status == 404)
        #expect(try await RawHTTPClient.request(port: listener.port, target: start.path + "/x").status == 404)
        #expect(try await RawHTTPClient.request(port: listener.port, target: start.path).status == 302)
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("After the redirect, the start URL finds the port closed")
    func afterTheRedirect() async throws {
        let listener = try await LoopbackTest.start()
        let start = listener.offerStart(token: Self.token, authorizationURL: Self.authorizationURL)
        #expect(try await RawHTTPClient.request(port: listener.port, target: start.path).status == 302)
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test("The rules: the start path matches exactly, before the redirect path; not offered, it is an ordinary 404")
    func rules() throws {
        var rules = LoopbackRequestRules(
            redirectURI: try LoopbackRedirectURI(parsing: nil), port: 5000, expectedState: LoopbackTest.state)
        #expect(
            rules.evaluate(method: "GET", target: "/msal-start/abc", hostHeaders: ["localhost:5000"])
                == .reject(status: 404, reason: "Not found."))
        rules.startPath = "/msal-start/abc"
        #expect(rules.evaluate(method: "GET", target: "/msal-start/abc", hostHeaders: ["localhost:5000"]) == .start(method: "GET"))
        #expect(rules.evaluate(method: "POST", target: "/msal-start/abc?q", hostHeaders: ["127.0.0.1:5000"]) == .start(method: "POST"))
        #expect(
            rules.evaluate(method: "GET", target: "/msal-start/abcd", hostHeaders: ["localhost:5000"])
                == .reject(status: 404, reason: "Not found."))
        #expect(
            rules.evaluate(method: "GET", target: "/msal-start/abc", hostHeaders: ["evil:5000"])
                == .reject(status: 400, reason: "Bad Host header."))
    }
}
