import Foundation
import MSAL
import MSALEmulator
import MSALSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Several processes, each with several tasks, signing users in and refreshing their tokens against
/// one emulator and one cache file (issue 7: multi-process and concurrency stress).
@Suite("Multi-process stress: sign-in and refresh against the local provider on one cache file")
struct MultiProcessStressTests {
    static let processes = 4
    static let usersPerProcess = 3
    static let rounds = 4
    static let tasksPerUser = 8

    /// `MSALStressWorker`, built with the tests.
    static let worker: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("MSALStressWorker"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("MSALStressWorker"),
            Bundle.main.bundleURL.appendingPathComponent("MSALStressWorker"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// The sample directory plus one Contoso user per worker slot.
    static func configuration() -> MSALEmulator.Configuration {
        var configuration = MSALEmulator.Configuration.sample
        for index in 0..<(processes * usersPerProcess) {
            configuration.users.append(
                MSALEmulator.User(
                    objectID: String(format: "5eed0000-0000-4000-8000-%012d", index),
                    tenantID: MSALEmulator.Configuration.sampleContosoTenantID,
                    username: "stress\(index)@contoso.example", name: "Stress \(index)"))
        }
        return configuration
    }

    /// Runs one worker to its end; SIGKILLed after `seconds` (a deadlock or hang fails the test).
    static func run(_ arguments: [String], seconds: Double) async throws -> (status: Int32, killed: Bool, output: String, errors: String) {
        let worker = worker.path
        // Waited for on a Dispatch thread: the wait blocks until the worker exits.
        let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ChildProcess.Outcome, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ChildProcess.run(worker, arguments, timeout: seconds) })
            }
        }
        return (
            outcome.status, outcome.signal != nil,
            String(decoding: outcome.standardOutput, as: UTF8.self), String(decoding: outcome.standardError, as: UTF8.self)
        )
    }

    @Test(
        "4 processes × 3 users × 8 tasks, 4 rounds of forced refresh and a cache hit: no lost update, no corrupt file, no duplicate refresh, no deadlock",
        .timeLimit(.minutes(4)))
    func processesShareOneCacheFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("token_cache.json").path
        let emulator = try MSALEmulator(configuration: Self.configuration())
        try await emulator.start()
        // Each refresh is answered 500 ms late, so a worker's 8 forced refreshes of one user are
        // concurrent (they must share one request). Answered at once, as the emulator does since
        // it no longer waits for the cooperative pool, the first refresh could end before the
        // eighth task asked, which then rightly got a new token (seen once in CI: 49 refreshes).
        emulator.inject(MSALEmulator.Fault(.delay(seconds: 0.5), grantType: .refreshToken))
        do {
            let authority = emulator.authorityURL(tenant: "organizations").absoluteString
            let client = MSALEmulator.Configuration.sampleStandaloneClientID
            let outcomes = try await withThrowingTaskGroup(of: (Int, (status: Int32, killed: Bool, output: String, errors: String)).self) {
                group in
                for process in 0..<Self.processes {
                    let users = (0..<Self.usersPerProcess).map { "stress\(process * Self.usersPerProcess + $0)@contoso.example" }
                    group.addTask {
                        (
                            process,
                            try await Self.run(
                                [
                                    "provider-stress", authority, client, cache, users.joined(separator: ","), String(Self.rounds),
                                    String(Self.tasksPerUser),
                                ],
                                seconds: 180)
                        )
                    }
                }
                var outcomes: [Int: (status: Int32, killed: Bool, output: String, errors: String)] = [:]
                for try await (index, outcome) in group { outcomes[index] = outcome }
                return outcomes
            }
            // No deadlock or hang (nobody was killed), and every worker's checks held.
            for (index, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
                #expect(!outcome.killed, "worker \(index) did not finish in time (deadlock?): \(outcome.errors)")
                #expect(outcome.status == 0, "worker \(index): \(outcome.errors)")
                #expect(outcome.output == "ok \(Self.usersPerProcess) \(Self.rounds)\n", "worker \(index)")
            }

            let users = Self.processes * Self.usersPerProcess
            // No duplicate refresh: within a process the tasks of one user shared each refresh, and
            // no refresh was retried or repeated; no lost update: no rotated refresh token was ever
            // presented again (the emulator refuses those, and every answer was a 200).
            #expect(emulator.requestCount(.token, grantType: .authorizationCode) == users)
            #expect(emulator.requestCount(.token, grantType: .refreshToken) == users * Self.rounds)
            let refused = emulator.requests.filter { $0.endpoint == .token && $0.status != 200 }
            #expect(refused.isEmpty, "\(refused.map { "\($0.username ?? "?") \($0.oauthError ?? "") \($0.status)" })")

            // No corrupt file and nothing lost: the file parses, lists every user, and each stored
            // refresh token is the latest one (a forced refresh from this process succeeds).
            let configuration = MSALPublicClientApplicationConfig(
                clientId: client, redirectUri: nil,
                authority: try MSALAADAuthority(url: emulator.authorityURL(tenant: "organizations"), options: .allowInsecureLoopback))
            configuration.cacheConfig = MSALCacheConfig(storage: .file(path: cache))
            let application = try MSALPublicClientApplication(configuration: configuration)
            let accounts = try application.allAccounts()
            #expect(Set(accounts.compactMap(\.username)) == Set((0..<users).map { "stress\($0)@contoso.example" }))
            for account in accounts {
                let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
                parameters.forceRefresh = true
                #expect(try await application.acquireTokenSilent(with: parameters).tokenSource == .identityProvider)
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.contains(".corrupt-") || $0.contains(".tmp-") }
            #expect(leftovers.isEmpty, "\(leftovers)")
            try await emulator.shutdown()
        } catch {
            try? await emulator.shutdown()
            throw error
        }
    }
}
