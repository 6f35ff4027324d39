import Foundation
import Glibc
import MSAL
import MSALEmulator
import MSALPostgresTokenCache
import MSALSupport
import NIOCore
import PostgresNIO
import Testing

/// Replicas of a service sharing one PostgreSQL token cache: processes of their own
/// (`MSALPostgresWorker`, each with its own connection pool) writing one partition concurrently,
/// one of them killed mid-write; and confidential clients served from each other's tokens.
@Suite("PostgreSQL token cache: replicas (a real PostgreSQL server)")
struct PostgresReplicaTests {
    /// `MSALPostgresWorker`, built with the tests.
    static let worker: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("MSALPostgresWorker"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("MSALPostgresWorker"),
            Bundle.main.bundleURL.appendingPathComponent("MSALPostgresWorker"),
        ]
        return (candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]).path
    }()

    static func workerArguments(
        _ server: PostgresServer, key: MSALTokenCacheEncryptionKey, tag: String, writers: Int, count: Int
    ) -> [String] {
        ["write", String(server.port), "msal_token_cache", key.base64, "shared.tenant", tag, String(writers), String(count)]
    }

    /// Runs a worker to its end on a Dispatch thread.
    static func run(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        let worker = worker
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ChildProcess.run(worker, arguments, timeout: 240) })
            }
        }
    }

    @Test(
        "3 replica processes × 8 concurrent writers on one partition, one killed mid-write: no accepted write lost, the partition intact",
        .timeLimit(.minutes(4)))
    func replicasDoNotLoseUpdates() async throws {
        try await PostgresTokenCacheTests.withServer { server in
            let key = try MSALTokenCacheEncryptionKey.random()
            try await server.withClient { client in
                let store = try PostgresTokenCacheTests.store(client, keys: [key])
                try await store.createTableIfNeeded()

                // Three replicas write at once; the third is killed (SIGKILL) after its third
                // accepted write, mid-write of others.
                async let victim = Self.killedAfterThreeWrites(Self.workerArguments(server, key: key, tag: "victim", writers: 8, count: 50))
                async let first = Self.run(Self.workerArguments(server, key: key, tag: "one", writers: 8, count: 6))
                async let second = Self.run(Self.workerArguments(server, key: key, tag: "two", writers: 8, count: 6))
                let victimWrites = try await victim
                let outcomes = try await [first, second]
                #expect(victimWrites.count >= 3)
                for outcome in outcomes {
                    #expect(outcome.status == 0, "\(String(decoding: outcome.standardError, as: UTF8.self))")
                    #expect(String(decoding: outcome.standardOutput, as: UTF8.self).hasSuffix("done\n"))
                }

                let record = try #require(try await store.load(partition: "shared.tenant"))
                let document = try #require(try JSONSerialization.jsonObject(with: record.data) as? [String: Any])
                let targets = Set(
                    ((document["AccessToken"] as? [String: [String: Any]]) ?? [:]).values.compactMap { $0["target"] as? String })
                for tag in ["one", "two"] {
                    for writer in 0..<8 {
                        for index in 0..<6 {
                            #expect(targets.contains("api://\(tag)-w\(writer)/n\(index)"), "lost: \(tag) w\(writer) n\(index)")
                        }
                    }
                }
                // Every write the victim reported before it died is there too.
                for scope in victimWrites { #expect(targets.contains(scope), "lost: \(scope)") }
            }
        }
    }

    /// Runs a worker until it reported three accepted writes, then kills it; returns the scopes of
    /// every write it reported.
    static func killedAfterThreeWrites(_ arguments: [String]) async throws -> [String] {
        let worker = worker
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let victim = try ChildProcess.start(worker, arguments, timeout: 240)
                        _ = victim.readOutput { output in output.split(separator: UInt8(ascii: "\n")).count >= 3 }
                        victim.kill(SIGKILL)
                        let outcome = victim.finish()
                        return String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n")
                            .filter { $0.hasPrefix("wrote ") }.map { String($0.dropFirst(6)) }
                    })
            }
        }
    }

    @Test("Confidential clients as replicas: an app token got by one is served to the other from PostgreSQL with no request")
    func confidentialClients() async throws {
        let secretClient = "4b2c6d8e-0f1a-4b3c-9d5e-7f8091a2b3c4"
        var configuration = MSALEmulator.Configuration.sample
        configuration.clients.append(
            MSALEmulator.Client(
                clientID: secretClient, displayName: "Daemon (PostgreSQL replicas)", credentials: [.secret("replica-secret")],
                appRoles: ["https://graph.microsoft.com": ["User.Read.All"]]))
        let emulator = try MSALEmulator(configuration: configuration)
        try await emulator.start()
        do {
            try await Self.replicasServedFromEachOther(emulator, secretClient: secretClient)
            try await emulator.shutdown()
        } catch {
            try? await emulator.shutdown()
            throw error
        }
    }

    static func replicasServedFromEachOther(_ emulator: MSALEmulator, secretClient: String) async throws {
        try await PostgresTokenCacheTests.withServer { server in
            let key = try MSALTokenCacheEncryptionKey.random()
            try await server.withClient { first in
                try await server.withClient { second in
                    func application(_ client: PostgresClient) throws -> MSALConfidentialClientApplication {
                        let store = try PostgresTokenCacheTests.store(client, keys: [key])
                        let configuration = MSALConfidentialClientApplicationConfig(
                            clientId: secretClient, clientCredential: .secret("replica-secret"),
                            authority: try MSALAADAuthority(
                                url: emulator.authorityURL(tenant: MSALEmulator.Configuration.sampleContosoTenantID),
                                options: .allowInsecureLoopback))
                        configuration.cacheConfig = MSALCacheConfig(storage: .partitioned(store))
                        return try MSALConfidentialClientApplication(configuration: configuration)
                    }
                    try await PostgresTokenCacheTests.store(first, keys: [key]).createTableIfNeeded()
                    let replicaA = try application(first)
                    let replicaB = try application(second)
                    let scopes = ["https://graph.microsoft.com/.default"]
                    let token = try await replicaA.acquireTokenForClient(scopes: scopes)
                    #expect(token.tokenSource == .identityProvider)
                    let served = try await replicaB.acquireTokenForClient(scopes: scopes)
                    #expect(served.tokenSource == .cache)
                    #expect(served.accessToken == token.accessToken)
                    #expect(emulator.requestCount(.token, grantType: .clientCredentials) == 1)
                    // The row holds no token byte.
                    let rows = try await first.query("SELECT value FROM msal_token_cache")
                    var values: [String] = []
                    for try await row in rows {
                        values.append(String(decoding: try row.decode(ByteBuffer.self).readableBytesView, as: UTF8.self))
                    }
                    #expect(values.count == 1)
                    #expect(!values.contains { $0.contains(token.accessToken.prefix(40)) })
                }
            }
        }
    }
}
