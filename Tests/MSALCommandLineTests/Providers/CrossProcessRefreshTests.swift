import Foundation
import MSAL
import Testing

/// Issue 19, finding 8: processes sharing a cache file refresh one account without ever presenting a
/// refresh token twice. Django OAuth Toolkit rotates refresh tokens and, on a reused one, revokes the
/// whole grant (`REFRESH_TOKEN_REUSE_PROTECTION`, no grace period); its test layer counts reuses.
/// Before the per-account refresh lock, 2 processes × 100 forced refreshes ended with 1 success and
/// 199 failures.
@Suite("Refreshing one account from several processes against a provider with strict rotation", .serialized)
struct CrossProcessRefreshTests {
    static let processes = 4
    static let refreshesPerProcess = 50

    /// The provider's refresh-token counters: grants received, grants refused, tokens presented twice.
    static func refreshCounters(_ provider: LocalOIDCProvider) async throws -> (grants: Int, failures: Int, reused: Int) {
        let counters = try #require(try await provider.stats()["refresh_tokens"] as? [String: Any])
        return (counters["grants"] as? Int ?? -1, counters["failures"] as? Int ?? -1, counters["reused"] as? Int ?? -1)
    }

    @Test("4 processes × 50 forced refreshes of one account: every one succeeds, no refresh token is presented twice")
    func manyProcesses() async throws {
        try await LocalOIDCProvider.with(.djangoOAuthToolkit) { provider, directory in
            let cachePath = directory.appendingPathComponent("cache.json").path
            let app = try OIDCProviderLibraryTests.App(provider, cachePath: cachePath, redirectURI: nil)
            _ = try await app.signIn("alice", agent: .scripted, scopes: OIDCProviderLibraryTests.scopes)
            try await provider.resetStats()

            let arguments = ["oidc-refresh", provider.issuer, provider.clientID, cachePath, "email", String(Self.refreshesPerProcess)]
            let outcomes = try await withThrowingTaskGroup(of: CommandRunner.Result.self) { group in
                for _ in 0..<Self.processes {
                    group.addTask { try await CommandRunner.run(arguments, timeout: 600, executable: CommandRunner.stressWorker) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var fromProvider = 0
            var fromCache = 0
            for outcome in outcomes {
                #expect(outcome.status == 0, "worker: \(outcome.standardError)")
                let words = outcome.standardOutput.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                guard words.count == 3, words[0] == "ok", let provided = Int(words[1]), let cached = Int(words[2]) else {
                    Issue.record("worker printed \(outcome.standardOutput)")
                    continue
                }
                #expect(provided + cached == Self.refreshesPerProcess)
                fromProvider += provided
                fromCache += cached
            }
            let counters = try await Self.refreshCounters(provider)
            #expect(counters.reused == 0, "refresh tokens presented twice: \(counters)")
            #expect(counters.failures == 0, "refresh grants refused: \(counters)")
            // Every refresh a worker counts as the provider's reached it; the others used a token
            // another process obtained after they were asked.
            #expect(counters.grants == fromProvider, "\(counters), \(fromProvider) from the provider, \(fromCache) from the cache")
            #expect(fromProvider >= Self.refreshesPerProcess)

            // The grant is alive: one more refresh in this process works.
            let account = try #require(try app.application.allAccounts().first)
            let last = try await app.silent(account, scopes: OIDCProviderLibraryTests.scopes, forceRefresh: true)
            #expect(last.tokenSource == .identityProvider)
        }
    }

    @Test("A process killed while it holds the refresh lock does not block the others: the lock is free once it is gone")
    func killedHolder() async throws {
        try await LocalOIDCProvider.with(.djangoOAuthToolkit) { provider, directory in
            let cachePath = directory.appendingPathComponent("cache.json").path
            let app = try OIDCProviderLibraryTests.App(provider, cachePath: cachePath, redirectURI: nil)
            let signedIn = try await app.signIn("alice", agent: .scripted, scopes: OIDCProviderLibraryTests.scopes)
            let identifier = try #require(signedIn.account.identifier)
            let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!, options: [.allowInsecureLoopback])
            let key = SilentFlow.refreshLockKey(accountIdentifier: identifier, authority: authority)
            let probe = try TokenCache(config: MSALCacheConfig(storage: .file(path: cachePath), fileLockTimeout: 0))

            // The holder keeps the lock for 600 s unless killed; the runner's watchdog ends it after 4 s.
            let holder = Task {
                try await CommandRunner.run(
                    ["refresh-lock-hold", provider.issuer, provider.clientID, cachePath, "600"], timeout: 4,
                    executable: CommandRunner.stressWorker)
            }
            var held = false
            for _ in 0..<300 where !held {
                do {
                    let lock = try await probe.refreshLock(for: key, timeout: 0)
                    lock?.release()
                    try await Task.sleep(for: .milliseconds(10))
                } catch let error as MSALFailure where error.internalCode == .cacheLockTimeout {
                    held = true
                }
            }
            try #require(held, "the holder never took the refresh lock")

            let started = ContinuousClock.now
            let refreshed = try await app.silent(signedIn.account, scopes: OIDCProviderLibraryTests.scopes, forceRefresh: true)
            let waited = ContinuousClock.now - started
            #expect(refreshed.tokenSource == .identityProvider)
            let outcome = try await holder.value
            #expect(outcome.status != 0, "the holder was killed, not finished")
            #expect(waited > .milliseconds(500), "the refresh did not wait for the holder (\(waited))")
            #expect(waited < .seconds(30), "the refresh waited \(waited)")
            let counters = try await Self.refreshCounters(provider)
            #expect(counters.reused == 0 && counters.failures == 0, "\(counters)")
        }
    }
}
