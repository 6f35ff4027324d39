import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// The device code poll ends at the code's expiry (issue 39, finding 8): the last wait is cut at
/// the deadline, and then the flow fails with `deviceCodeExpired` without another poll, as MSAL Go's
/// `DeviceCode.Token` cuts its wait with a context deadline at the code's `ExpiresOn`.
@Suite("Device code: the poll never waits past the code's expiry")
struct DeviceCodeDeadlineTests {
    static func run(expiresIn: Int, interval: Int) async throws -> (error: MSALFailure?, harness: FlowHarness, polls: Int) {
        let polls = Mutex(0)
        let transport = DeviceCodeTests.deviceCodeTransport(
            polls: { _ in
                polls.withLock { $0 += 1 }
                return .json(400, #"{"error":"authorization_pending"}"#)
            }, start: DeviceCodeTests.body(["expires_in": "\(expiresIn)", "interval": "\(interval)"]))
        let harness = try FlowHarness(transport)
        let parameters = MSALTokenParameters(scopes: ["User.Read"])
        let correlationID = UUID()
        parameters.correlationId = correlationID
        let error = await expectMSALError { try await harness.app.acquireTokenWithDeviceCode(with: parameters) { _ in } }
        #expect(error?.correlationID == correlationID)
        return (error, harness, polls.withLock { $0 })
    }

    @Test(
        "The last wait is cut at the deadline, then deviceCodeExpired without another poll",
        arguments: [
            // (expires_in, interval, the waits, the polls)
            (12, 5, [5.0, 5, 2], 2),
            (10, 5, [5.0, 5], 1),
            (3, 5, [3.0], 0),
            (900, 60, Array(repeating: 60.0, count: 15), 14),
            (61, 60, [60.0, 1], 1),
        ])
    func cutAtDeadline(expiresIn: Int, interval: Int, sleeps: [Double], polls: Int) async throws {
        let (error, harness, sent) = try await Self.run(expiresIn: expiresIn, interval: interval)
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .deviceCodeExpired)
        #expect(harness.clock.sleeps == sleeps)
        #expect(sent == polls)
        #expect(
            harness.clock.now() == Date(timeIntervalSince1970: FlowIdentity.now + Double(expiresIn)),
            "the flow ends at the expiry, not after")
        #expect(try harness.secrets(.accessToken).isEmpty)
    }

    @Test("The service's expired_token before the deadline is deviceCodeExpired too, at once")
    func serviceExpired() async throws {
        let transport = DeviceCodeTests.deviceCodeTransport(polls: { _ in .json(400, #"{"error":"expired_token"}"#) })
        let harness = try FlowHarness(transport)
        let error = await expectMSALError {
            try await harness.app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"])) { _ in }
        }
        #expect(error?.internalCode == .deviceCodeExpired)
        #expect(error?.oauthError == "expired_token")
        #expect(harness.clock.sleeps == [5])
    }
}
