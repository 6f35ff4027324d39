import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// Blocking cache work never runs on Swift's cooperative threads (issue 20, point 5): waiting for the
/// cache file's lock, reading and writing the file, and the application's cache hooks run on
/// ``BlockingWork`` or the cache's hook queue.
///
/// The probes run in a worker process (`MSALStressWorker pool-probe`), whose cooperative pool no other
/// test shares: in this process the whole parallel suite competes for it, and a task's wake-up can wait
/// seconds behind other tests whatever the cache does. With the blocking work moved back onto the
/// calling threads, the unrelated task's longest gap was 5.0 s (file) and 3.1 s (hooks).
@Suite("Blocking cache work stays off the cooperative pool", .timeLimit(.minutes(3)))
struct CooperativePoolTests {
    struct Probe {
        var calls: Int
        var fromCache: Int
        var elapsed: Double
        var longestGap: Double
    }

    static func probe(_ mode: String, calls: Int, seconds: Double) async throws -> Probe {
        let outcome = try await StressWorker.run(["pool-probe", mode, String(calls), String(seconds)], watchdogSeconds: 120)
        try #require(outcome.status == 0, "pool-probe exited \(outcome.status): \(outcome.standardError)")
        let line = try #require(outcome.standardOutput.split(separator: "\n").last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int], "\(line)")
        return Probe(
            calls: json["calls"] ?? -1, fromCache: json["from_cache"] ?? -1, elapsed: Double(json["elapsed_ms"] ?? -1) / 1000,
            longestGap: Double(json["longest_gap_ms"] ?? -1) / 1000)
    }

    @Test("64 concurrent silent calls while another process holds the cache file's lock for 5 s: an unrelated task still runs every 10 ms")
    func fileLockHeldByAnotherProcess() async throws {
        let probe = try await Self.probe("file", calls: 64, seconds: 5)
        #expect(probe.fromCache == 64, "\(probe)")
        // The calls really waited for the other process (else this test could not fail)...
        #expect(probe.elapsed >= 2, "\(probe)")
        // ...while the unrelated task kept running.
        #expect(probe.longestGap < 1, "\(probe)")
    }

    @Test("32 concurrent silent calls whose cache hooks each block for 100 ms: an unrelated task still runs every 10 ms")
    func blockingHooks() async throws {
        let probe = try await Self.probe("hooks", calls: 32, seconds: 0.1)
        #expect(probe.fromCache == 32, "\(probe)")
        // One operation at a time: 32 × 100 ms.
        #expect(probe.elapsed >= 3, "\(probe)")
        #expect(probe.longestGap < 1, "\(probe)")
    }

    @Test("32 concurrent currentAccount() calls whose cache hooks each block for 100 ms: an unrelated task still runs every 10 ms")
    func blockingHooksListingAccounts() async throws {
        let probe = try await Self.probe("hooks-accounts", calls: 32, seconds: 0.1)
        #expect(probe.fromCache == 32, "\(probe)")
        #expect(probe.elapsed >= 3, "\(probe)")
        #expect(probe.longestGap < 1, "\(probe)")
    }

    @Test("A hook that calls back into the token cache gets cacheHookFailed instead of waiting for itself")
    func reentrantHook() async throws {
        final class Reentrant: MSALTokenCacheSerializer {
            let application = Mutex<MSALPublicClientApplication?>(nil)
            func beforeAccess(_ access: MSALTokenCacheAccess) throws {
                if let application = application.withLock({ $0 }) { _ = try application.allAccounts() }
            }
            func afterAccess(_ access: MSALTokenCacheAccess) throws {}
        }
        let hooks = Reentrant()
        let noNetwork = FlowTransport(token: { _ in .json(500, #"{"error":"not expected"}"#) })
        let harness = try FlowHarness(noNetwork, cacheConfig: MSALCacheConfig(storage: .custom(hooks)))
        try harness.seed(.abe)
        hooks.application.withLock { $0 = harness.app }
        let error = await expectMSALError { try harness.app.allAccounts() }
        #expect(error?.internalCode == .cacheHookFailed)
        #expect(error?.message.contains("called back into the token cache") == true)
    }
}
