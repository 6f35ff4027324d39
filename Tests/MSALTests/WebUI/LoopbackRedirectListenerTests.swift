import Foundation
import MSALSupport
import NIOCore
import NIOPosix
import Testing

@testable import MSAL

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The loopback redirect listener against real HTTP clients on the loopback interface.
///
/// Serialized: many tests check that a closed listener's port refuses connections, and a listener of a
/// parallel test could be given that same ephemeral port in the meantime.
@Suite("Loopback redirect listener", .serialized)
struct LoopbackRedirectListenerTests {
    let state = LoopbackTest.state

    // MARK: - The redirect

    @Test("A browser-like client (URLSession) delivers the redirect; the page says done and the port closes")
    func urlSessionRedirect() async throws {
        let listener = try await LoopbackTest.start()
        #expect(listener.redirectURI.absoluteString == "http://localhost:\(listener.port)/")
        let url = try #require(
            URL(string: "http://localhost:\(listener.port)/?code=0.AXYA-code&state=\(state)&client_info=eyJ1aWQiOiIxIn0&session_state=abc"))
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: url)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/html; charset=utf-8")
        #expect(String(decoding: data, as: UTF8.self).contains("Sign-in complete"))

        let redirect = try await listener.waitForRedirect()
        #expect(redirect.code == "0.AXYA-code")
        #expect(redirect.error == nil)
        #expect(redirect.parameters == ["code": "0.AXYA-code", "state": state, "client_info": "eyJ1aWQiOiIxIn0", "session_state": "abc"])
        #expect(redirect.url == url)
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test("curl delivers the redirect on a configured path")
    func curlRedirect() async throws {
        let listener = try await LoopbackTest.start(redirectURI: "http://localhost/auth/callback")
        #expect(listener.redirectURI.absoluteString == "http://localhost:\(listener.port)/auth/callback")
        let arguments = [
            "-sS", "-i", "--max-time", "5",
            "http://localhost:\(listener.port)/auth/callback?code=c%2Fd+e&state=\(state)",
        ]
        // Waited for on a Dispatch thread, not one of the few cooperative threads.
        let outcome = try await StressWorker.offCooperativePool { () -> Result<ChildProcess.Outcome, any Error> in
            Result { try ChildProcess.run("/usr/bin/curl", arguments, timeout: 30) }
        }.get()
        #expect(outcome.exitCode == 0)
        let data = outcome.standardOutput
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        let redirect = try await listener.waitForRedirect()
        #expect(redirect.code == "c/d e", "percent-decoded, + as space")
    }

    @Test("Every response closes the connection and the page cannot leak the code or load anything")
    func responseHeaders() async throws {
        let listener = try await LoopbackTest.start()
        let rejected = try await RawHTTPClient.request(port: listener.port, target: "/nowhere")
        #expect(rejected.status == 404)
        #expect(rejected.header("Connection") == ["close"])
        #expect(!rejected.wasReset)

        let response = try await RawHTTPClient.request(port: listener.port, target: "/?code=abc&state=\(state)")
        #expect(response.status == 200)
        #expect(response.header("Connection") == ["close"])
        #expect(response.header("Cache-Control") == ["no-store"])
        #expect(response.header("Referrer-Policy") == ["no-referrer"])
        #expect(response.header("X-Content-Type-Options") == ["nosniff"])
        #expect(response.header("Content-Security-Policy").first?.hasPrefix("default-src 'none'") == true)
        #expect(response.header("Content-Length") == ["\(response.body.utf8.count)"])
        #expect(!response.body.contains("abc"), "the page does not echo the code")
        _ = try await listener.waitForRedirect()
    }

    @Test("error=access_denied is returned as data with its description and subcode; the failure page shows it")
    func accessDenied() async throws {
        let listener = try await LoopbackTest.start()
        let description = "AADSTS65004: User declined to consent to access the app."
        let response = try await RawHTTPClient.request(
            port: listener.port,
            target: "/?error=access_denied&error_description=\(LoopbackTest.queryEncoded(description))&error_subcode=cancel&state=\(state)")
        #expect(response.status == 200)
        #expect(response.body.contains("Sign-in did not complete"))
        #expect(response.body.contains("access_denied"))
        #expect(response.body.contains("AADSTS65004: User declined to consent to access the app."))

        let redirect = try await listener.waitForRedirect()
        #expect(redirect.code == nil)
        #expect(redirect.error == "access_denied")
        #expect(redirect.errorDescription == description)
        #expect(redirect.errorSubcode == "cancel")
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test(
        "Other OAuth errors on the redirect are returned, not thrown",
        arguments: [
            "interaction_required", "login_required", "consent_required", "invalid_request", "server_error",
        ])
    func otherOAuthErrors(error: String) async throws {
        let listener = try await LoopbackTest.start()
        let response = try await RawHTTPClient.request(port: listener.port, target: "/?error=\(error)&state=\(state)")
        #expect(response.status == 200)
        let redirect = try await listener.waitForRedirect()
        #expect(redirect.error == error)
        #expect(redirect.code == nil)
    }

    @Test("A huge error_description with markup and control characters is escaped, stripped and cut in the page")
    func hostileErrorDescription() async throws {
        let listener = try await LoopbackTest.start()
        let hostile = "<script>alert('x')</script>\u{07}\u{1B}[31m\u{202E}evil\u{0}" + String(repeating: "A", count: 4000)
        let response = try await RawHTTPClient.request(
            port: listener.port,
            target: "/?error=%3Cb%3Ebad%3C%2Fb%3E&error_description=\(LoopbackTest.queryEncoded(hostile))&state=\(state)")
        #expect(response.status == 200)
        let body = response.body
        #expect(!body.contains("<script>"))
        #expect(!body.contains("<b>"))
        #expect(body.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(body.contains("&lt;b&gt;bad&lt;/b&gt;"))
        #expect(!body.unicodeScalars.contains { $0.value == 0x07 || $0.value == 0x1B || $0.value == 0x202E || $0.value == 0 })
        #expect(!body.contains(String(repeating: "A", count: 513)), "cut to 512 characters")
        #expect(body.contains(String(repeating: "A", count: 400) + "\u{2026}"))
        #expect(body.utf8.count < 2048)

        let redirect = try await listener.waitForRedirect()
        #expect(redirect.errorDescription == hostile, "the raw value is kept as data")
        let display = try #require(redirect.displayErrorDescription)
        #expect(!display.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
        #expect(display.count <= 513)
        #expect(display.hasPrefix("<script>alert('x')</script>[31mevil"), "not HTML-escaped for messages")
    }

    // MARK: - Requests that are turned away while the listener keeps waiting

    @Test("A mismatched, prefixed or missing state is answered 400 and the listener keeps waiting")
    func badState() async throws {
        let listener = try await LoopbackTest.start()
        for target in [
            "/?code=x&state=other", "/?code=x&state=\(state)X", "/?code=x&state=\(state.dropLast())",
            "/?code=x&state=", "/?code=x", "/?error=access_denied&state=nope", "/",
        ] {
            let response = try await RawHTTPClient.request(port: listener.port, target: target)
            #expect(response.status == 400, "\(target)")
            #expect(!response.body.contains("Sign-in complete"))
        }
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("Both code and error are answered 400 and the listener keeps waiting")
    func codeAndError() async throws {
        let listener = try await LoopbackTest.start()
        let response = try await RawHTTPClient.request(port: listener.port, target: "/?code=x&error=access_denied&state=\(state)")
        #expect(response.status == 400)
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("Repeated state, code, error or any parameter are answered 400 and the listener keeps waiting")
    func duplicateParameters() async throws {
        let listener = try await LoopbackTest.start()
        for target in [
            "/?code=x&state=\(state)&state=\(state)", "/?code=x&state=other&state=\(state)",
            "/?code=x&code=y&state=\(state)", "/?error=a&error=b&state=\(state)",
            "/?code=x&state=\(state)&client_info=1&client_info=2", "/?code=x&st%61te=\(state)&state=\(state)",
        ] {
            let response = try await RawHTTPClient.request(port: listener.port, target: target)
            #expect(response.status == 400, "\(target)")
            #expect(response.body.contains("Repeated parameter"), "\(target)")
        }
        let malformed = try await RawHTTPClient.request(port: listener.port, target: "/?code=%ZZ&state=\(state)")
        #expect(malformed.status == 400)
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("A wrong path gets 404 and a wrong method 405 with Allow: GET; the listener keeps waiting")
    func wrongPathAndMethod() async throws {
        let listener = try await LoopbackTest.start(redirectURI: "http://localhost/cb")
        for target in ["/", "/cb/", "/CB", "/cbx", "/favicon.ico", "/cb/../cb"] {
            let response = try await RawHTTPClient.request(port: listener.port, target: "\(target)?code=x&state=\(state)")
            #expect(response.status == 404, "\(target)")
        }
        for method in ["POST", "PUT", "DELETE", "OPTIONS", "HEAD"] {
            let response = try await RawHTTPClient.request(
                port: listener.port, method: method, target: "/cb?code=x&state=\(state)",
                headers: [("Content-Length", "0")])
            #expect(response.status == 405, "\(method)")
            #expect(response.header("Allow") == ["GET"], "\(method)")
        }
        try await LoopbackTest.expectStillAcceptsRedirect(listener, path: "/cb")
    }

    @Test("A wrong, missing or repeated Host, or an absolute-form target, is answered 400; the listener keeps waiting")
    func wrongHost() async throws {
        let listener = try await LoopbackTest.start()
        let port = listener.port
        let target = "/?code=x&state=\(state)"
        for host in [
            "evil.example", "evil.example:\(port)", "localhost:\(port + 1)", "localhost", "127.0.0.2:\(port)",
            "localhost.:\(port)", "[::1]:\(port)", "",
        ] {
            let response = try await RawHTTPClient.request(port: port, target: target, host: host)
            #expect(response.status == 400, "Host: \(host)")
        }
        let twoHosts = try await RawHTTPClient.request(port: port, target: target, headers: [("Host", "localhost:\(port)")])
        #expect(twoHosts.status == 400)
        let noHost = try await RawHTTPClient.exchange(port: port, Array("GET \(target) HTTP/1.0\r\n\r\n".utf8))
        #expect(noHost.status == 400)
        let absolute = try await RawHTTPClient.request(port: port, target: "http://localhost:\(port)\(target)")
        #expect(absolute.status == 400)
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("The Host header may name localhost or 127.0.0.1 in any case")
    func acceptedHosts() async throws {
        for host in ["LocalHost", "127.0.0.1"] {
            let listener = try await LoopbackTest.start()
            let response = try await RawHTTPClient.request(
                port: listener.port, target: "/?code=c&state=\(state)",
                host: "\(host):\(listener.port)")
            #expect(response.status == 200, "Host: \(host)")
            #expect(try await listener.waitForRedirect().code == "c")
        }
    }

    @Test("Oversized headers or request line get 431 and the connection is closed; the listener keeps waiting")
    func oversizedRequests() async throws {
        let listener = try await LoopbackTest.start()
        let bigHeader = try await RawHTTPClient.request(
            port: listener.port, target: "/?code=x&state=\(state)",
            headers: [("Cookie", String(repeating: "a", count: 20_000))])
        #expect(bigHeader.status == 431)
        #expect(bigHeader.header("Connection") == ["close"])
        let manyHeaders = try await RawHTTPClient.request(
            port: listener.port, target: "/?code=x&state=\(state)",
            headers: (0..<2000).map { ("X-H\($0)", "v") })
        #expect(manyHeaders.status == 431)
        let longLine = try await RawHTTPClient.request(
            port: listener.port, target: "/?code=\(String(repeating: "c", count: 20_000))&state=\(state)")
        #expect(longLine.status == 431)
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("A smaller request cap is honoured")
    func customRequestCap() async throws {
        let listener = try await LoopbackTest.start(maximumRequestBytes: 256)
        let response = try await RawHTTPClient.request(
            port: listener.port, target: "/?code=\(String(repeating: "c", count: 300))&state=\(state)")
        #expect(response.status == 431)
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("TLS ClientHello bytes or binary garbage on the plain port are dropped; the listener keeps waiting")
    func tlsAndGarbage() async throws {
        let listener = try await LoopbackTest.start()
        // The start of a TLS 1.2/1.3 ClientHello record.
        let clientHello: [UInt8] =
            [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]
            + [UInt8](repeating: 0x5A, count: 32) + [0x20] + [UInt8](repeating: 0x11, count: 32)
            + [0x00, 0x04, 0x13, 0x01, 0x13, 0x02, 0x01, 0x00]
        let tls = try await RawHTTPClient.exchange(port: listener.port, clientHello)
        #expect(tls.status == nil, "no HTTP answer to TLS: \(tls.text)")
        let garbage = try await RawHTTPClient.exchange(port: listener.port, [0, 0, 0, 0, 0xFF, 0xFE, 13, 10, 13, 10])
        #expect(garbage.status == nil)
        let bareLines = try await RawHTTPClient.exchange(port: listener.port, Array("\r\n\r\nGARBAGE\r\n\r\n".utf8))
        #expect(bareLines.status == nil || bareLines.status == 400)
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("Clients that send slowly or never, even many at once, do not delay the real redirect")
    func slowAndSilentClients() async throws {
        let listener = try await LoopbackTest.start(timeout: 600, connectionTimeout: 300)
        let slow = try await RawHTTPClient.connect(port: listener.port)
        try await slow.send(Array("GET /?code=slow&state=\(state) HT".utf8))
        var silent: [RawHTTPClient.Connection] = []
        for _ in 0..<10 {
            silent.append(try await RawHTTPClient.connect(port: listener.port))
        }
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
        // Finishing the listener closed the connections it still had.
        let slowEnd = await slow.readToEnd()
        #expect(slowEnd.status == nil)
        for connection in silent {
            #expect(await connection.readToEnd().bytes.isEmpty)
        }
    }

    @Test("A connection that does not deliver its request within the connection timeout is closed, the listener lives on")
    func connectionTimeout() async throws {
        let listener = try await LoopbackTest.start(timeout: 5, connectionTimeout: 0.3)
        let silent = try await RawHTTPClient.connect(port: listener.port)
        // A client trickling a header byte by byte is bounded too: the limit is on the whole request, not on idleness.
        let trickler = try await RawHTTPClient.connect(port: listener.port)
        try await trickler.send(Array("GET /?code=x&state=\(state) HTTP/1.1\r\nX-Slow: ".utf8))
        let trickle = Task {
            // Until the server closes the connection (a send then fails); bounded so a bug cannot hang the test.
            for _ in 0..<1000 {
                do {
                    try await trickler.send([UInt8(ascii: "a")])
                } catch {
                    return
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(await silent.readToEnd().bytes.isEmpty)
        #expect(await trickler.readToEnd().status == nil)
        await trickle.value
        // The listener's own timeout (5 s) has not passed: it still takes the redirect.
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
    }

    @Test("200 silent connections, then the real redirect: the oldest silent ones make room, and the redirect is served at once")
    func silentConnectionsNeverBlockTheRedirect() async throws {
        let listener = try await LoopbackTest.start(timeout: 600, connectionTimeout: 300)
        var held: [RawHTTPClient.Connection] = []
        for _ in 0..<200 {
            held.append(try await RawHTTPClient.connect(port: listener.port))
        }
        // With 64 slots and the 30-second connection timeout far away, each new connection took the
        // place of the oldest silent one: the redirect is served now, not after a timeout.
        let started = ContinuousClock.now
        try await LoopbackTest.expectStillAcceptsRedirect(listener)
        #expect(ContinuousClock.now - started < .seconds(10))
        for connection in held {
            await connection.close()
        }
    }

    @Test("When every slot is mid-request, a new connection is closed at once; slots free again serve")
    func connectionCapWhenAllBusy() async throws {
        let listener = try await LoopbackTest.start(timeout: 600, connectionTimeout: 300)
        var held: [RawHTTPClient.Connection] = []
        // Each sends a whole request head announcing a body it never sends: mid-request, not evictable.
        let busy = Array("POST /nowhere HTTP/1.1\r\nHost: localhost:\(listener.port)\r\nContent-Length: 10\r\n\r\n".utf8)
        for _ in 0..<LoopbackRedirectListener.maximumConnections {
            let connection = try await RawHTTPClient.connect(port: listener.port)
            try await connection.send(busy)
            held.append(connection)
        }
        // The heads are read asynchronously, and until all are in a new connection may still evict
        // one (which would leave a slot free for good): wait until the listener has read every head.
        let deadline = ContinuousClock.now + .seconds(30)
        while listener.requestsBegun < LoopbackRedirectListener.maximumConnections, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(listener.requestsBegun == LoopbackRedirectListener.maximumConnections)
        let extra = try await RawHTTPClient.connect(port: listener.port)
        try? await extra.send(Array("GET /nowhere HTTP/1.1\r\nHost: localhost:\(listener.port)\r\n\r\n".utf8))
        let answer = await extra.readToEnd()
        #expect(answer.bytes.isEmpty, "with every slot mid-request a new connection is closed without an answer")
        for connection in held {
            await connection.close()
        }
        // The listener frees the slots when it sees the closes; the real redirect is then served.
        var response: RawResponse?
        for _ in 0..<100 where response == nil {
            let attempt = try await RawHTTPClient.request(port: listener.port, target: "/?code=after&state=\(state)")
            if attempt.status != nil { response = attempt } else { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(response?.status == 200)
        #expect(try await listener.waitForRedirect().code == "after")
    }

    // MARK: - The end of the listener

    @Test("A replayed redirect after success finds the port closed")
    func replay() async throws {
        let listener = try await LoopbackTest.start()
        let target = "/?code=once&state=\(state)"
        #expect(try await RawHTTPClient.request(port: listener.port, target: target).status == 200)
        #expect(try await listener.waitForRedirect().code == "once")
        #expect(await LoopbackTest.isClosed(listener))
        #expect(await RawHTTPClient.isRefused(port: listener.port, host: "::1"))
        // Asking again gives the same outcome, it does not wait for another redirect.
        #expect(try await listener.waitForRedirect().code == "once")
    }

    @Test("The expected state with neither code nor error throws invalidRedirect, answers the failure page and closes")
    func codeMissing() async throws {
        let listener = try await LoopbackTest.start()
        let response = try await RawHTTPClient.request(port: listener.port, target: "/?state=\(state)&session_state=s")
        #expect(response.status == 400)
        #expect(response.body.contains("invalid_redirect"))
        let error = await LoopbackTest.error { _ = try await listener.waitForRedirect() }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .invalidRedirect)
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test("No redirect: the timeout error, and the port is closed")
    func timeout() async throws {
        let listener = try await LoopbackTest.start(timeout: 0.5)
        let idle = try await RawHTTPClient.connect(port: listener.port)
        let error = await LoopbackTest.error { _ = try await listener.waitForRedirect() }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .redirectTimeout)
        #expect(error?.message.contains(listener.redirectURI.absoluteString) == true)
        #expect(await LoopbackTest.isClosed(listener))
        #expect(await idle.readToEnd().bytes.isEmpty, "open connections are closed too")
    }

    @Test("The listener times out even when nobody waits for it")
    func timeoutWithoutWaiter() async throws {
        let listener = try await LoopbackTest.start(timeout: 0.5)
        let port = listener.port
        let idle = try await RawHTTPClient.connect(port: port)
        #expect(await idle.readToEnd().bytes.isEmpty)
        #expect(await RawHTTPClient.isRefused(port: port))
        let error = await LoopbackTest.error { _ = try await listener.waitForRedirect() }
        #expect(error?.internalCode == .redirectTimeout)
    }

    @Test("Canceling the waiting task throws userCanceled / sessionCanceled and closes the port")
    func cancellation() async throws {
        let listener = try await LoopbackTest.start(timeout: 600)
        let waiting = Task { try await listener.waitForRedirect() }
        // Wait until the waiter is really pending: a bad request is answered only while the listener serves.
        #expect(try await RawHTTPClient.request(port: listener.port, target: "/nowhere").status == 404)
        waiting.cancel()
        let error = await LoopbackTest.error { _ = try await waiting.value }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test("A task canceled before it waits gets canceled at once")
    func canceledBeforeWaiting() async throws {
        let listener = try await LoopbackTest.start(timeout: 600)
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await listener.waitForRedirect()
        }
        let error = await LoopbackTest.error { _ = try await waiting.value }
        #expect(error?.internalCode == .internalErrorSessionCanceled)
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test("close() is idempotent, closes the port and makes waiting throw canceled")
    func close() async throws {
        let listener = try await LoopbackTest.start(timeout: 600)
        let idle = try await RawHTTPClient.connect(port: listener.port)
        await listener.close()
        await listener.close()
        #expect(await LoopbackTest.isClosed(listener))
        #expect(await idle.readToEnd().bytes.isEmpty)
        let error = await LoopbackTest.error { _ = try await listener.waitForRedirect() }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
    }

    @Test("close() after the redirect keeps its outcome")
    func closeAfterRedirect() async throws {
        let listener = try await LoopbackTest.start()
        #expect(try await RawHTTPClient.request(port: listener.port, target: "/?code=kept&state=\(state)").status == 200)
        await listener.close()
        #expect(try await listener.waitForRedirect().code == "kept")
    }

    // MARK: - Binding

    @Test("It binds loopback addresses only: 127.0.0.1, and ::1 on the same port for localhost")
    func loopbackOnly() async throws {
        let listener = try await LoopbackTest.start()
        let addresses = listener.boundAddresses.compactMap(\.ipAddress)
        #expect(addresses.first == "127.0.0.1")
        #expect(Set(addresses).isSubset(of: ["127.0.0.1", "::1"]))
        #expect(listener.boundAddresses.allSatisfy { $0.port == listener.port })
        // No other interface answers.
        let others = try System.enumerateDevices().compactMap(\.address).compactMap(\.ipAddress)
            .filter { $0 != "127.0.0.1" && $0 != "::1" && !$0.hasPrefix("fe80:") }
        for address in others {
            #expect(await RawHTTPClient.isRefused(port: listener.port, host: address), "reachable on \(address)")
        }
        await listener.close()
    }

    @Test("A localhost redirect arriving over IPv6 loopback is served the same")
    func ipv6Loopback() async throws {
        let listener = try await LoopbackTest.start()
        let addresses = listener.boundAddresses.compactMap(\.ipAddress)
        try #require(addresses.contains("::1"), "IPv6 loopback is available on this machine, so it must be bound")
        let bad = try await RawHTTPClient.request(port: listener.port, target: "/?code=x&state=bad", connectTo: "::1")
        #expect(bad.status == 400)
        let response = try await RawHTTPClient.request(port: listener.port, target: "/?code=v6&state=\(state)", connectTo: "::1")
        #expect(response.status == 200)
        #expect(try await listener.waitForRedirect().code == "v6")
        #expect(await RawHTTPClient.isRefused(port: listener.port, host: "::1"))
        #expect(await LoopbackTest.isClosed(listener))
    }

    @Test("A configured 127.0.0.1 redirect URI is kept and binds IPv4 only")
    func ipLiteral() async throws {
        let listener = try await LoopbackTest.start(redirectURI: "http://127.0.0.1")
        #expect(listener.redirectURI.absoluteString == "http://127.0.0.1:\(listener.port)/")
        #expect(listener.boundAddresses.compactMap(\.ipAddress) == ["127.0.0.1"])
        let response = try await RawHTTPClient.request(
            port: listener.port, target: "/?code=ip&state=\(state)",
            host: "127.0.0.1:\(listener.port)")
        #expect(response.status == 200)
        #expect(try await listener.waitForRedirect().code == "ip")
    }

    @Test("A configured port is bound exactly; if it is taken the start fails with loopbackListenerFailed")
    func fixedPort() async throws {
        // A free port can be taken by a parallel test between the probe and the start: try a few.
        var started: (port: Int, listener: LoopbackRedirectListener)?
        for _ in 0..<5 where started == nil {
            let port = try await LoopbackTest.freePort()
            if let listener = try? await LoopbackTest.start(redirectURI: "http://localhost:\(port)/cb") {
                started = (port, listener)
            }
        }
        let (port, listener) = try #require(started)
        #expect(listener.port == port)
        #expect(listener.redirectURI.absoluteString == "http://localhost:\(port)/cb")
        let error = await LoopbackTest.error { _ = try await LoopbackTest.start(redirectURI: "http://127.0.0.1:\(port)/other") }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .loopbackListenerFailed)
        #expect(error?.underlyingError != nil)
        try await LoopbackTest.expectStillAcceptsRedirect(listener, path: "/cb")
    }

    @Test("A fixed port can be used again at once: the last sign-in's closed connections in TIME_WAIT do not block it")
    func fixedPortAgainAfterRedirect() async throws {
        var started: (port: Int, listener: LoopbackRedirectListener)?
        for _ in 0..<5 where started == nil {
            let port = try await LoopbackTest.freePort()
            if let listener = try? await LoopbackTest.start(redirectURI: "http://127.0.0.1:\(port)/") {
                started = (port, listener)
            }
        }
        var (port, listener) = try #require(started)
        // Three sign-ins in a row on the same port; each redirect leaves a connection the listener
        // closed first (TIME_WAIT on 127.0.0.1:port), which without SO_REUSEADDR made the next bind fail.
        for round in 0..<3 {
            try await LoopbackTest.expectStillAcceptsRedirect(listener)
            guard round < 2 else { break }
            listener = try await LoopbackTest.start(redirectURI: "http://127.0.0.1:\(port)/")
            #expect(listener.port == port)
        }
        // Still one listener per port: a second start while one listens fails.
        let first = try await LoopbackTest.start(redirectURI: "http://127.0.0.1:\(port)/")
        let error = await LoopbackTest.error { _ = try await LoopbackTest.start(redirectURI: "http://127.0.0.1:\(port)/") }
        #expect(error?.internalCode == .loopbackListenerFailed)
        try await LoopbackTest.expectStillAcceptsRedirect(first)
        port = 0
    }

    @Test("A fixed localhost port taken on ::1 by someone else fails, and the IPv4 socket is released")
    func fixedPortTakenOnIPv6() async throws {
        // The port is free on ::1, but a parallel test may hold it on 127.0.0.1 (a listener, or the
        // source port of a client connection); then the start fails on 127.0.0.1 first: try a few.
        var squatter: (any Channel)?
        var port = 0
        var error: MSALFailure?
        for _ in 0..<5 {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(to: try SocketAddress(ipAddress: "::1", port: 0)).get()
            port = try #require(channel.localAddress?.port)
            squatter = channel
            error = await LoopbackTest.error { _ = try await LoopbackTest.start(redirectURI: "http://localhost:\(port)/") }
            guard error?.internalCode == .loopbackListenerFailed, error?.message.contains("127.0.0.1:\(port)") == true else { break }
            try await channel.close()
            squatter = nil
        }
        let taken = try #require(squatter, "127.0.0.1 was taken by someone else on every port tried")
        #expect(error?.internalCode == .loopbackListenerFailed)
        #expect(error?.message.contains("::1") == true)
        #expect(await RawHTTPClient.isRefused(port: port), "127.0.0.1 was released")
        // 127.0.0.1 alone does not need ::1.
        let ipv4 = try await LoopbackTest.start(redirectURI: "http://127.0.0.1:\(port)/")
        #expect(ipv4.port == port)
        await ipv4.close()
        try await taken.close()
    }

    @Test("Two listeners run side by side, each with its own state")
    func twoListeners() async throws {
        let first = try await LoopbackTest.start(state: "first-state")
        let second = try await LoopbackTest.start(state: "second-state")
        #expect(first.port != second.port)
        #expect(try await RawHTTPClient.request(port: first.port, target: "/?code=a&state=second-state").status == 400)
        #expect(try await RawHTTPClient.request(port: second.port, target: "/?code=b&state=second-state").status == 200)
        #expect(try await RawHTTPClient.request(port: first.port, target: "/?code=a&state=first-state").status == 200)
        #expect(try await first.waitForRedirect().code == "a")
        #expect(try await second.waitForRedirect().code == "b")
    }

    @Test(
        "Bad start arguments are typed errors",
        arguments: [
            (LoopbackTest.state, 0.0), (LoopbackTest.state, -1.0), (LoopbackTest.state, Double.nan),
            (LoopbackTest.state, Double.infinity), ("", 2.0),
        ])
    func badArguments(state: String, timeout: Double) async {
        let error = await LoopbackTest.error {
            _ = try await LoopbackRedirectListener.start(redirectURI: nil, expectedState: state, timeout: timeout)
        }
        #expect(error?.internalCode == .internalErrorInvalidParameter)
    }

    @Test(
        "A bad configured redirect URI fails before anything is bound",
        arguments: [
            "https://localhost/", "http://example.com/", "http://localhost/?x=1", "http://user@localhost/", "http://[::1]:8400/",
            "msauth.com.example://auth", "",
        ])
    func badRedirectURI(uri: String) async {
        let error = await LoopbackTest.error { _ = try await LoopbackTest.start(redirectURI: uri) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorInvalidRedirectURI)
    }

    // MARK: - Pages

    @Test("App pages replace the built-in ones; failure placeholders are filled escaped, in one pass")
    func customPages() async throws {
        let success = "<html><body>Thanks from Contoso</body></html>"
        let failure = "<html><body><p id=e>{{error}}</p><p id=d>{{error_description}}</p>{{other}}</body></html>"
        let ok = try await LoopbackTest.start(successPageHTML: success, failurePageHTML: failure)
        let okResponse = try await RawHTTPClient.request(port: ok.port, target: "/?code=c&state=\(state)")
        #expect(okResponse.body == success)
        #expect(okResponse.header("Content-Security-Policy").isEmpty, "the app's page may load what it wants")
        #expect(okResponse.header("Referrer-Policy") == ["no-referrer"])
        _ = try await ok.waitForRedirect()

        let failed = try await LoopbackTest.start(successPageHTML: success, failurePageHTML: failure)
        let description = "{{error}} <img src=x onerror=alert(1)>"
        let failedResponse = try await RawHTTPClient.request(
            port: failed.port, target: "/?error=server_error&error_description=\(LoopbackTest.queryEncoded(description))&state=\(state)")
        #expect(
            failedResponse.body
                == "<html><body><p id=e>server_error</p><p id=d>{{error}} &lt;img src=x onerror=alert(1)&gt;</p>{{other}}</body></html>")
        #expect(try await failed.waitForRedirect().error == "server_error")
    }
}
