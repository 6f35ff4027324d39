import Foundation
import Glibc
import MSAL
import MSALSupport

/// A probe of Swift's cooperative thread pool, in a process of its own so that no other test's tasks
/// compete for it (issue 20, point 5): many silent calls whose cache work blocks, and one unrelated
/// task that wakes every 10 ms. Prints one JSON line: how many calls were answered from the cache, how
/// long they took and the unrelated task's longest gap between two wake-ups.
enum PoolModes {
    static let all: [String: WorkerMode] = [
        "pool-probe": WorkerMode(usage: "file|hooks|hooks-accounts CALLS SECONDS", run: probe)
    ]

    /// A transport for an application that must not reach the network.
    struct NoNetwork: MSALHTTPTransport {
        struct Refused: Error {}
        func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse { throw Refused() }
    }

    /// Cache hooks that block the calling thread for `seconds` on every access.
    struct SlowHooks: MSALTokenCacheSerializer {
        var seconds: Double
        func beforeAccess(_ access: MSALTokenCacheAccess) throws { Thread.sleep(forTimeInterval: seconds) }
        func afterAccess(_ access: MSALTokenCacheAccess) throws {}
    }

    /// A task that wakes every 10 ms and records the longest gap between two wake-ups.
    final class Ticker: Sendable {
        private let state = Mutex<(last: ContinuousClock.Instant?, longest: Duration)>((nil, .zero))

        var longest: Duration { state.withLock { $0.longest } }

        func start() -> Task<Void, Never> {
            Task {
                while !Task.isCancelled {
                    let now = ContinuousClock.now
                    state.withLock { state in
                        if let last = state.last { state.longest = max(state.longest, now - last) }
                        state.last = now
                    }
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
        }
    }

    static let clientID = "pool-probe-client"

    static func application(_ cacheConfig: MSALCacheConfig) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: clientID, redirectUri: nil,
            authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/common")!))
        config.cacheConfig = cacheConfig
        config.transport = NoNetwork()
        return try MSALPublicClientApplication(configuration: config)
    }

    /// Stores what a sign-in of the account `probe.tenant` would: an access token for an hour, its
    /// refresh token and ID token.
    static func seed(_ app: MSALPublicClientApplication) throws -> MSALAccount {
        let response = TokenResponse(
            accessToken: "at-probe", expiresIn: 3600, refreshToken: "rt-probe", idToken: CacheModes.idToken(uid: "probe"),
            clientInfo: CacheModes.base64URL(#"{"uid":"probe","utid":"tenant"}"#), scope: "User.Read")
        let context = TokenCacheWriteContext(
            clientID: clientID, environment: "login.windows.net", authorityTenant: "tenant", requestedScopes: ["User.Read"],
            now: Int64(Date().timeIntervalSince1970))
        let entries = try TokenCacheEntries(response: response, context: context)
        try app.cache.write(clientID: clientID) { $0.save(entries, clientID: clientID) }
        guard let account = try? app.account(forIdentifier: "probe.tenant") else { throw CacheModes.LostUpdate(description: "no account") }
        return account
    }

    /// `file`: CALLS silent calls on an application that has not read the cache file yet, while
    /// flock(1) holds the file's lock for SECONDS. `hooks`: CALLS silent calls whose cache hooks each
    /// block for SECONDS.
    static func probe(_ arguments: [String]) throws {
        let usage = "usage: pool-probe file|hooks|hooks-accounts CALLS SECONDS"
        guard arguments.count == 3, let seconds = Double(arguments[2]), seconds > 0 else { WorkerMode.fail(usage: usage) }
        let calls = WorkerMode.count(arguments, 1, usage)
        let app: MSALPublicClientApplication
        let account: MSALAccount
        var holder: ChildProcess?
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-pool-probe-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        switch arguments[0] {
        case "file":
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let path = directory.appendingPathComponent("cache.json").path
            account = try seed(try application(MSALCacheConfig(storage: .file(path: path))))
            app = try application(MSALCacheConfig(storage: .file(path: path)))
            guard let lockPath = app.cache.file?.lockPath else { throw CacheModes.LostUpdate(description: "no lock file") }
            let process = try ChildProcess.start(
                "/usr/bin/flock", ["--exclusive", lockPath, "sleep", String(seconds)], standardOutput: .discard, standardError: .discard)
            holder = process
            let deadline = Date().addingTimeInterval(20)
            while !isLockedElsewhere(lockPath) {
                guard Date() < deadline, process.isRunning else { throw CacheModes.LostUpdate(description: "flock(1) did not lock") }
                usleep(2_000)
            }
        case "hooks", "hooks-accounts":
            app = try application(MSALCacheConfig(storage: .custom(SlowHooks(seconds: seconds))))
            account = try seed(app)
        default:
            WorkerMode.fail(usage: usage)
        }
        defer {
            if let holder {
                holder.kill()
                _ = holder.finish()
            }
        }
        try WorkerMode.runBlocking {
            let ticker = Ticker()
            let ticking = ticker.start()
            let started = ContinuousClock.now
            let sources = try await withThrowingTaskGroup(of: MSALTokenSource.self) { group in
                // hooks-accounts: the async account API (currentAccount), which reads the cache too.
                let listsAccounts = arguments[0] == "hooks-accounts"
                for _ in 0..<calls {
                    group.addTask {
                        if listsAccounts {
                            return try await app.currentAccount().0 == account ? .cache : .identityProvider
                        }
                        return try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
                            .tokenSource
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let elapsed = ContinuousClock.now - started
            ticking.cancel()
            func milliseconds(_ duration: Duration) -> Int {
                Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
            }
            let fromCache = sources.filter { $0 == .cache }.count
            let line =
                #"{"calls":\#(calls),"from_cache":\#(fromCache),"elapsed_ms":\#(milliseconds(elapsed)),"#
                + #""longest_gap_ms":\#(milliseconds(ticker.longest))}"#
            WorkerMode.emit(line + "\n", to: STDOUT_FILENO)
        }
    }

    /// Whether another open file description holds an exclusive `flock` on `path`.
    static func isLockedElsewhere(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }
}
