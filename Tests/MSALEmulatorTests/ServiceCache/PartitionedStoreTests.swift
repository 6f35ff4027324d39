import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

/// A confidential client's cache in an ``MSALPartitionedTokenCacheStore`` shared by replicas: each
/// operation loads its partition, works on its own copy, and stores it over the version it read;
/// a conflict redoes the operation from the newer partition, so no writer's update is lost.
@Suite("Token cache: a partitioned store shared by replicas (optimistic concurrency)")
struct PartitionedStoreTests {
    typealias Grant = ClientCredentialsGrantTests
    typealias App = ConfidentialClientTests

    /// Partitions in memory, each with a version as a database row with a version column keeps
    /// it. `gate` holds the first loads until that many have arrived, so that every writer reads
    /// the same version and all but one must conflict.
    final class VersionedStore: MSALPartitionedTokenCacheStore {
        struct State {
            var partitions: [String: MSALTokenCachePartitionRecord] = [:]
            var expiries: [String: Date] = [:]
            var nextVersion: Int64 = 1
            var loads = 0
            var stores = 0
            var conflicts = 0
            var removals = 0
            var gate = 0
            var waiting: [CheckedContinuation<Void, Never>] = []
        }

        struct Failure: Error, CustomStringConvertible {
            var description: String
        }

        let state = Mutex(State())
        /// Thrown by `load` or `store` when set.
        let failing = Mutex<(load: Bool, store: Bool)>((false, false))
        /// Every store conflicts (another writer always wins).
        let alwaysConflict: Bool

        init(gate: Int = 0, alwaysConflict: Bool = false) {
            self.alwaysConflict = alwaysConflict
            state.withLock { $0.gate = gate }
        }

        func load(partition key: String) async throws -> MSALTokenCachePartitionRecord? {
            if failing.withLock({ $0.load }) { throw Failure(description: "connection refused (load)") }
            await passGate()
            await Task.yield()
            return state.withLock { state in
                state.loads += 1
                return state.partitions[key]
            }
        }

        func store(partition key: String, data: Data?, expiresOn: Date?, replacing version: Int64?) async throws -> Bool {
            if failing.withLock({ $0.store }) { throw Failure(description: "connection reset (store)") }
            await Task.yield()
            return state.withLock { state in
                state.stores += 1
                guard !alwaysConflict, state.partitions[key]?.version == version else {
                    state.conflicts += 1
                    return false
                }
                if let data {
                    state.partitions[key] = MSALTokenCachePartitionRecord(data: data, version: state.nextVersion)
                    state.nextVersion += 1
                } else {
                    state.partitions[key] = nil
                    state.removals += 1
                }
                state.expiries[key] = expiresOn
                return true
            }
        }

        /// Waits, while the gate is open, until `gate` loads have arrived; then lets all of them on.
        private func passGate() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let released = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                    guard state.gate > 0 else { return [continuation] }
                    state.waiting.append(continuation)
                    guard state.waiting.count == state.gate else { return nil }
                    state.gate = 0
                    defer { state.waiting.removeAll() }
                    return state.waiting
                }
                for waiter in released ?? [] { waiter.resume() }
            }
        }

        var keys: Set<String> { state.withLock { Set($0.partitions.keys) } }
        func record(_ key: String) -> MSALTokenCachePartitionRecord? { state.withLock { $0.partitions[key] } }
        func set(_ key: String, _ data: Data) {
            state.withLock { state in
                state.partitions[key] = MSALTokenCachePartitionRecord(data: data, version: state.nextVersion)
                state.nextVersion += 1
            }
        }

        /// The access tokens of the partition `key`, by their `target`.
        func accessTokenTargets(_ key: String) throws -> Set<String> {
            let data = try #require(record(key)?.data)
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let entries = document["AccessToken"] as? [String: [String: Any]] ?? [:]
            return Set(entries.values.compactMap { $0["target"] as? String })
        }
    }

    static let client = "partitioned-client"

    /// A token cache of a confidential client (partition keys suggested) in `store`.
    static func cache(_ store: VersionedStore, attempts: Int = 8) throws -> TokenCache {
        var config = MSALCacheConfig(storage: .partitioned(store))
        config.partitionWriteAttempts = attempts
        return try TokenCache(config: config, suggestsPartitionKeys: true)
    }

    /// A token response for `uid` in `tenant` with the access token's scope `scope`.
    static func entries(uid: String, scope: String) throws -> TokenCacheEntries {
        let clientInfo = Base64URL.encode(Array(#"{"uid":"\#(uid)","utid":"tenant"}"#.utf8))
        let response = TokenResponse(
            accessToken: "at-\(uid)-\(scope)", expiresIn: 3600, refreshToken: "rt-\(uid)", idToken: nil, clientInfo: clientInfo,
            scope: scope)
        let context = TokenCacheWriteContext(
            clientID: client, environment: "login.windows.net", authorityTenant: "tenant", requestedScopes: [scope],
            now: Int64(Date().timeIntervalSince1970))
        return try TokenCacheEntries(response: response, context: context)
    }

    @Test("Client credentials: the partition per tenant is loaded and stored by version; a second replica is answered from it")
    func replicas() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let store = VersionedStore()
            let cache = MSALCacheConfig(storage: .partitioned(store))
            let first = try App.application(harness, cache: cache)
            let second = try App.application(harness, cache: cache)
            let contosoKey = "\(Grant.secretClientID)_\(EmulatorHarness.contoso)_AppTokenCache"

            let token = try await first.acquireTokenForClient(scopes: [App.graphDefault])
            #expect(store.keys == [contosoKey])
            #expect(store.record(contosoKey)?.version == 1)
            let expiry = try #require(store.state.withLock { $0.expiries[contosoKey] })
            #expect(abs(expiry.timeIntervalSince(token.expiresOn ?? .distantPast)) < 1)

            let fromStore = try await second.acquireTokenForClient(scopes: [App.graphDefault])
            #expect(fromStore.tokenSource == .cache)
            #expect(fromStore.accessToken == token.accessToken)
            #expect(App.grants(harness) == 1)
            // Reads stored nothing: still the first version.
            #expect(store.record(contosoKey)?.version == 1)
            #expect(store.state.withLock { $0.stores } == 1)

            // forceRefresh in the second replica replaces the partition over the version it read.
            let parameters = MSALClientCredentialParameters(scopes: [App.graphDefault])
            parameters.forceRefresh = true
            let refreshed = try await second.acquireTokenForClient(with: parameters)
            #expect(refreshed.accessToken != token.accessToken)
            #expect(store.record(contosoKey)?.version == 2)
            #expect(try await first.acquireTokenForClient(scopes: [App.graphDefault]).accessToken == refreshed.accessToken)
            #expect(App.grants(harness) == 2)
        }
    }

    @Test("2 replicas × 8 concurrent writers × 5 writes to one partition: every write kept, the conflicts redone")
    func noLostUpdates() async throws {
        // All 16 first loads are held until each has arrived: they read the same (empty) version,
        // one store wins and 15 conflict, so the retry path is certain to run.
        let store = VersionedStore(gate: 16)
        let replicas = [try Self.cache(store, attempts: 1000), try Self.cache(store, attempts: 1000)]
        try await Self.writeConcurrently(replicas, sharing: store)
    }

    /// 2 replicas × 8 concurrent writers × 5 writes, each a new access token, to one partition of
    /// `shared` (its gate at 16, so that 15 writers must conflict): checks that every write is
    /// kept, that each conflict was redone, and that both replicas then read all 80.
    static func writeConcurrently(_ replicas: [TokenCache], sharing shared: VersionedStore) async throws {
        let partition = TokenCachePartition.account("shared.tenant")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (replica, cache) in replicas.enumerated() {
                for writer in 0..<8 {
                    group.addTask {
                        for write in 0..<5 {
                            let entries = try Self.entries(uid: "shared", scope: "api://r\(replica)w\(writer)/n\(write)")
                            try await cache.write(clientID: Self.client, partition: partition) { contents in
                                contents.save(entries, clientID: Self.client)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let targets = try shared.accessTokenTargets("shared.tenant")
        #expect(targets.count == 80)
        for replica in 0..<2 {
            for writer in 0..<8 {
                for write in 0..<5 { #expect(targets.contains("api://r\(replica)w\(writer)/n\(write)")) }
            }
        }
        let (stores, conflicts) = shared.state.withLock { ($0.stores, $0.conflicts) }
        #expect(conflicts >= 15)
        #expect(stores == 80 + conflicts)
        // Both replicas read all of it (a replica's own store dropped any copy in front of it).
        for cache in replicas {
            let count = try await cache.read(clientID: Self.client, partition: partition) { $0.document[.accessToken].count }
            #expect(count == 80)
        }
    }

    @Test("Another writer wins at every attempt: cacheWriteConflict after the configured attempts, nothing stored")
    func conflictsExhausted() async throws {
        let store = VersionedStore(alwaysConflict: true)
        let cache = try Self.cache(store, attempts: 3)
        let entries = try Self.entries(uid: "abe", scope: "User.Read")
        let runs = Mutex(0)
        await #expect {
            try await cache.write(clientID: Self.client, partition: .account("abe.tenant")) { contents in
                runs.withLock { $0 += 1 }
                contents.save(entries, clientID: Self.client)
            }
        } throws: { error in
            (error as? MSALFailure)?.internalCode == .cacheWriteConflict
        }
        #expect(runs.withLock { $0 } == 3)
        #expect(store.state.withLock { ($0.stores, $0.loads) } == (3, 3))
        #expect(store.keys.isEmpty)
    }

    @Test("The store throws on load or store: cacheStoreFailed with its error; a public client and the synchronous API refuse the store")
    func failures() async throws {
        let store = VersionedStore()
        let cache = try Self.cache(store)
        let entries = try Self.entries(uid: "abe", scope: "User.Read")
        store.failing.withLock { $0 = (load: true, store: false) }
        await #expect {
            _ = try await cache.read(clientID: Self.client, partition: .account("abe.tenant")) { $0.document.entryCount }
        } throws: { error in
            let error = error as? MSALFailure
            return error?.internalCode == .cacheStoreFailed && error?.message.contains("connection refused (load)") == true
                && error?.underlyingError != nil
        }
        store.failing.withLock { $0 = (load: false, store: true) }
        await #expect {
            try await cache.write(clientID: Self.client, partition: .account("abe.tenant")) { $0.save(entries, clientID: Self.client) }
        } throws: { error in
            let error = error as? MSALFailure
            return error?.internalCode == .cacheStoreFailed && error?.message.contains("connection reset (store)") == true
        }
        #expect(store.keys.isEmpty)
        store.failing.withLock { $0 = (load: false, store: false) }

        // The synchronous API cannot wait for the store.
        #expect {
            _ = try cache.read(clientID: Self.client, partition: .account("abe.tenant")) { $0.document.entryCount }
        } throws: { error in
            (error as? MSALFailure)?.internalCode == .cacheStoreFailed
        }
        // An operation over every partition cannot be stored; reading it sees an empty cache.
        await #expect {
            try await cache.write(clientID: Self.client, partition: nil) { $0.save(entries, clientID: Self.client) }
        } throws: { error in
            (error as? MSALFailure)?.internalCode == .cacheStoreFailed
        }
        #expect(try await cache.read(clientID: Self.client, partition: nil) { $0.document.entryCount } == 0)

        // A public client's cache is one document: refused when the application is created.
        let configuration = MSALPublicClientApplicationConfig(clientId: "public-client")
        configuration.cacheConfig = MSALCacheConfig(storage: .partitioned(store))
        #expect {
            _ = try MSALPublicClientApplication(configuration: configuration)
        } throws: { error in
            let error = error as? MSALFailure
            return error?.internalCode == .internalErrorInvalidParameter && error?.message.contains("public client") == true
        }
        var zero = MSALCacheConfig(storage: .partitioned(store))
        zero.partitionWriteAttempts = 0
        #expect(throws: MSALFailure.self) { _ = try TokenCache(config: zero, suggestsPartitionKeys: true) }
    }

    @Test("A stored partition that is not a cache document reads as empty, and a write replaces it over its version")
    func corruptPartition() async throws {
        let store = VersionedStore()
        let cache = try Self.cache(store)
        store.set("abe.tenant", Data("{\"AccessToken\": [".utf8))
        let partition = TokenCachePartition.account("abe.tenant")
        #expect(try await cache.read(clientID: Self.client, partition: partition) { $0.document.entryCount } == 0)
        let entries = try Self.entries(uid: "abe", scope: "User.Read")
        try await cache.write(clientID: Self.client, partition: partition) { $0.save(entries, clientID: Self.client) }
        #expect(try store.accessTokenTargets("abe.tenant").map { $0.lowercased() } == ["user.read"])
        #expect(store.record("abe.tenant")?.version == 2)
    }

    @Test("Removing the tokens of a partition removes it from the store; an operation that changes nothing stores nothing")
    func removal() async throws {
        let store = VersionedStore()
        let cache = try Self.cache(store)
        let partition = TokenCachePartition.account("abe.tenant")
        let entries = try Self.entries(uid: "abe", scope: "User.Read")
        try await cache.write(clientID: Self.client, partition: partition) { $0.save(entries, clientID: Self.client) }
        try await cache.write(clientID: Self.client, partition: partition) { _ in }
        #expect(store.state.withLock { $0.stores } == 1)
        let removed = try await cache.write(clientID: Self.client, partition: partition) { contents in
            contents.removeAccount(homeAccountID: "abe.tenant", environment: "login.windows.net", clientID: Self.client)
        }
        #expect(removed > 0)
        #expect(store.keys.isEmpty)
        #expect(store.state.withLock { ($0.stores, $0.removals) } == (2, 1))
    }
}
