import Foundation
import MSAL
import Testing

/// `MSALGlobalConfig.telemetryConfig` as MSAL for iOS apps use it: a process-wide callback that
/// receives one aggregated `api_event` per token call.
///
/// The configuration is process-wide and other suites make token calls at the same time, so each
/// test keeps only the events carrying its own correlation id. The suite is serialized because its
/// tests set the callback and flip `piiEnabled` and `notifyOnFailureOnly`; each restores the
/// defaults when it ends.
@Suite("MSAL for iOS: MSALGlobalConfig.telemetryConfig reports token calls", .serialized)
struct TelemetryTests {
    /// Collects the events of the correlation ids it watches.
    final class Recorder: @unchecked Sendable {
        // @unchecked Sendable: `received` is read and written only under `lock`.
        private let lock = NSLock()
        private var received: [[String: String]] = []

        /// The callback to install: keeps every event, to be filtered by correlation id.
        var callback: MSALTelemetryCallback {
            { [self] event in lock.withLock { received.append(event) } }
        }

        /// The events received so far for `correlationID`.
        func events(for correlationID: UUID) -> [[String: String]] {
            let id = correlationID.uuidString.lowercased()
            return lock.withLock { received.filter { $0["msal.correlation_id"] == id } }
        }

        /// The events for `correlationID` once there are `count` of them, or what came within 30 s.
        func waitForEvents(_ correlationID: UUID, count: Int = 1) async -> [[String: String]] {
            for _ in 0..<3000 {
                let events = events(for: correlationID)
                if events.count >= count { return events }
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            return events(for: correlationID)
        }
    }

    /// Restores the process-wide defaults.
    static func resetTelemetry() {
        let config = MSALGlobalConfig.telemetryConfig
        config.telemetryCallback = nil
        config.piiEnabled = false
        config.notifyOnFailureOnly = false
    }

    /// A fixture whose access token is valid (a silent call is a cache hit) or expired (a silent
    /// call redeems the refresh token, and the stub answers `invalid_grant`).
    static func fixture(valid: Bool) throws -> CompatibilityFixture {
        let expiry = Int(Date().timeIntervalSince1970) + (valid ? 3600 : -60)
        return try CompatibilityFixture(accessTokenExpiresOn: expiry) {
            StubPlatform.json(
                400, #"{"error":"invalid_grant","suberror":"bad_token","error_description":"AADSTS70000: expired","error_codes":[70000]}"#)
        }
    }

    /// Silent parameters for the fixture's account with a correlation id of the test's own.
    static func parameters(_ application: MSALPublicClientApplication) throws -> (MSALSilentTokenParameters, UUID) {
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        let correlationID = UUID()
        parameters.correlationId = correlationID
        return (parameters, correlationID)
    }

    /// Neither token of the fixture appears in any value of `event`.
    static func expectNoTokens(_ event: [String: String]) {
        for (key, value) in event {
            #expect(!value.contains("at-cached"), "\(key) holds the access token")
            #expect(!value.contains("rt-cached"), "\(key) holds the refresh token")
            #expect(!value.contains("AADSTS70000: expired"), "\(key) holds the error description")
        }
    }

    @Test("The shared configuration starts with telemetry off and MSAL for iOS's defaults")
    func defaults() {
        let config = MSALGlobalConfig.telemetryConfig
        #expect(config === MSALGlobalConfig.telemetryConfig)
        #expect(config.telemetryCallback == nil)
        #expect(!config.piiEnabled)
        #expect(!config.notifyOnFailureOnly)
    }

    @Test("A silent cache hit makes one success event with MSAL's keys and api id 34, naming no user")
    func silentCacheHit() async throws {
        let recorder = Recorder()
        MSALGlobalConfig.telemetryConfig.telemetryCallback = recorder.callback
        defer { Self.resetTelemetry() }
        let fixture = try Self.fixture(valid: true)
        let application = try fixture.application()
        let (parameters, correlationID) = try Self.parameters(application)

        let before = Date().timeIntervalSince1970
        let result = try await application.acquireTokenSilent(with: parameters)
        let after = Date().timeIntervalSince1970
        #expect(result.accessToken == "at-cached")

        let events = await recorder.waitForEvents(correlationID)
        try #require(events.count == 1)
        let event = events[0]
        #expect(event["msal.event_name"] == "api_event")
        #expect(event["msal.api_id"] == "34")
        #expect(event["msal.correlation_id"] == correlationID.uuidString.lowercased())
        #expect(event["msal.client_id"] == CompatibilityFixture.clientID)
        #expect(event["msal.is_successfull"] == "yes")
        #expect(event["msal.authority_type"] == "aad")
        #expect(event["msal.extended_expires_on_setting"] == "no")
        #expect(event["msal.prompt_behavior"] == nil)
        let start = try #require(event["msal.start_time"].flatMap(Double.init))
        let stop = try #require(event["msal.stop_time"].flatMap(Double.init))
        #expect(start >= before.rounded(.down) - 0.001 && start <= stop && stop <= after + 0.001)
        #expect(event["msal.start_time"]?.split(separator: ".").last?.count == 3)
        let responseTime = try #require(event["msal.response_time"].flatMap(Int.init))
        #expect(responseTime >= 0 && Double(responseTime) <= (after - before) * 1000 + 1)
        for key in ["msal.api_error_code", "msal.error_domain", "msal.error_protocol_code", "msal.tenant_id", "msal.user_id"] {
            #expect(event[key] == nil, "\(key) is set")
        }
        #expect(event.keys.allSatisfy { $0.hasPrefix("msal.") })
        Self.expectNoTokens(event)

        // The remembered hit (the fast path) is reported too, once per call.
        let again = try Self.parameters(application)
        _ = try await application.acquireTokenSilent(with: again.0)
        let second = await recorder.waitForEvents(again.1)
        #expect(second.count == 1)
        #expect(second.first?["msal.is_successfull"] == "yes")
        #expect(recorder.events(for: correlationID).count == 1)
    }

    @Test("A refresh answered invalid_grant makes a failure event with -50002 and the server's codes")
    func failedRefresh() async throws {
        let recorder = Recorder()
        MSALGlobalConfig.telemetryConfig.telemetryCallback = recorder.callback
        defer { Self.resetTelemetry() }
        let fixture = try Self.fixture(valid: false)
        let application = try fixture.application()
        let (parameters, correlationID) = try Self.parameters(application)

        do {
            _ = try await application.acquireTokenSilent(with: parameters)
            Issue.record("the refresh succeeded")
        } catch {
            #expect((error as NSError).code == MSALError.interactionRequired.rawValue)
        }

        let events = await recorder.waitForEvents(correlationID)
        try #require(events.count == 1)
        let event = events[0]
        #expect(event["msal.api_id"] == "34")
        #expect(event["msal.is_successfull"] == "no")
        #expect(event["msal.api_error_code"] == "-50002")
        #expect(event["msal.error_domain"] == MSALErrorDomain)
        #expect(event["msal.error_protocol_code"] == "invalid_grant")
        #expect(event["msal.server_error_code"] == "70000")
        #expect(event["msal.server_sub_error_code"] == "bad_token")
        #expect(event["msal.client_id"] == CompatibilityFixture.clientID)
        #expect(event["msal.tenant_id"] == nil)
        #expect(event["msal.user_id"] == nil)
        Self.expectNoTokens(event)
    }

    @Test("notifyOnFailureOnly reports the failed call and not the successful one")
    func failuresOnly() async throws {
        let recorder = Recorder()
        MSALGlobalConfig.telemetryConfig.telemetryCallback = recorder.callback
        MSALGlobalConfig.telemetryConfig.notifyOnFailureOnly = true
        defer { Self.resetTelemetry() }
        #expect(MSALGlobalConfig.telemetryConfig.notifyOnFailureOnly)

        let valid = try Self.fixture(valid: true)
        let succeeding = try valid.application()
        let (hit, hitID) = try Self.parameters(succeeding)
        _ = try await succeeding.acquireTokenSilent(with: hit)

        let expired = try Self.fixture(valid: false)
        let failing = try expired.application()
        let (refresh, refreshID) = try Self.parameters(failing)
        _ = try? await failing.acquireTokenSilent(with: refresh)

        // Events are handed over one at a time in the order the calls ended, so once the failure's
        // has arrived, the success's would have too.
        let failures = await recorder.waitForEvents(refreshID)
        #expect(failures.count == 1)
        #expect(failures.first?["msal.is_successfull"] == "no")
        #expect(recorder.events(for: hitID).isEmpty)
    }

    @Test("piiEnabled adds tenant_id and user_id; they are absent when it is off")
    func personalData() async throws {
        let recorder = Recorder()
        MSALGlobalConfig.telemetryConfig.telemetryCallback = recorder.callback
        defer { Self.resetTelemetry() }
        let fixture = try Self.fixture(valid: true)
        let application = try fixture.application()

        MSALGlobalConfig.telemetryConfig.piiEnabled = true
        #expect(MSALGlobalConfig.telemetryConfig.piiEnabled)
        let (withPII, withID) = try Self.parameters(application)
        _ = try await application.acquireTokenSilent(with: withPII)
        let shown = try #require(await recorder.waitForEvents(withID).first)
        #expect(shown["msal.tenant_id"] == CompatibilityFixture.utid)
        #expect(shown["msal.user_id"] == CompatibilityFixture.homeAccountID)
        Self.expectNoTokens(shown)

        MSALGlobalConfig.telemetryConfig.piiEnabled = false
        let (withoutPII, withoutID) = try Self.parameters(application)
        _ = try await application.acquireTokenSilent(with: withoutPII)
        let hidden = try #require(await recorder.waitForEvents(withoutID).first)
        #expect(hidden["msal.tenant_id"] == nil)
        #expect(hidden["msal.user_id"] == nil)
        #expect(!hidden.values.contains { $0.contains(CompatibilityFixture.uid) || $0.contains(CompatibilityFixture.utid) })

        // A failure names the account too, only with piiEnabled.
        MSALGlobalConfig.telemetryConfig.piiEnabled = true
        let expired = try Self.fixture(valid: false)
        let failing = try expired.application()
        let (refresh, refreshID) = try Self.parameters(failing)
        _ = try? await failing.acquireTokenSilent(with: refresh)
        let failed = try #require(await recorder.waitForEvents(refreshID).first)
        #expect(failed["msal.user_id"] == CompatibilityFixture.homeAccountID)
        #expect(failed["msal.tenant_id"] == CompatibilityFixture.utid)
        Self.expectNoTokens(failed)
    }

    @Test("With no callback, calls work and nothing is dispatched, through both the async and the completion-block APIs")
    func noCallback() async throws {
        let recorder = Recorder()
        defer { Self.resetTelemetry() }
        MSALGlobalConfig.telemetryConfig.telemetryCallback = nil
        #expect(MSALGlobalConfig.telemetryConfig.telemetryCallback == nil)
        let fixture = try Self.fixture(valid: true)
        let application = try fixture.application()

        let (quiet, quietID) = try Self.parameters(application)
        let result = try await application.acquireTokenSilent(with: quiet)
        #expect(result.accessToken == "at-cached")
        #expect(result.correlationId == quietID)

        // A callback set afterwards sees later calls only, the completion-block form included.
        MSALGlobalConfig.telemetryConfig.telemetryCallback = recorder.callback
        let (loud, loudID) = try Self.parameters(application)
        let delivered: Bool = await withCheckedContinuation { continuation in
            application.acquireTokenSilent(with: loud) { result, error in
                continuation.resume(returning: result != nil && error == nil)
            }
        }
        #expect(delivered)
        #expect(await recorder.waitForEvents(loudID).count == 1)
        #expect(recorder.events(for: quietID).isEmpty)
    }
}
