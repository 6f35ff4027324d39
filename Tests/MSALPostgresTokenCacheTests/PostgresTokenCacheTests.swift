import Foundation
import MSAL
import MSALJOSE
import MSALPostgresTokenCache
import MSALSupport
import NIOCore
import PostgresNIO
import Testing

/// `MSALPostgresTokenCache` against a real PostgreSQL (a cluster of its own per test, started by
/// `initdb` and `pg_ctl` on a free port): versions, encryption at rest, expiry, bad configuration,
/// a database stopped and started again.
@Suite("PostgreSQL token cache (a real PostgreSQL server)")
struct PostgresTokenCacheTests {
    static func store(
        _ client: PostgresClient, keys: [MSALTokenCacheEncryptionKey], table: String = "msal_token_cache",
        timeout: Duration = .seconds(10)
    ) throws -> MSALPostgresTokenCache {
        try MSALPostgresTokenCache(
            client: client,
            configuration: .init(encryptionKeys: keys, tableName: table, operationTimeout: timeout, expiredPartitionCleanupInterval: nil))
    }

    /// `body` with a new server, removed afterwards whatever happens.
    static func withServer<T: Sendable>(_ body: (PostgresServer) async throws -> T) async throws -> T {
        let server = try await PostgresServer.start()
        do {
            let result = try await body(server)
            await server.remove()
            return result
        } catch {
            await server.remove()
            throw error
        }
    }

    /// The raw `value` column of `key`.
    static func rawValue(_ client: PostgresClient, _ key: String, table: String = "msal_token_cache") async throws -> [UInt8]? {
        let rows = try await client.query("SELECT value FROM \(unescaped: table) WHERE partition_key = \(key)")
        var value: [UInt8]?
        for try await row in rows {
            value = Array(try row.decode(ByteBuffer.self).readableBytesView)
        }
        return value
    }

    @Test("Versions: a store succeeds only over the version read; removal; an expired partition reads as absent and is replaced")
    func versions() async throws {
        try await Self.withServer { server in
            try await server.withClient { client in
                let store = try Self.store(client, keys: [try .random()])
                try await store.createTableIfNeeded()
                try await store.createTableIfNeeded()
                #expect(try await store.load(partition: "abe.tenant") == nil)

                let first = Data(#"{"AccessToken":{}}"#.utf8)
                #expect(try await store.store(partition: "abe.tenant", data: first, expiresOn: nil, replacing: nil))
                let loaded = try #require(try await store.load(partition: "abe.tenant"))
                #expect(loaded.data == first)
                // A second writer that also read no partition loses.
                #expect(try await !store.store(partition: "abe.tenant", data: Data("{}".utf8), expiresOn: nil, replacing: nil))
                let second = Data(#"{"AccessToken":{},"Account":{}}"#.utf8)
                #expect(try await store.store(partition: "abe.tenant", data: second, expiresOn: nil, replacing: loaded.version))
                let updated = try #require(try await store.load(partition: "abe.tenant"))
                #expect(updated.data == second && updated.version != loaded.version)
                // The version read before the update no longer stores or removes.
                #expect(try await !store.store(partition: "abe.tenant", data: first, expiresOn: nil, replacing: loaded.version))
                #expect(try await !store.store(partition: "abe.tenant", data: nil, expiresOn: nil, replacing: loaded.version))
                #expect(try await store.store(partition: "abe.tenant", data: nil, expiresOn: nil, replacing: updated.version))
                #expect(try await store.load(partition: "abe.tenant") == nil)
                // Created again, it gets a new version: the removed one's readers still lose.
                #expect(try await store.store(partition: "abe.tenant", data: first, expiresOn: nil, replacing: nil))
                #expect(try await !store.store(partition: "abe.tenant", data: second, expiresOn: nil, replacing: updated.version))

                // An application partition whose tokens have expired reads as absent; a store over
                // "none" replaces it; the cleanup deletes the expired ones only.
                let app = "client_tenant_AppTokenCache"
                #expect(try await store.store(partition: app, data: first, expiresOn: Date(timeIntervalSinceNow: -60), replacing: nil))
                #expect(try await store.load(partition: app) == nil)
                #expect(try await store.store(partition: app, data: second, expiresOn: Date(timeIntervalSinceNow: 3600), replacing: nil))
                #expect(try await store.load(partition: app)?.data == second)
                #expect(
                    try await store.store(
                        partition: "old_AppTokenCache", data: first, expiresOn: Date(timeIntervalSinceNow: -1), replacing: nil))
                #expect(try await store.deleteExpiredPartitions() == 1)
                #expect(try await Self.rawValue(client, "old_AppTokenCache") == nil)
                #expect(try await store.load(partition: app)?.data == second)
                #expect(try await store.load(partition: "abe.tenant")?.data == first)
            }
        }
    }

    @Test("Encrypted at rest: no token byte in the table; another key, a moved or changed row is cacheCorrupt and left as it is; rotation")
    func encryption() async throws {
        try await Self.withServer { server in
            try await server.withClient { client in
                let (old, new) = (try MSALTokenCacheEncryptionKey.random(), try MSALTokenCacheEncryptionKey.random())
                let store = try Self.store(client, keys: [old])
                try await store.createTableIfNeeded()
                let document = Data(#"{"AccessToken":{"k":{"secret":"eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.secret-token"}}}"#.utf8)
                #expect(try await store.store(partition: "abe.tenant", data: document, expiresOn: nil, replacing: nil))
                let raw = try #require(try await Self.rawValue(client, "abe.tenant"))
                #expect(raw.count == 1 + 12 + 16 + document.count)
                #expect(!String(decoding: raw, as: UTF8.self).contains("secret-token"))
                #expect(!String(decoding: raw, as: UTF8.self).contains("AccessToken"))

                // Another key: cacheCorrupt, and the row is unchanged.
                let stranger = try Self.store(client, keys: [new])
                await #expect {
                    _ = try await stranger.load(partition: "abe.tenant")
                } throws: { error in
                    (error as? MSALFailure)?.internalCode == .cacheCorrupt
                }
                #expect(try await Self.rawValue(client, "abe.tenant") == raw)
                // Rotation: the new key first, the old one still opens what it sealed; the next
                // store seals with the new key, which the old configuration no longer opens.
                let rotated = try Self.store(client, keys: [new, old])
                let record = try #require(try await rotated.load(partition: "abe.tenant"))
                #expect(record.data == document)
                #expect(try await rotated.store(partition: "abe.tenant", data: document, expiresOn: nil, replacing: record.version))
                #expect(try await stranger.load(partition: "abe.tenant")?.data == document)
                await #expect(throws: MSALFailure.self) { _ = try await store.load(partition: "abe.tenant") }

                // The row copied under another partition key does not open there.
                try await client.query(
                    "INSERT INTO msal_token_cache (partition_key, version, value) SELECT 'eve.tenant', 999999, value FROM msal_token_cache WHERE partition_key = 'abe.tenant'"
                )
                await #expect {
                    _ = try await rotated.load(partition: "eve.tenant")
                } throws: { error in
                    (error as? MSALFailure)?.internalCode == .cacheCorrupt
                }
                // One changed byte of the ciphertext, or a value that is not sealed at all.
                try await client.query(
                    "UPDATE msal_token_cache SET value = set_byte(value, 39, get_byte(value, 39) # 1) WHERE partition_key = 'abe.tenant'")
                await #expect(throws: MSALFailure.self) { _ = try await rotated.load(partition: "abe.tenant") }
                try await client.query("UPDATE msal_token_cache SET value = '\\x7b7d'::bytea WHERE partition_key = 'abe.tenant'")
                await #expect {
                    _ = try await rotated.load(partition: "abe.tenant")
                } throws: { error in
                    (error as? MSALFailure)?.internalCode == .cacheCorrupt
                }
            }
        }
    }

    @Test("Bad configuration is invalidParameter: no key, a key of the wrong size or not base64, a table name that is not an identifier")
    func badConfiguration() async throws {
        let client = PostgresClient(
            configuration: .init(host: "127.0.0.1", port: 1, username: "msal", password: nil, database: "postgres", tls: .disable))
        #expect(throws: MSALFailure.self) { _ = try MSALTokenCacheEncryptionKey(bytes: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: MSALFailure.self) { _ = try MSALTokenCacheEncryptionKey(base64: "not base64!") }
        let key = try MSALTokenCacheEncryptionKey(bytes: [UInt8](repeating: 7, count: 32))
        #expect(try MSALTokenCacheEncryptionKey(base64: key.base64) == key)
        #expect(!"\(key)".contains(key.base64))
        #expect(throws: MSALFailure.self) { _ = try Self.store(client, keys: []) }
        for table in [
            "Robert'); DROP TABLE students;--", "", "a.b.c", "1table", "MixedCase", String(repeating: "t", count: 49), "s.", "tokens;",
        ] {
            #expect(throws: MSALFailure.self, "\(table)") { _ = try Self.store(client, keys: [key], table: table) }
        }
        _ = try Self.store(client, keys: [key], table: "cache_schema.msal_tokens_2")
        #expect(throws: MSALFailure.self) { _ = try Self.store(client, keys: [key], timeout: .zero) }
    }

    @Test("The database stopped mid-run: cacheStoreFailed within the timeout, nothing lost; started again, the same client recovers")
    func databaseRestart() async throws {
        try await Self.withServer { server in
            try await server.withClient { client in
                let store = try Self.store(client, keys: [try .random()], timeout: .seconds(3))
                try await store.createTableIfNeeded()
                let cache = try TokenCache(config: MSALCacheConfig(storage: .partitioned(store)), suggestsPartitionKeys: true)
                let partition = TokenCachePartition.account("abe.tenant")
                try await Self.save(cache, partition, scope: "api://before/one")

                try await server.stopServer("fast")
                let started = ContinuousClock.now
                await #expect {
                    try await Self.save(cache, partition, scope: "api://during/two")
                } throws: { error in
                    let error = error as? MSALFailure
                    return error?.internalCode == .cacheStoreFailed
                }
                #expect(ContinuousClock.now - started < .seconds(10))

                try await server.startServer()
                // The pool reconnects on its own; the first operations may still see the old
                // connections fail, so give it a few tries.
                var recovered = false
                for _ in 0..<20 where !recovered {
                    do {
                        try await Self.save(cache, partition, scope: "api://after/three")
                        recovered = true
                    } catch {
                        try await Task.sleep(for: .milliseconds(250))
                    }
                }
                #expect(recovered)
                let targets = try await cache.read(clientID: Self.client, partition: partition) { contents in
                    Set(contents.document[.accessToken].values.compactMap { $0[.target] })
                }
                #expect(targets == ["api://before/one", "api://after/three"])
            }
        }
    }

    static let client = "postgres-test-client"

    static func save(_ cache: TokenCache, _ partition: TokenCachePartition, scope: String) async throws {
        let clientInfo = Base64URL.encode(Array(#"{"uid":"abe","utid":"tenant"}"#.utf8))
        let response = TokenResponse(
            accessToken: "at-\(scope)", expiresIn: 3600, refreshToken: "rt-abe", idToken: nil, clientInfo: clientInfo, scope: scope)
        let context = TokenCacheWriteContext(
            clientID: client, environment: "login.windows.net", authorityTenant: "tenant", requestedScopes: [scope],
            now: Int64(Date().timeIntervalSince1970))
        let entries = try TokenCacheEntries(response: response, context: context)
        try await cache.write(clientID: client, partition: partition) { $0.save(entries, clientID: client) }
    }
}
