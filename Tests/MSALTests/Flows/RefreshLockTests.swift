import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// The per-account refresh lock that makes single-flight refresh hold across processes sharing a cache
/// file (issue 19, finding 8). Two applications on one file stand in for two processes: the lock is an
/// open-file-description record lock, so two opens of the lock file exclude each other exactly as two
/// processes do (the multi-process proof against Django OAuth Toolkit is `CrossProcessRefreshTests`).
@Suite("Silent acquisition: the cross-process refresh lock", .timeLimit(.minutes(2)))
struct RefreshLockTests {
    /// A token endpoint with strict rotation: only the newest refresh token works, each works once, and a
    /// reused one is counted (a real provider would revoke the grant).
    final class RotatingProvider: Sendable {
        private struct State {
            var current = "rt-1"
            var issued = 1
            var reused = 0
            var grants = 0
            var arrived = 0
            var presentedClaims = 0
        }

        private let state = Mutex(State())
        /// How long each answer takes, so that concurrent callers overlap.
        let delay: Duration

        init(delay: Duration = .milliseconds(5)) {
            self.delay = delay
        }

        var reused: Int { state.withLock { $0.reused } }
        var grants: Int { state.withLock { $0.grants } }
        /// Token requests received so far, counted on arrival (before the delay), unlike ``grants``.
        var arrived: Int { state.withLock { $0.arrived } }

        /// Waits until `count` token requests have arrived (at most 30 s): a request in flight means
        /// its caller holds the refresh lock, however slowly a loaded machine started its task.
        func waitForArrivals(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while arrived < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        }
        var claimsRequests: Int { state.withLock { $0.presentedClaims } }

        var transport: FlowTransport {
            FlowTransport(token: { request in
                let form = Dictionary(request.formParameters, uniquingKeysWith: { $1 })
                self.state.withLock { $0.arrived += 1 }
                try await Task.sleep(for: self.delay)
                let answer = self.state.withLock { state -> (String, Int)? in
                    state.grants += 1
                    if form["claims"] != nil { state.presentedClaims += 1 }
                    guard form["refresh_token"] == state.current else {
                        state.reused += 1
                        return nil
                    }
                    state.issued += 1
                    state.current = "rt-\(state.issued)"
                    return (state.current, state.issued)
                }
                guard let (refreshToken, number) = answer else {
                    return FlowTokens.error(400, #"{"error":"invalid_grant","error_description":"refresh token reused"}"#)
                }
                return FlowTokens.success(accessToken: "at-\(number)", refreshToken: refreshToken)
            })
        }
    }

    /// A cache file in a fresh private directory.
    static func cacheFile() throws -> (path: String, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-refresh-lock-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return (directory.appendingPathComponent("cache.json").path, directory)
    }

    @Test(
        "Two applications on one cache file, 2 × 20 forced refreshes of one account at once: none fails, no refresh token is presented twice"
    )
    func twoApplications() async throws {
        let (path, directory) = try Self.cacheFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let provider = RotatingProvider()
        let first = try FlowHarness(provider.transport, cacheConfig: MSALCacheConfig(storage: .file(path: path)))
        let second = try FlowHarness(provider.transport, cacheConfig: MSALCacheConfig(storage: .file(path: path)))
        try first.seed(.abe, refreshToken: "rt-1")
        let account = try second.account(.abe)

        let sources = try await withThrowingTaskGroup(of: MSALTokenSource.self) { group in
            for index in 0..<40 {
                let app = index.isMultiple(of: 2) ? first.app : second.app
                group.addTask {
                    let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
                    parameters.forceRefresh = true
                    return try await app.acquireTokenSilent(with: parameters).tokenSource
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sources.count == 40)
        #expect(provider.reused == 0)
        // Each application's callers share one flight; the flight that waited for the other application's
        // lock finds the token it stored after they were asked, and uses it: one grant for 40 calls.
        #expect(provider.grants == sources.filter { $0 == .identityProvider }.count / 20, "\(provider.grants) grants, \(sources)")
        #expect(provider.grants >= 1)
    }

    @Test("Without the file (an in-memory cache) there is no cross-process lock to take")
    func memoryHasNone() async throws {
        let cache = TokenCache()
        #expect(try await cache.refreshLock(for: "abe|login.microsoftonline.com", timeout: 1) == nil)
    }

    @Test("The wait is bounded: while another holder keeps the lock, cacheLockTimeout after the timeout plus the file lock timeout")
    func boundedWait() async throws {
        let (path, directory) = try Self.cacheFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let holder = try TokenCache(config: MSALCacheConfig(storage: .file(path: path), fileLockTimeout: 0.2))
        let waiter = try TokenCache(config: MSALCacheConfig(storage: .file(path: path), fileLockTimeout: 0.2))
        let held = try #require(try await holder.refreshLock(for: "abe|cloud", timeout: 1))
        defer { held.release() }
        // Another account's lock is another byte: free.
        let other = try await waiter.refreshLock(for: "ben|cloud", timeout: 0)
        #expect(other != nil)
        other?.release()

        let started = ContinuousClock.now
        do {
            _ = try await waiter.refreshLock(for: "abe|cloud", timeout: 0.3)
            Issue.record("the lock was taken twice")
        } catch let error as MSALFailure {
            #expect(error.internalCode == .cacheLockTimeout)
            #expect(error.message.contains(path + ".lock"))
        }
        let waited = ContinuousClock.now - started
        // At least its 0.5 s; at most far less than the default bound (a loaded 2-core machine delays
        // every task's wake-up by seconds: 5 s was once exceeded in a full run).
        #expect(waited >= .milliseconds(450) && waited < .seconds(30), "\(waited)")

        held.release()
        let free = try await waiter.refreshLock(for: "abe|cloud", timeout: 0)
        #expect(free != nil, "released, the lock is free at once")
    }

    @Test("A waiting task that is canceled stops waiting, long before its bound")
    func cancelWhileWaiting() async throws {
        let (path, directory) = try Self.cacheFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let holder = try TokenCache(config: MSALCacheConfig(storage: .file(path: path)))
        let waiter = try TokenCache(config: MSALCacheConfig(storage: .file(path: path)))
        let held = try #require(try await holder.refreshLock(for: "abe|cloud", timeout: 1))
        defer { held.release() }
        let waiting = Task { try await waiter.refreshLock(for: "abe|cloud", timeout: 60) }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        // Well before its 60 s bound (a loaded 2-core machine delays every task by seconds).
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("A forced refresh waiting behind another application's uses the token it stored; with claims it refreshes anyway")
    func usesTheOtherRefresh() async throws {
        let (path, directory) = try Self.cacheFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let provider = RotatingProvider(delay: .milliseconds(300))
        let first = try FlowHarness(provider.transport, cacheConfig: MSALCacheConfig(storage: .file(path: path)))
        let second = try FlowHarness(provider.transport, cacheConfig: MSALCacheConfig(storage: .file(path: path)))
        try first.seed(.abe, refreshToken: "rt-1")
        let account = try first.account(.abe)

        func forced(_ app: MSALPublicClientApplication, claims: Bool = false) async throws -> MSALResult {
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
            parameters.forceRefresh = true
            if claims { parameters.claimsRequest = try MSALClaimsRequest(jsonString: #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#) }
            return try await app.acquireTokenSilent(with: parameters)
        }
        async let one = forced(first.app)
        try await provider.waitForArrivals(1)  // the first holds the lock, its request in flight
        let two = try await forced(second.app)
        let firstResult = try await one
        #expect(firstResult.tokenSource == .identityProvider)
        #expect(two.tokenSource == .cache)
        #expect(two.accessToken == firstResult.accessToken)
        #expect(provider.grants == 1)

        // A claims challenge needs its own token: it redeems the current refresh token under the lock.
        async let three = forced(first.app)
        try await provider.waitForArrivals(2)
        let four = try await forced(second.app, claims: true)
        _ = try await three
        #expect(four.tokenSource == .identityProvider)
        #expect(provider.claimsRequests == 1)
        #expect(provider.reused == 0)
    }
}
