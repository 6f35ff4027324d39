import Foundation
import MSAL
import MSALEmulator
import Testing

@Suite("Emulator end to end: the device code flow through the public API")
struct DeviceCodeFlowTests {
    /// Starts a device code request whose callback hands the code over; returns the pending result and the codes.
    private static func start(
        _ app: MSALPublicClientApplication, scopes: [String] = ["User.Read"]
    ) -> (Task<MSALResult, any Error>, AsyncStream<MSALDeviceCodeInfo>) {
        let (codes, continuation) = AsyncStream.makeStream(of: MSALDeviceCodeInfo.self)
        let task = Task {
            defer { continuation.finish() }
            return try await app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: scopes)) { info in
                continuation.yield(info)
            }
        }
        return (task, codes)
    }

    @Test("Approved by a concurrent admin call while the SDK polls: tokens for the approving user")
    func approvedConcurrently() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let (task, codes) = Self.start(app)
            var iterator = codes.makeAsyncIterator()
            let info = try #require(await iterator.next())
            #expect(info.verificationURI == harness.emulator.deviceLoginURL)
            #expect(info.message.contains(info.userCode))
            #expect(harness.emulator.pendingUserCodes == [info.userCode])
            let approval = Task { try harness.emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorHarness.ben) }
            try await approval.value

            let result = try await task.value
            #expect(result.account.username == EmulatorHarness.ben)
            #expect(result.tokenSource == .identityProvider)
            #expect(harness.emulator.requestCount(.deviceCode) == 1)
            let polls = harness.emulator.requests.filter { $0.grantType == .deviceCode }
            #expect(polls.last?.status == 200)
            #expect(polls.dropLast().allSatisfy { $0.oauthError == "authorization_pending" })
            // The SDK waited the interval the emulator asked for before each poll; never slow_down.
            #expect(harness.clock.sleeps.count == polls.count)
            #expect(harness.clock.sleeps.allSatisfy { $0 == Double(harness.emulator.lifetimes.deviceCodeInterval) })
            #expect(harness.emulator.pendingUserCodes.isEmpty)
            #expect(try await harness.resource(result.authorizationHeader).status == 200)
        }
    }

    @Test("Approved on the /devicelogin page over HTTP, as a person on another device would")
    func approvedOnThePage() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application(tenant: EmulatorHarness.contoso)
            let (task, codes) = Self.start(app)
            var iterator = codes.makeAsyncIterator()
            let info = try #require(await iterator.next())
            let page = try await RawResponse.send("GET", info.verificationURI)
            #expect(page.status == 200)
            #expect(page.text.contains("name=\"user_code\""))
            // Grace is a guest in Contoso, so she can approve a Contoso device code.
            let answer = try await RawResponse.send(
                "POST", info.verificationURI,
                form: [("user_code", info.userCode.lowercased()), ("emulator_user", EmulatorHarness.grace), ("emulator_action", "approve")])
            #expect(answer.status == 200)
            let result = try await task.value
            #expect(result.account.username == EmulatorHarness.grace)
            #expect(result.tenantProfile.tenantId == EmulatorHarness.contoso)
        }
    }

    @Test("Declined: the SDK reports the user canceled")
    func declined() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let (task, codes) = Self.start(app)
            var iterator = codes.makeAsyncIterator()
            let info = try #require(await iterator.next())
            try harness.emulator.declineDeviceCode(userCode: info.userCode)
            await #expect {
                _ = try await task.value
            } throws: { error in
                let error = error as? MSALFailure
                return error?.code == .userCanceled && error?.oauthError == "authorization_declined"
            }
            #expect(throws: MSALEmulatorError.self) {
                try harness.emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorHarness.ben)
            }
        }
    }

    @Test("Never approved: the code expires and the SDK stops with deviceCodeExpired")
    func expires() async throws {
        var configuration = MSALEmulator.Configuration.sample
        configuration.lifetimes.deviceCode = 60
        try await EmulatorHarness.with(configuration) { harness in
            let app = try harness.application()
            let (task, _) = Self.start(app)
            await #expect {
                _ = try await task.value
            } throws: { error in
                (error as? MSALFailure)?.internalCode == .deviceCodeExpired
            }
            let polls = harness.emulator.requests.filter { $0.grantType == .deviceCode }
            #expect((1...12).contains(polls.count))
            #expect(polls.allSatisfy { $0.oauthError == "authorization_pending" || $0.oauthError == "expired_token" })
            #expect(harness.emulator.pendingUserCodes.isEmpty)
        }
    }
}
