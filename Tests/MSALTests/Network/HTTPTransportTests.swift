import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// Each transport, `MSALCurlTransport` and `MSALURLSessionTransport` (alone and under `HTTPPipeline`),
/// against a real HTTP server on 127.0.0.1.
@Suite("HTTP transports against a local HTTP server", .serialized)
struct HTTPTransportTests {
    /// Small limits so that failures come fast.
    static let limits = MSALHTTPLimits(maximumResponseBodySize: 64 * 1024, connectTimeout: 2, totalTimeout: 2)

    /// Starts a server with `routes`, runs `body`, and always shuts the server down.
    static func withServer(
        _ routes: [String: LocalHTTPServer.Handler], _ body: (LocalHTTPServer) async throws -> Void
    ) async throws {
        let server = try await LocalHTTPServer.start(routes)
        do {
            try await body(server)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// Runs `body` and returns the `MSALFailure` it throws; records an issue for anything else.
    static func expectMSALError(
        _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> MSALFailure {
        do {
            try await body()
        } catch let error as MSALFailure {
            return error
        } catch {
            Issue.record("expected an MSALFailure, got \(error)", sourceLocation: sourceLocation)
            throw error
        }
        Issue.record("expected an MSALFailure, nothing was thrown", sourceLocation: sourceLocation)
        throw NothingThrown()
    }

    struct NothingThrown: Error {}

    /// After a race, the same transport still answers a plain request (the server's `/quick` route).
    static func expectStillWorks(_ transport: any MSALHTTPTransport, _ server: LocalHTTPServer) async throws {
        // Generous limits: this checks that the transport still works, not how fast (a parallel
        // ThreadSanitizer run once took more than 2 s for it).
        let generous = MSALHTTPLimits(maximumResponseBodySize: 64 * 1024, connectTimeout: 30, totalTimeout: 30)
        let response = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/quick")), limits: generous)
        #expect(String(decoding: response.body, as: UTF8.self) == "quick")
    }

    static func send(
        _ transport: any MSALHTTPTransport, _ request: MSALHTTPRequest, limits: MSALHTTPLimits = limits,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> MSALFailure {
        try await Self.expectMSALError({ _ = try await transport.send(request, limits: limits) }, sourceLocation: sourceLocation)
    }

    @Test(
        "A JSON round trip: the server sees the method, headers and body; the caller gets status, headers and body",
        arguments: TransportKind.allCases)
    func roundTrip(kind: TransportKind) async throws {
        let json = #"{"token_type":"Bearer","expires_in":3599}"#
        try await Self.withServer(["/token": { _, _ in .json(json, headers: [("X-Server", "local")]) }]) { server in
            let transport = kind.make()
            let pipeline = HTTPPipeline(transport: transport, clock: ManualClock())
            let correlationID = UUID()
            let request = MSALHTTPRequest.form(
                url: server.url("/token?api-version=1.1"), parameters: [("grant_type", "refresh_token"), ("scope", "openid profile")])
            let response = try await pipeline.send(request, correlationID: correlationID)
            #expect(response.statusCode == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == json)
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.headers["X-SERVER"] == "local")

            let seen = try #require(server.requests.first)
            #expect(server.requests.count == 1)
            #expect(seen.method == "POST")
            #expect(seen.uri == "/token?api-version=1.1")
            #expect(String(decoding: seen.body, as: UTF8.self) == "grant_type=refresh_token&scope=openid+profile")
            #expect(seen.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(seen.headers["x-client-SKU"] == "MSAL.Swift.Linux")
            #expect(seen.headers["x-client-Ver"] == MSALVersion)
            #expect(seen.headers["x-client-OS"] == HTTPPipeline.telemetryHeaders.first { $0.0 == "x-client-OS" }?.1)
            #expect(seen.headers["x-ms-lib-capability"] == "retry-after, h429")
            #expect(seen.headers["client-request-id"] == correlationID.uuidString.lowercased())
            #expect(seen.headers["return-client-request-id"] == "true")
            #expect(seen.headers["Cookie"] == nil)
        }
    }

    @Test("Many concurrent requests each get their own response", arguments: TransportKind.allCases)
    func concurrency(kind: TransportKind) async throws {
        try await Self.withServer(["/echo": { request, _ in .text("echo:" + request.uri) }]) { server in
            let transport = kind.make()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<40 {
                    group.addTask {
                        let response = try await transport.send(
                            MSALHTTPRequest(method: .get, url: server.url("/echo?n=\(n)")), limits: Self.limits)
                        #expect(String(decoding: response.body, as: UTF8.self) == "echo:/echo?n=\(n)")
                    }
                }
                try await group.waitForAll()
            }
            #expect(server.requests(to: "/echo").count == 40)
        }
    }

    @Test("No first byte within connectTimeout: networkTimeout", arguments: TransportKind.allCases)
    func slowFirstByte(kind: TransportKind) async throws {
        try await Self.withServer(["/slow": { _, _ in .delayed(milliseconds: 1500, .text("late")) }]) { server in
            let limits = MSALHTTPLimits(connectTimeout: 0.3, totalTimeout: 2)
            let error = try await Self.send(kind.make(), MSALHTTPRequest(method: .get, url: server.url("/slow")), limits: limits)
            #expect(error.code == .internal)
            #expect(error.internalCode == .networkTimeout)
            #expect(error.message.contains("connect/idle timeout"))
        }
    }

    @Test("A body trickled byte by byte hits the total timeout, long before the server would finish", arguments: TransportKind.allCases)
    func trickle(kind: TransportKind) async throws {
        // 200 bytes, one every 50 ms: 10 s to finish; every byte comes well within the idle timeout.
        let body = [UInt8](repeating: UInt8(ascii: "t"), count: 200)
        try await Self.withServer(["/trickle": { _, _ in .trickled(body, intervalMilliseconds: 50) }]) { server in
            let limits = MSALHTTPLimits(connectTimeout: 1, totalTimeout: 0.6)
            let clock = ContinuousClock()
            let start = clock.now
            let error = try await Self.send(kind.make(), MSALHTTPRequest(method: .get, url: server.url("/trickle")), limits: limits)
            let elapsed = clock.now - start
            #expect(error.internalCode == .networkTimeout)
            #expect(error.message.contains("total timeout"))
            #expect(elapsed < .seconds(5), "the total timeout, not the end of the body, ended the request")
        }
    }

    @Test("A declared Content-Length over the cap is rejected at the head", arguments: TransportKind.allCases)
    func oversizedDeclared(kind: TransportKind) async throws {
        try await Self.withServer(["/big": { _, _ in .huge(size: 4 * 1024 * 1024, chunked: false) }]) { server in
            let error = try await Self.send(kind.make(), MSALHTTPRequest(method: .get, url: server.url("/big")))
            #expect(error.code == .internal)
            #expect(error.internalCode == .bodyTooLarge)
            #expect(error.message.contains("declares a 4194304-byte body"))
        }
    }

    @Test("A chunked body is cut off as soon as it passes the cap", arguments: TransportKind.allCases)
    func oversizedChunked(kind: TransportKind) async throws {
        try await Self.withServer(["/big": { _, _ in .huge(size: 4 * 1024 * 1024, chunked: true) }]) { server in
            let error = try await Self.send(kind.make(), MSALHTTPRequest(method: .get, url: server.url("/big")))
            #expect(error.internalCode == .bodyTooLarge)
            #expect(error.message.contains("sent a body of at least"))
            #expect(error.message.contains("65536-byte limit"))
        }
    }

    @Test(
        "A body exactly at the cap is accepted; one byte more is cut off as the transfer completes, 500 times without a crash",
        arguments: TransportKind.allCases)
    func capCutOffRacesCompletion(kind: TransportKind) async throws {
        // The server sends one byte over the cap and ends the response, so the transport's cancel and
        // the transfer's completion meet. Canceling from `didReceive data` without holding the delegate
        // queue trapped corelibs Foundation ("a task that in not in the registry") in 4 of 5 runs of 300.
        let limit = 1000
        try await Self.withServer([
            "/exact": { _, _ in .respond(body: [UInt8](repeating: 0x61, count: limit)) },
            "/over": { _, _ in
                ServerReply(steps: [.head(status: 200, headers: []), .body([UInt8](repeating: 0x61, count: limit + 1)), .end])
            },
        ]) { server in
            let limits = MSALHTTPLimits(maximumResponseBodySize: limit, connectTimeout: 2, totalTimeout: 5)
            var tooLarge = 0
            for round in 0..<500 {
                // A transport per round: its release (session invalidation) also meets transfers still ending.
                let transport = kind.make()
                let exact = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/exact")), limits: limits)
                #expect(exact.body.count == limit)
                let error = try await Self.send(transport, MSALHTTPRequest(method: .get, url: server.url("/over")), limits: limits)
                if error.internalCode == .bodyTooLarge { tooLarge += 1 }
                if round == 0 { #expect(error.message.contains("over the \(limit)-byte limit")) }
            }
            #expect(tooLarge == 500)
        }
    }

    @Test(
        "Deadlines that expire as transfers complete: 1,600 requests, each a response or a timeout, no crash",
        arguments: TransportKind.allCases)
    func deadlinesRaceCompletion(kind: TransportKind) async throws {
        try await Self.withServer(["/quick": { _, _ in .text("quick") }]) { server in
            let transport = kind.make()
            var outcomes = (responses: 0, timeouts: 0)
            for round in 0..<200 {
                // 0.5 to 2.4 ms: about the time a response takes here, so some expire mid-transfer.
                let limits = MSALHTTPLimits(connectTimeout: 2, totalTimeout: 0.0005 + Double(round % 20) * 0.0001)
                let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            do {
                                let response = try await transport.send(
                                    MSALHTTPRequest(method: .get, url: server.url("/quick")), limits: limits)
                                #expect(String(decoding: response.body, as: UTF8.self) == "quick")
                                return true
                            } catch let error as MSALFailure where error.internalCode == .networkTimeout {
                                return false
                            }
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                outcomes.responses += results.filter { $0 }.count
                outcomes.timeouts += results.filter { !$0 }.count
            }
            #expect(outcomes.responses + outcomes.timeouts == 1600)
            #expect(outcomes.timeouts > 0)
            try await Self.expectStillWorks(transport, server)
        }
    }

    @Test("A connection closed mid-body: networkFailure", arguments: TransportKind.allCases)
    func resetMidBody(kind: TransportKind) async throws {
        try await Self.withServer(["/cut": { _, _ in .truncated(declaredLength: 1000, body: Array("{\"partial\":".utf8)) }]) { server in
            let error = try await Self.send(kind.make(), MSALHTTPRequest(method: .get, url: server.url("/cut")))
            #expect(error.code == .internal)
            #expect(error.internalCode == .networkFailure)
            #expect(error.underlyingError != nil)
        }
    }

    @Test(
        "A 302 is returned as it is by the transport and is an unexpectedRedirect for the pipeline; nothing follows it",
        arguments: TransportKind.allCases)
    func redirectNotFollowed(kind: TransportKind) async throws {
        try await Self.withServer([
            "/redirect": { _, _ in .redirect(to: "/target") },
            "/target": { _, _ in .text("followed") },
        ]) { server in
            let transport = kind.make()
            let response = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/redirect")), limits: Self.limits)
            #expect(response.statusCode == 302)
            #expect(response.headers["Location"] == "/target")
            #expect(String(decoding: response.body, as: UTF8.self) == "moved")

            let pipeline = HTTPPipeline(transport: transport, clock: ManualClock())
            let error = try await Self.expectMSALError {
                _ = try await pipeline.send(.form(url: server.url("/redirect"), parameters: [("code", "x")]), correlationID: UUID())
            }
            #expect(error.internalCode == .unexpectedRedirect)
            #expect(error.httpStatusCode == 302)
            #expect(server.requests(to: "/redirect").count == 2)
            #expect(server.requests(to: "/target").isEmpty)
        }
    }

    @Test("503 then 200 through the pipeline: one retry over the real transport", arguments: TransportKind.allCases)
    func retryOverNetwork(kind: TransportKind) async throws {
        try await Self.withServer([
            "/metadata": { _, index in
                index == 0 ? .json(#"{"error":"Service Unavailable"}"#, status: 503) : .json(#"{"issuer":"https://login.example"}"#)
            }
        ]) { server in
            let clock = ManualClock()
            let pipeline = HTTPPipeline(transport: kind.make(), clock: clock)
            let response = try await pipeline.send(MSALHTTPRequest(method: .get, url: server.url("/metadata")), correlationID: UUID())
            #expect(response.statusCode == 200)
            #expect(server.requests(to: "/metadata").count == 2)
            #expect(clock.sleeps == [0.5])
        }
    }

    @Test("A 401 with WWW-Authenticate is returned with its body (no credential prompt, no stall)", arguments: TransportKind.allCases)
    func unauthorized(kind: TransportKind) async throws {
        let body = #"{"error":"invalid_client","error_codes":[7000218]}"#
        try await Self.withServer([
            "/basic": { _, _ in .json(body, status: 401, headers: [("WWW-Authenticate", #"Basic realm="login""#)]) },
            "/bearer": { _, _ in .json(body, status: 401, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)]) },
        ]) { server in
            let transport = kind.make()
            for path in ["/basic", "/bearer"] {
                let response = try await transport.send(MSALHTTPRequest(method: .get, url: server.url(path)), limits: Self.limits)
                #expect(response.statusCode == 401)
                #expect(String(decoding: response.body, as: UTF8.self) == body)
                #expect(server.requests(to: path).count == 1)
            }
        }
    }

    @Test("No cookies are stored or sent, and nothing is served from a cache", arguments: TransportKind.allCases)
    func noCookiesNoCache(kind: TransportKind) async throws {
        try await Self.withServer([
            "/set": { _, _ in .text("set", headers: [("Set-Cookie", "session=secret; Path=/"), ("Cache-Control", "public, max-age=600")]) }
        ]) { server in
            let transport = kind.make()
            for _ in 0..<2 {
                let response = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/set")), limits: Self.limits)
                #expect(String(decoding: response.body, as: UTF8.self) == "set")
            }
            #expect(server.requests(to: "/set").count == 2)
            #expect(server.requests.allSatisfy { $0.headers["Cookie"] == nil })
        }
    }

    @Test("A refused connection: networkFailure, retried once for GET", arguments: TransportKind.allCases)
    func connectionRefused(kind: TransportKind) async throws {
        let port = try await LocalHTTPServer.closedPort()
        let url = URL(string: "http://127.0.0.1:\(port)/nothing")!
        let error = try await Self.send(kind.make(), MSALHTTPRequest(method: .get, url: url))
        #expect(error.code == .internal)
        #expect(error.internalCode == .networkFailure)
        #expect(error.underlyingError != nil)

        let counting = CountingTransport(kind.make())
        let clock = ManualClock()
        let pipelineError = try await Self.expectMSALError {
            _ = try await HTTPPipeline(transport: counting, clock: clock).send(
                MSALHTTPRequest(method: .get, url: url), correlationID: UUID())
        }
        #expect(pipelineError.internalCode == .networkFailure)
        #expect(counting.calls == 2)
        #expect(clock.sleeps == [0.5])
    }

    @Test("A TLS handshake failure (https to a plain HTTP port): tlsFailure, never retried", arguments: TransportKind.allCases)
    func tlsFailure(kind: TransportKind) async throws {
        try await Self.withServer(["/x": { _, _ in .text("plain") }]) { server in
            let url = server.url("/x", scheme: "https")
            let error = try await Self.send(kind.make(), MSALHTTPRequest(method: .get, url: url))
            #expect(error.code == .internal)
            #expect(error.internalCode == .tlsFailure)
            #expect(error.underlyingError != nil)

            let counting = CountingTransport(kind.make())
            let pipelineError = try await Self.expectMSALError {
                _ = try await HTTPPipeline(transport: counting, clock: ManualClock()).send(
                    MSALHTTPRequest(method: .get, url: url), correlationID: UUID())
            }
            #expect(pipelineError.internalCode == .tlsFailure)
            #expect(counting.calls == 1)
            #expect(server.requests.isEmpty)
        }
    }

    @Test("A request body over the cap is not sent", arguments: TransportKind.allCases)
    func requestBodyCap(kind: TransportKind) async throws {
        try await Self.withServer(["/token": { _, _ in .text("ok") }]) { server in
            let limits = MSALHTTPLimits(maximumRequestBodySize: 10, connectTimeout: 1, totalTimeout: 2)
            let request = MSALHTTPRequest(method: .post, url: server.url("/token"), body: Array("grant_type=x&code=y".utf8))
            let error = try await Self.send(kind.make(), request, limits: limits)
            #expect(error.internalCode == .bodyTooLarge)
            #expect(server.requests.isEmpty)
        }
    }

    @Test("A header field with a line break is refused before anything is sent (no header injection)", arguments: TransportKind.allCases)
    func headerInjection(kind: TransportKind) async throws {
        try await Self.withServer(["/token": { _, _ in .text("ok") }]) { server in
            let transport = kind.make()
            for (name, value) in [("X-Test", "a\r\nX-Injected: 1"), ("X-Test", "a\nb"), ("X-Bad\r\nName", "v"), ("X-Nul", "a\u{0}b")] {
                let request = MSALHTTPRequest(
                    method: .get, url: server.url("/token"),
                    headers: [(name, value)].reduce(into: MSALHTTPHeaders()) { $0.add(name: $1.0, value: $1.1) })
                let error = try await Self.send(transport, request)
                #expect(error.internalCode == .networkFailure)
                #expect(error.message.contains("line break"), "\(error.message)")
            }
            #expect(server.requests.isEmpty)
        }
    }

    @Test("Canceling the calling task cancels the transfer", arguments: TransportKind.allCases)
    func cancellation(kind: TransportKind) async throws {
        try await Self.withServer(["/hang": { _, _ in .delayed(milliseconds: 10_000, .text("late")) }]) { server in
            let transport = kind.make()
            let limits = MSALHTTPLimits(connectTimeout: 30, totalTimeout: 30)
            let task = Task { try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/hang")), limits: limits) }
            await server.waitForRequest(to: "/hang")
            task.cancel()
            await #expect(throws: CancellationError.self) { _ = try await task.value }
        }
    }

    @Test("Cancellation at any moment (before, during or after the transfer) neither crashes nor hangs", arguments: TransportKind.allCases)
    func cancellationRaces(kind: TransportKind) async throws {
        try await Self.withServer([
            "/quick": { _, _ in .text("quick") },
            "/slowish": { _, _ in .delayed(milliseconds: 20, .text("slowish")) },
        ]) { server in
            let transport = kind.make()
            var outcomes = (responses: 0, cancellations: 0)
            for round in 0..<60 {
                let path = round.isMultiple(of: 2) ? "/quick" : "/slowish"
                let task = Task { try await transport.send(MSALHTTPRequest(method: .get, url: server.url(path)), limits: Self.limits) }
                for _ in 0..<(round % 6) { await Task.yield() }
                if round % 3 == 0 { try await Task.sleep(for: .milliseconds(round % 7)) }
                task.cancel()
                do {
                    let response = try await task.value
                    #expect(response.statusCode == 200)
                    outcomes.responses += 1
                } catch is CancellationError {
                    outcomes.cancellations += 1
                }
            }
            #expect(outcomes.responses + outcomes.cancellations == 60)
            #expect(outcomes.cancellations > 0)
            try await Self.expectStillWorks(transport, server)
        }
    }

    @Test(
        "Limits of infinity, NaN, zero or below neither crash nor hang: a response, or a typed timeout for the tiny ones",
        arguments: TransportKind.allCases)
    func extremeLimits(kind: TransportKind) async throws {
        try await Self.withServer(["/quick": { _, _ in .text("quick") }]) { server in
            let transport = kind.make()
            let endless = MSALHTTPLimits(connectTimeout: .infinity, totalTimeout: .infinity)
            let response = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/quick")), limits: endless)
            #expect(String(decoding: response.body, as: UTF8.self) == "quick")
            let huge = MSALHTTPLimits(connectTimeout: .greatestFiniteMagnitude, totalTimeout: 1e300)
            _ = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/quick")), limits: huge)
            for tiny: Double in [.nan, 0, -5, -Double.infinity] {
                do {
                    let response = try await transport.send(
                        MSALHTTPRequest(method: .get, url: server.url("/quick")),
                        limits: MSALHTTPLimits(connectTimeout: tiny, totalTimeout: tiny))
                    #expect(response.statusCode == 200)
                } catch let error as MSALFailure {
                    #expect(error.internalCode == .networkTimeout, "\(tiny): \(error)")
                }
            }
        }
    }

    @Test("An unsupported scheme fails without a crash", arguments: TransportKind.allCases)
    func unsupportedScheme(kind: TransportKind) async throws {
        let error = try await Self.send(kind.make(), MSALHTTPRequest(method: .get, url: URL(string: "ftp://127.0.0.1/x")!))
        #expect(error.internalCode == .networkFailure)
    }
}

/// Counts the calls that reach the wrapped transport.
final class CountingTransport: MSALHTTPTransport {
    private let wrapped: any MSALHTTPTransport
    private let counter = Mutex(0)

    init(_ wrapped: any MSALHTTPTransport) {
        self.wrapped = wrapped
    }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        counter.withLock { $0 += 1 }
        return try await wrapped.send(request, limits: limits)
    }

    var calls: Int { counter.withLock { $0 } }
}
