import Foundation
import MSAL
import Testing

@Suite("HTTP pipeline: headers, retry, Retry-After and throttling")
struct HTTPPipelineTests {
    static let url = URL(string: "https://login.microsoftonline.com/common/discovery/instance?api-version=1.1")!
    static let tokenURL = URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/token")!
    static let correlation = UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!
    static let serverErrorBody =
        #"{"error":"server_error","error_description":"AADSTS50000: There was an error.","error_codes":[50000],"correlation_id":"f11508ab-067f-40d4-83cb-ccc67bf57e45"}"#
    static let tooManyBody = #"{"error":"Server overload","error_description":"429: Too many requests error","error_codes":[90010]}"#

    func pipeline(_ transport: QueueTransport, _ clock: ManualClock) -> HTTPPipeline {
        HTTPPipeline(transport: transport, clock: clock)
    }

    func expectError(_ body: () async throws -> MSALHTTPResponse) async -> MSALFailure? {
        do {
            _ = try await body()
            Issue.record("expected an error")
            return nil
        } catch let error as MSALFailure {
            return error
        } catch {
            Issue.record("not an MSALFailure: \(error)")
            return nil
        }
    }

    @Test("Every request carries the telemetry and correlation headers")
    func headers() async throws {
        let transport = QueueTransport([.respond(.json(200, "{}"))])
        _ = try await pipeline(transport, ManualClock()).send(MSALHTTPRequest(method: .get, url: Self.url), correlationID: Self.correlation)
        let sent = try #require(transport.requests.first)
        #expect(sent.headers["x-client-SKU"] == "MSAL.Swift.Linux")
        #expect(sent.headers["x-client-Ver"] == MSALVersion)
        #expect(sent.headers["x-client-OS"]?.hasPrefix("Linux") == true)
        #expect(sent.headers["x-ms-lib-capability"] == "retry-after, h429")
        #expect(sent.headers["client-request-id"] == "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
        #expect(sent.headers["return-client-request-id"] == "true")
    }

    @Test("GET 503 is retried once after the retry interval, then succeeds")
    func retryOnce() async throws {
        let transport = QueueTransport([.respond(.json(503, Self.serverErrorBody)), .respond(.json(200, "{}"))])
        let clock = ManualClock()
        let response = try await pipeline(transport, clock).send(
            MSALHTTPRequest(method: .get, url: Self.url), correlationID: Self.correlation)
        #expect(response.statusCode == 200)
        #expect(transport.callCount == 2)
        #expect(clock.sleeps == [0.5])
    }

    @Test("GET 503 twice → internal (unhandledResponse, as MSAL for iOS) with the OAuth fields, status and correlation id; no third call")
    func retryExhausted() async throws {
        let transport = QueueTransport([.respond(.json(503, Self.serverErrorBody)), .respond(.json(503, Self.serverErrorBody))])
        let error = try #require(
            await expectError {
                try await pipeline(transport, ManualClock()).send(
                    MSALHTTPRequest(method: .get, url: Self.url), correlationID: Self.correlation)
            })
        #expect(error.code == .internal)
        #expect(error.internalCode == .internalErrorUnhandledResponse)
        #expect(error.isServiceFailure)
        #expect((error as NSError).userInfo[MSALHTTPResponseCodeKey] as? String == "503")
        #expect(error.oauthError == "server_error")
        #expect(error.stsErrorCodes == [50000])
        #expect(error.httpStatusCode == 503)
        #expect(error.correlationID == Self.correlation)
        #expect(error.message.contains("AADSTS50000"))
        #expect(transport.callCount == 2)
    }

    @Test("A POST (token request) is never retried, on 5xx or on a timeout")
    func postNotRetried() async throws {
        let post = MSALHTTPRequest.form(url: Self.tokenURL, parameters: [("grant_type", "authorization_code"), ("code", "c")])
        let first = QueueTransport([.respond(.json(500, Self.serverErrorBody)), .respond(.json(200, "{}"))])
        let error = try #require(await expectError { try await pipeline(first, ManualClock()).send(post, correlationID: Self.correlation) })
        #expect(error.httpStatusCode == 500)
        #expect(first.callCount == 1)

        let second = QueueTransport([
            .fail(MSALFailure(.internal, internalCode: .networkTimeout, message: "timeout")), .respond(.json(200, "{}")),
        ])
        let timeout = try #require(
            await expectError { try await pipeline(second, ManualClock()).send(post, correlationID: Self.correlation) })
        #expect(timeout.internalCode == .networkTimeout)
        #expect(second.callCount == 1)
    }

    @Test("GET timeout and network failure are retried once; TLS failures never")
    func networkRetries() async throws {
        let timeout = QueueTransport([
            .fail(MSALFailure(.internal, internalCode: .networkTimeout, message: "t")), .respond(.json(200, "{}")),
        ])
        #expect(
            try await pipeline(timeout, ManualClock()).send(MSALHTTPRequest(method: .get, url: Self.url), correlationID: Self.correlation)
                .statusCode == 200)
        #expect(timeout.callCount == 2)

        let tls = QueueTransport([
            .fail(MSALFailure(.internal, internalCode: .tlsFailure, message: "bad cert")), .respond(.json(200, "{}")),
        ])
        let error = try #require(
            await expectError {
                try await pipeline(tls, ManualClock()).send(MSALHTTPRequest(method: .get, url: Self.url), correlationID: Self.correlation)
            })
        #expect(error.internalCode == .tlsFailure)
        #expect(tls.callCount == 1)
    }

    @Test("A transport error that is not an MSALFailure is wrapped as a network failure with the correlation id")
    func wrapsForeignErrors() async throws {
        struct Boom: Error, Sendable {}
        let transport = QueueTransport([.failWith(Boom()), .failWith(Boom())])
        let error = try #require(
            await expectError {
                try await pipeline(transport, ManualClock()).send(
                    MSALHTTPRequest(method: .get, url: Self.url), correlationID: Self.correlation)
            })
        #expect(error.internalCode == .networkFailure)
        #expect(error.correlationID == Self.correlation)
    }

    @Test("429 is not retried; an identical call is answered locally until Retry-After has passed")
    func throttling429() async throws {
        let transport = QueueTransport([
            .respond(.json(429, Self.tooManyBody, headers: ["Retry-After": "120"])),
            .respond(.json(200, "{}")),
        ])
        let clock = ManualClock()
        let pipeline = pipeline(transport, clock)
        let request = MSALHTTPRequest(method: .get, url: Self.url)
        let first = try #require(await expectError { try await pipeline.send(request, correlationID: Self.correlation) })
        #expect(first.httpStatusCode == 429)
        #expect(first.isThrottlingCacheHit == false)
        #expect(transport.callCount == 1)

        clock.advance(by: 119)
        let other = UUID()
        let repeated = try #require(await expectError { try await pipeline.send(request, correlationID: other) })
        #expect(repeated.isThrottlingCacheHit)
        #expect(repeated.correlationID == other)
        #expect(repeated.httpStatusCode == 429)
        #expect((repeated as NSError).userInfo[MSALThrottlingCacheHitKey] as? Bool == true)
        #expect(transport.callCount == 1)

        clock.advance(by: 2)
        #expect(try await pipeline.send(request, correlationID: Self.correlation).statusCode == 200)
        #expect(transport.callCount == 2)
    }

    @Test("A throttled request does not throttle a different one")
    func throttlingIsPerRequest() async throws {
        let transport = QueueTransport([.respond(.json(429, Self.tooManyBody, headers: ["Retry-After": "60"])), .respond(.json(200, "{}"))])
        let pipeline = pipeline(transport, ManualClock())
        let a = MSALHTTPRequest.form(url: Self.tokenURL, parameters: [("refresh_token", "a")])
        let b = MSALHTTPRequest.form(url: Self.tokenURL, parameters: [("refresh_token", "b")])
        _ = await expectError { try await pipeline.send(a, correlationID: Self.correlation) }
        #expect(try await pipeline.send(b, correlationID: Self.correlation).statusCode == 200)
    }

    @Test(
        "Retry-After: seconds, HTTP date, garbage, negative, huge (clamped)",
        arguments: [
            ("30", 30.0), ("Tue, 14 Nov 2023 22:15:00 GMT", 100.0), ("soon", 60.0), ("-5", 0.0), ("999999999", 3600.0),
        ])
    func retryAfterForms(header: String, expectedWait: Double) async throws {
        // 1700000000 is Tue, 14 Nov 2023 22:13:20 GMT.
        let transport = QueueTransport([
            .respond(.json(429, Self.tooManyBody, headers: ["Retry-After": header])), .respond(.json(200, "{}")),
        ])
        let clock = ManualClock(1_700_000_000)
        let pipeline = pipeline(transport, clock)
        let request = MSALHTTPRequest(method: .get, url: Self.url)
        _ = await expectError { try await pipeline.send(request, correlationID: Self.correlation) }
        if expectedWait > 0 {
            clock.advance(by: expectedWait - 0.5)
            let repeated = await expectError { try await pipeline.send(request, correlationID: Self.correlation) }
            #expect(repeated?.isThrottlingCacheHit == true)
        }
        clock.advance(by: 1)
        #expect(try await pipeline.send(request, correlationID: Self.correlation).statusCode == 200)
        #expect(transport.callCount == 2)
    }

    @Test("A 5xx with a long Retry-After is not retried but throttled")
    func longRetryAfterOn5xx() async throws {
        let transport = QueueTransport([
            .respond(.json(503, Self.serverErrorBody, headers: ["Retry-After": "30"])), .respond(.json(200, "{}")),
        ])
        let clock = ManualClock()
        let pipeline = pipeline(transport, clock)
        let request = MSALHTTPRequest(method: .get, url: Self.url)
        _ = await expectError { try await pipeline.send(request, correlationID: Self.correlation) }
        #expect(transport.callCount == 1)
        #expect(clock.sleeps.isEmpty)
        let repeated = await expectError { try await pipeline.send(request, correlationID: Self.correlation) }
        #expect(repeated?.isThrottlingCacheHit == true)
    }

    @Test("A 3xx is never followed: unexpectedRedirect")
    func redirect() async throws {
        let transport = QueueTransport([.respond(MSALHTTPResponse(statusCode: 302, headers: ["Location": "https://evil.example/x"]))])
        let error = try #require(
            await expectError {
                try await pipeline(transport, ManualClock()).send(
                    MSALHTTPRequest.form(url: Self.tokenURL, parameters: [("code", "c")]), correlationID: Self.correlation)
            })
        #expect(error.internalCode == .unexpectedRedirect)
        #expect(error.httpStatusCode == 302)
        #expect(transport.callCount == 1)
    }

    @Test("4xx other than 429 is returned to the caller untouched")
    func clientErrorsReturned() async throws {
        let transport = QueueTransport([.respond(.json(400, #"{"error":"invalid_grant"}"#))])
        let response = try await pipeline(transport, ManualClock()).send(
            MSALHTTPRequest(method: .get, url: Self.url), correlationID: Self.correlation)
        #expect(response.statusCode == 400)
    }

    @Test("A request body over the cap is refused before sending")
    func requestBodyCap() async throws {
        let transport = QueueTransport([.respond(.json(200, "{}"))])
        let big = MSALHTTPRequest.form(url: Self.tokenURL, parameters: [("claims", String(repeating: "x", count: 300_000))])
        let error = try #require(
            await expectError { try await pipeline(transport, ManualClock()).send(big, correlationID: Self.correlation) })
        #expect(error.internalCode == .bodyTooLarge)
        #expect(transport.callCount == 0)
    }

    @Test("Error bodies: HTML, BOM, truncated JSON, control characters never crash and are sanitized")
    func errorBodies() {
        #expect(OAuthErrorResponse(body: Array("<html>503</html>".utf8)).error == nil)
        #expect(OAuthErrorResponse(body: [0xEF, 0xBB, 0xBF] + Array(#"{"error":"invalid_grant"}"#.utf8)).error == "invalid_grant")
        #expect(OAuthErrorResponse(body: Array(#"{"error":"invalid_gr"#.utf8)).error == nil)
        let hostile = OAuthErrorResponse(body: Array(#"{"error":"x","error_description":"a\u0000b\nc"}"#.utf8))
        #expect(hostile.errorDescription == "a\\u{0}b\\u{a}c")
        let long = OAuthErrorResponse(body: Array(("{\"error_description\":\"" + String(repeating: "y", count: 10_000) + "\"}").utf8))
        #expect(long.errorDescription.map { $0.count <= OAuthErrorResponse.maximumDescriptionLength + 1 } == true)
    }
}
