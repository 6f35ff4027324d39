import Foundation
import MSALJSON
import MSALSupport
import Testing

@testable import MSAL

/// The device authorization response read strictly (bad-inputs.md "Device code"), and the polling
/// loop's edges the recorded scenarios do not reach: cancellation, unknown errors, the interval cap.
@Suite("Device code: response parsing and polling")
struct DeviceCodeTests {
    static func parse(_ json: String) throws(MSALFailure) -> DeviceCodeResponse {
        try DeviceCodeResponse(parsing: Array(json.utf8))
    }

    static func body(_ changes: [String: String]) -> String {
        var members: [String: String] = [
            "device_code": #""DC""#, "user_code": #""UC""#, "verification_uri": #""https://microsoft.com/devicelogin""#,
            "expires_in": "900", "interval": "5", "message": #""Go to https://microsoft.com/devicelogin""#,
        ]
        for (name, value) in changes { members[name] = value }
        return "{"
            + members.filter { $0.value != "-" }.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    @Test("The wire response of the reference collection (Android's mock) is read as sent")
    func reference() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: FixtureLoader.data("Flows/device-code/android_device_code_response.json"))
                as? [String: Any])
        let body = try #require((document["response"] as? [String: Any])?["body"])
        let response = try DeviceCodeResponse(parsing: Array(try JSONSerialization.data(withJSONObject: body)))
        #expect(response.userCode == "FRWHLEZCG")
        #expect(response.verificationURI.absoluteString == "https://microsoft.com/devicelogin")
        #expect(response.expiresIn == 900)
        #expect(response.interval == 5)
        #expect(response.message.hasPrefix("To sign in, use a web browser"))
    }

    @Test(
        "interval: a string is read, zero/negative/garbage/missing is the RFC default of 5 s, huge is capped at 60 s",
        arguments: [
            (#""7""#, Int64(7)), (#"" 3 ""#, 3), ("0", 5), ("-4", 5), (#""soon""#, 5), ("null", 5), ("-", 5), ("2.9", 2),
            ("86400", 60), ("1e300", 5), (#""99999999999999999999""#, 5), ("true", 5),
        ])
    func interval(value: String, expected: Int64) throws {
        #expect(try Self.parse(Self.body(["interval": value])).interval == expected)
    }

    @Test(
        "expires_in: a string is read, huge is capped at an hour; zero, negative, missing or garbage is an invalidResponse",
        arguments: [
            (#""900""#, Int64?(900)), ("1", 1), ("999999999", 3600), ("0", nil), ("-1", nil), ("-", nil), (#""later""#, nil), ("null", nil),
            ("{}", nil),
        ])
    func expiresIn(value: String, expected: Int64?) throws {
        let json = Self.body(["expires_in": value])
        if let expected {
            #expect(try Self.parse(json).expiresIn == expected)
        } else {
            #expect(throws: MSALFailure.self) { try Self.parse(json) }
            do { _ = try Self.parse(json) } catch { #expect(error.internalCode == .internalErrorInvalidResponse) }
        }
    }

    @Test("expires_in shorter than the interval is accepted (the flow then expires before the first poll)")
    func expiresBeforeInterval() throws {
        let response = try Self.parse(Self.body(["expires_in": "3", "interval": "5"]))
        #expect(response.expiresIn == 3)
        #expect(response.interval == 5)
    }

    @Test(
        "Missing or unusable device_code, user_code or verification URI: invalidResponse naming the field",
        arguments: [
            ("device_code", "-"), ("device_code", #""""#), ("device_code", "42"), ("user_code", "-"), ("user_code", "null"),
            ("verification_uri", "-"), ("verification_uri", #""not a url""#), ("verification_uri", #""ftp://x.example/""#),
            ("verification_uri", #""javascript:alert(1)""#), ("verification_uri", #""https://""#),
        ])
    func missingField(name: String, value: String) {
        do {
            _ = try Self.parse(Self.body([name: value]))
            Issue.record("accepted \(name)=\(value)")
        } catch {
            #expect(error.code == .internal)
            #expect(error.internalCode == .internalErrorInvalidResponse)
            #expect(error.message.contains(name.hasPrefix("verification") ? "verification_uri" : name), "\(error.message)")
        }
    }

    @Test("verification_url (the older name MSAL.NET's mock uses) stands in for verification_uri; the URI wins when both are sent")
    func verificationURLAlias() throws {
        let alias = try Self.parse(Self.body(["verification_uri": "-", "verification_url": #""https://microsoft.com/devicelogin""#]))
        #expect(alias.verificationURI.absoluteString == "https://microsoft.com/devicelogin")
        let both = try Self.parse(Self.body(["verification_url": #""https://old.example/""#]))
        #expect(both.verificationURI.absoluteString == "https://microsoft.com/devicelogin")
    }

    @Test("A missing message is written from the URI and code; control characters in a message are escaped")
    func message() throws {
        let missing = try Self.parse(Self.body(["message": "-"]))
        #expect(missing.message.contains("https://microsoft.com/devicelogin") && missing.message.contains("UC"))
        let hostile = try Self.parse(Self.body(["message": #""Open\u001b[2J the page\r\n""#]))
        #expect(!hostile.message.contains("\u{1B}") && !hostile.message.contains("\n"))
    }

    /// The input `FuzzTokenResponse` (FuzzTesting/, docs/reliability.md "Fuzzing") stopped on: without a
    /// `message`, the one written from the URI and code carried the code's DEL character.
    static let userCodeWithControlCharacter =
        #"{"user_code":"USER\#u{7F}CODE","device_code":"DEVICE_CODE","verification_uri":"https://in","expires_in":900,"intererror_codessage":"To sign in, us_CODE to auth to aute."}"#

    @Test(
        "A user_code with a control character is an invalidResponse (it cannot be typed, and printed it drives the terminal)",
        arguments: [
            userCodeWithControlCharacter, body(["user_code": #""A\u001b[2JB""#]), body(["user_code": #""UC\n""#]),
            body(["user_code": #""\u0085UC""#]),
            body(["user_code": #""UC\u0000""#, "message": "-"]),
        ])
    func userCodeControlCharacters(json: String) {
        do {
            let response = try Self.parse(json)
            Issue.record("accepted user_code \(response.userCode.debugDescription), message \(response.message.debugDescription)")
        } catch {
            #expect(error.internalCode == .internalErrorInvalidResponse)
            #expect(error.message.contains("user_code"), "\(error.message)")
        }
    }

    @Test("Not a JSON object: MSAL.NET's trailing comma, HTML, an array, a byte-order mark alone, empty")
    func notJSON() throws {
        let dotnet = try #require(
            try JSONSerialization.jsonObject(with: FixtureLoader.data("Flows/device-code/dotnet_device_code_response.json"))
                as? [String: Any])
        let trailingComma = try #require((dotnet["response"] as? [String: Any])?["body_text"] as? String)
        for text in [trailingComma, "<html></html>", "[]", "\u{FEFF}", ""] {
            do {
                _ = try Self.parse(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.internalCode == .internalErrorInvalidResponse)
            }
        }
        // With the comma removed, its quirks (string numbers, verification_url) are accepted.
        let strict = try Self.parse(trailingComma.replacingOccurrences(of: ",}", with: "}"))
        #expect(strict.interval == 1)
        #expect(strict.expiresIn == 900)
        #expect(strict.userCode == "B6SUYU5PL")
    }

    // MARK: Polling

    static func deviceCodeTransport(polls: @escaping FlowTransport.Handler, start: String = body([:])) -> FlowTransport {
        FlowTransport(token: polls, deviceCode: { _ in .json(200, start) })
    }

    @Test("Canceling the task stops the polling: userCanceled/sessionCanceled, no further request, nothing cached")
    func cancellation() async throws {
        let polls = Mutex(0)
        let transport = Self.deviceCodeTransport(polls: { _ in
            polls.withLock { $0 += 1 }
            return .json(400, #"{"error":"authorization_pending"}"#)
        })
        let harness = try FlowHarness(transport)
        let callbacks = Recorder<MSALDeviceCodeInfo>()
        let app = harness.app
        let task = Task {
            try await app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"])) { info in
                callbacks.append(info)
                // The callback runs in the flow's task: cancel it, as an app's "Cancel" button would.
                withUnsafeCurrentTask { $0?.cancel() }
            }
        }
        let error = await expectMSALError { try await task.value }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
        #expect(callbacks.values.count == 1)
        #expect(polls.withLock { $0 } == 0)
        #expect(try harness.secrets(.accessToken).isEmpty)
    }

    @Test("Canceled while a poll is in flight: userCanceled")
    func cancellationDuringPoll() async throws {
        let transport = Self.deviceCodeTransport(polls: { _ in
            withUnsafeCurrentTask { $0?.cancel() }
            throw CancellationError()
        })
        let app = try FlowHarness(transport).app
        let task = Task { try await app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"])) { _ in } }
        let error = await expectMSALError { try await task.value }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
    }

    @Test("An unknown polling error stops at once (RFC 8628: any other error → stop), as do bad_verification_code and invalid_grant")
    func unknownErrorStops() async throws {
        for body in [
            #"{"error":"something_new"}"#, #"{"error":"bad_verification_code"}"#, #"{"error":"invalid_grant"}"#, "<html>oops</html>",
        ] {
            let polls = Mutex(0)
            let transport = Self.deviceCodeTransport(polls: { _ in
                polls.withLock { $0 += 1 }
                return MSALHTTPResponse(statusCode: 400, text: body)
            })
            let harness = try FlowHarness(transport)
            let error = await expectMSALError {
                try await harness.app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"])) { _ in }
            }
            #expect(error != nil, "\(body)")
            #expect(error?.code != .userCanceled && error?.internalCode != .deviceCodeExpired, "\(body)")
            #expect(polls.withLock { $0 } == 1, "\(body)")
        }
    }

    @Test("slow_down adds five seconds each time, up to the 60 s cap; the code's lifetime still ends the flow")
    func slowDownCap() async throws {
        let transport = Self.deviceCodeTransport(
            polls: { _ in .json(400, #"{"error":"slow_down"}"#) }, start: Self.body(["interval": "50", "expires_in": "600"]))
        let harness = try FlowHarness(transport)
        let error = await expectMSALError {
            try await harness.app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"])) { _ in }
        }
        #expect(error?.internalCode == .deviceCodeExpired)
        // 50, then 55, then 60 (cap) until 600 s have passed: 50+55+60·8 = 585, and the last wait is cut
        // at the code's expiry (15 s), not a full interval past it.
        #expect(harness.clock.sleeps == [50, 55] + Array(repeating: 60, count: 8) + [15])
        #expect(transport.tokenRequests.count == 10)
    }

    @Test("A token response on the poll is verified: an ID token for another client caches nothing")
    func pollAnswerVerified() async throws {
        let transport = Self.deviceCodeTransport(polls: { _ in
            FlowTokens.success(accessToken: "at", refreshToken: "rt", idToken: FlowTokens.idToken(.abe, audience: "another-client"))
        })
        let harness = try FlowHarness(transport)
        let error = await expectMSALError {
            try await harness.app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"])) { _ in }
        }
        #expect(error?.internalCode == .idTokenAudienceMismatch)
        #expect(try harness.secrets(.accessToken).isEmpty)
        #expect(try harness.secrets(.refreshToken).isEmpty)
        #expect(try harness.app.allAccounts().isEmpty)
    }

    @Test("The completion-block variant calls back once, with the result")
    func completionBlock() async throws {
        let transport = Self.deviceCodeTransport(polls: { _ in FlowTokens.success(accessToken: "at-dc", refreshToken: "rt") })
        let harness = try FlowHarness(transport)
        let outcome: (MSALResult?, (any Error)?) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(MSALResult?, (any Error)?), Never>) in
            harness.app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"]), deviceCodeCallback: { _ in }) {
                result, error in
                continuation.resume(returning: (result, error))
            }
        }
        #expect(outcome.0?.accessToken == "at-dc")
        #expect(outcome.0?.tokenSource == .identityProvider)
        #expect(outcome.1 == nil)
        #expect(try harness.app.allAccounts().map(\.identifier) == [TestAccount.abe.home])
    }
}
