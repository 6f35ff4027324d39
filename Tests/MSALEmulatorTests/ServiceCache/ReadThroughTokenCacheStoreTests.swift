import Foundation
import MSAL
import MSALEmulator
import MSALSupport
import Testing

/// ``MSALReadThroughTokenCacheStore``, an in-process copy in front of a shared
/// ``MSALPartitionedTokenCacheStore``: a partition read less than `maximumAge` ago is answered from
/// memory; every store through it (stored, conflicting or failing) drops the partition's copy;
/// absent partitions are never kept; a load that raced a store of its partition keeps nothing; at
/// most `maximumPartitions` copies are kept, aged ones dropped first. The shared store is
/// ``PartitionedStoreTests/VersionedStore``, whose load count shows when the copy answered; the
/// clock stands still until a test moves it, and a held load (``HoldingStore``) orders a load
/// around a store with continuations, not with timing.
@Suite("Token cache: a read-through copy in front of a partitioned store", .timeLimit(.minutes(2)))
struct ReadThroughTokenCacheStoreTests {
    typealias VersionedStore = PartitionedStoreTests.VersionedStore
    typealias Grant = ClientCredentialsGrantTests
    typealias App = ConfidentialClientTests

    /// A clock that stands still until the test moves it. (`ManualClock` is in the MSALTests
    /// target, which this one cannot import.)
    final class StoppedClock: MSALClock {
        private let current = Mutex(Date(timeIntervalSince1970: 1_700_001_000))

        func now() -> Date { current.withLock { $0 } }

        func sleep(seconds: Double) async throws {
            try Task.checkCancellation()
            advance(by: max(0, seconds))
        }

        func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    /// Fires once; ``wait()`` returns once it has fired (at once when it already has).
    final class Signal: Sendable {
        private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func fire() {
            let waiters = state.withLock { state in
                state.fired = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let fired = state.withLock { state in
                    if !state.fired { state.waiters.append(continuation) }
                    return state.fired
                }
                if fired { continuation.resume() }
            }
        }
    }

    /// A ``VersionedStore`` whose next load can be held: the held load reads the partition at
    /// once, fires `arrived`, and keeps its answer until `release` fires, as a database reply
    /// still on its way would.
    final class HoldingStore: MSALPartitionedTokenCacheStore {
        struct Hold: Sendable {
            let arrived = Signal()
            let release = Signal()
        }

        let shared: VersionedStore
        private let next = Mutex<Hold?>(nil)

        init(_ shared: VersionedStore) {
            self.shared = shared
        }

        /// Holds the next load.
        func holdNextLoad() -> Hold {
            let hold = Hold()
            next.withLock { $0 = hold }
            return hold
        }

        func load(partition key: String) async throws -> MSALTokenCachePartitionRecord? {
            let record = try await shared.load(partition: key)
            let hold = next.withLock { next in
                defer { next = nil }
                return next
            }
            if let hold {
                hold.arrived.fire()
                await hold.release.wait()
            }
            return record
        }

        func store(partition key: String, data: Data?, expiresOn: Date?, replacing version: Int64?) async throws -> Bool {
            try await shared.store(partition: key, data: data, expiresOn: expiresOn, replacing: version)
        }
    }

    /// How many loads reached `store`.
    static func loads(_ store: VersionedStore) -> Int { store.state.withLock { $0.loads } }

    static func data(_ text: String) -> Data { Data(text.utf8) }

    /// The partitions of `keys` that `copy` answers from memory: probed while `shared` fails
    /// every load, so a probe that misses throws, keeps nothing and evicts nothing.
    static func kept(_ copy: MSALReadThroughTokenCacheStore, _ shared: VersionedStore, _ keys: [String]) async -> Set<String> {
        shared.failing.withLock { $0.load = true }
        defer { shared.failing.withLock { $0.load = false } }
        var kept: Set<String> = []
        for key in keys {
            if (try? await copy.load(partition: key)) != nil { kept.insert(key) }
        }
        return kept
    }

    /// A confidential client's token cache (partition keys suggested) in `store`.
    static func cache(_ store: any MSALPartitionedTokenCacheStore, attempts: Int = 8) throws -> TokenCache {
        var config = MSALCacheConfig(storage: .partitioned(store))
        config.partitionWriteAttempts = attempts
        return try TokenCache(config: config, suggestsPartitionKeys: true)
    }

    @Test("A partition read less than maximumAge ago is answered from memory; at maximumAge it is read again")
    func maximumAge() async throws {
        let shared = VersionedStore()
        shared.set("p", Self.data("v1"))
        let clock = StoppedClock()
        let copy = try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(30), clock: clock)

        #expect(try await copy.load(partition: "p")?.version == 1)
        #expect(Self.loads(shared) == 1)
        // Another replica stores a newer version: not seen while the copy is younger than 30 s.
        shared.set("p", Self.data("v2"))
        clock.advance(by: 29.5)
        let fromMemory = try await copy.load(partition: "p")
        #expect(fromMemory == MSALTokenCachePartitionRecord(data: Self.data("v1"), version: 1))
        #expect(Self.loads(shared) == 1)

        clock.advance(by: 0.5)
        let reread = try await copy.load(partition: "p")
        #expect(reread == MSALTokenCachePartitionRecord(data: Self.data("v2"), version: 2))
        #expect(Self.loads(shared) == 2)
        // The new read is kept from now on.
        clock.advance(by: 29)
        #expect(try await copy.load(partition: "p")?.version == 2)
        #expect(Self.loads(shared) == 2)
    }

    @Test("A store through the copy drops it: stored, conflicting (false) or throwing (passed on); the next load reads the store")
    func storesDropTheCopy() async throws {
        let shared = VersionedStore()
        shared.set("p", Self.data("v1"))
        let copy = try MSALReadThroughTokenCacheStore(shared, clock: StoppedClock())
        _ = try await copy.load(partition: "p")
        _ = try await copy.load(partition: "p")
        #expect(Self.loads(shared) == 1)

        // Stored.
        #expect(try await copy.store(partition: "p", data: Self.data("v2"), expiresOn: nil, replacing: 1))
        #expect(try await copy.load(partition: "p") == MSALTokenCachePartitionRecord(data: Self.data("v2"), version: 2))
        #expect(Self.loads(shared) == 2)
        #expect(try await copy.load(partition: "p")?.version == 2)
        #expect(Self.loads(shared) == 2)

        // A conflict: another replica stored version 3, the copy still holds 2.
        shared.set("p", Self.data("v3"))
        #expect(try await copy.load(partition: "p")?.version == 2)
        #expect(try await copy.store(partition: "p", data: Self.data("lost"), expiresOn: nil, replacing: 2) == false)
        #expect(shared.state.withLock { $0.conflicts } == 1)
        #expect(try await copy.load(partition: "p") == MSALTokenCachePartitionRecord(data: Self.data("v3"), version: 3))
        #expect(Self.loads(shared) == 3)
        #expect(try await copy.load(partition: "p")?.version == 3)
        #expect(Self.loads(shared) == 3)

        // The store throws: the error is passed on, and the copy is dropped all the same.
        shared.failing.withLock { $0.store = true }
        await #expect {
            _ = try await copy.store(partition: "p", data: Self.data("v4"), expiresOn: nil, replacing: 3)
        } throws: { error in
            (error as? VersionedStore.Failure)?.description == "connection reset (store)"
        }
        shared.failing.withLock { $0.store = false }
        #expect(try await copy.load(partition: "p")?.version == 3)
        #expect(Self.loads(shared) == 4)

        // Removing the partition through the copy: the next load sees that it is gone.
        #expect(try await copy.store(partition: "p", data: nil, expiresOn: nil, replacing: 3))
        #expect(try await copy.load(partition: "p") == nil)
        #expect(Self.loads(shared) == 5)
    }

    @Test("A load that fails is passed on and keeps nothing; the next load asks the store again")
    func failedLoad() async throws {
        let shared = VersionedStore()
        shared.set("p", Self.data("v1"))
        let copy = try MSALReadThroughTokenCacheStore(shared, clock: StoppedClock())
        shared.failing.withLock { $0.load = true }
        await #expect {
            _ = try await copy.load(partition: "p")
        } throws: { error in
            (error as? VersionedStore.Failure)?.description == "connection refused (load)"
        }
        shared.failing.withLock { $0.load = false }
        #expect(try await copy.load(partition: "p")?.version == 1)
        #expect(Self.loads(shared) == 1)
        #expect(try await copy.load(partition: "p")?.version == 1)
        #expect(Self.loads(shared) == 1)
    }

    @Test("An absent partition is not kept: each load asks the store, and sees the partition once it exists")
    func absentPartitions() async throws {
        let shared = VersionedStore()
        let copy = try MSALReadThroughTokenCacheStore(shared, clock: StoppedClock())
        #expect(try await copy.load(partition: "absent") == nil)
        #expect(try await copy.load(partition: "absent") == nil)
        #expect(try await copy.load(partition: "absent") == nil)
        #expect(Self.loads(shared) == 3)
        shared.set("absent", Self.data("v1"))
        #expect(try await copy.load(partition: "absent")?.version == 1)
        #expect(Self.loads(shared) == 4)
    }

    @Test("maximumAge .zero keeps nothing: every load asks the store")
    func zeroAgeKeepsNothing() async throws {
        let shared = VersionedStore()
        shared.set("p", Self.data("v1"))
        let copy = try MSALReadThroughTokenCacheStore(shared, maximumAge: .zero, clock: StoppedClock())
        for expected in 1...4 {
            #expect(try await copy.load(partition: "p")?.version == 1)
            #expect(Self.loads(shared) == expected)
        }
        #expect(await Self.kept(copy, shared, ["p"]).isEmpty)
    }

    @Test("A load that began before a store of its partition and ended after it keeps nothing; one of another partition is kept")
    func loadRacingAStore() async throws {
        let shared = VersionedStore()
        shared.set("p", Self.data("v1"))
        shared.set("q", Self.data("q1"))
        let holding = HoldingStore(shared)
        let copy = try MSALReadThroughTokenCacheStore(holding, clock: StoppedClock())

        // Control: a held load with no store in between is kept.
        var hold = holding.holdNextLoad()
        var load = Task { try await copy.load(partition: "p") }
        await hold.arrived.wait()
        hold.release.fire()
        #expect(try await load.value?.version == 1)
        #expect(try await copy.load(partition: "p")?.version == 1)
        #expect(Self.loads(shared) == 1)

        // Load A reads version 1 (the copy was dropped by removeAllCopies), then waits; a store of
        // the same partition through the copy ends; A's answer arrives: older than the store.
        copy.removeAllCopies()
        hold = holding.holdNextLoad()
        load = Task { try await copy.load(partition: "p") }
        await hold.arrived.wait()
        #expect(try await copy.store(partition: "p", data: Self.data("v3"), expiresOn: nil, replacing: 1))
        hold.release.fire()
        #expect(try await load.value?.version == 1)
        #expect(Self.loads(shared) == 2)
        let next = try await copy.load(partition: "p")
        #expect(next == MSALTokenCachePartitionRecord(data: Self.data("v3"), version: 3))
        #expect(Self.loads(shared) == 3)
        #expect(try await copy.load(partition: "p")?.version == 3)
        #expect(Self.loads(shared) == 3)

        // A store of another partition while a load of "q" is held does not stop "q" being kept.
        hold = holding.holdNextLoad()
        load = Task { try await copy.load(partition: "q") }
        await hold.arrived.wait()
        #expect(try await copy.store(partition: "p", data: Self.data("v4"), expiresOn: nil, replacing: 3))
        hold.release.fire()
        #expect(try await load.value?.version == 2)
        #expect(try await copy.load(partition: "q")?.version == 2)
        #expect(Self.loads(shared) == 4)
    }

    @Test("maximumPartitions bounds the copies kept: aged ones go first, down to half the limit, never the copy just made")
    func maximumPartitions() async throws {
        let shared = VersionedStore()
        let keys = (0..<10).map { "p\($0)" }
        for key in keys { shared.set(key, Self.data(key)) }
        let clock = StoppedClock()
        let copy = try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(30), maximumPartitions: 4, clock: clock)
        for key in keys { #expect(try await copy.load(partition: key)?.data == Self.data(key)) }
        #expect(Self.loads(shared) == 10)
        let kept = await Self.kept(copy, shared, keys)
        #expect((1...4).contains(kept.count), "kept \(kept.sorted())")
        // Loading everything again reads at least the partitions not kept.
        for key in keys { _ = try await copy.load(partition: key) }
        #expect(Self.loads(shared) >= 10 + 10 - 4)

        // Three copies age; two fresh ones go over the limit of 4: dropping the aged ones brings the
        // copies down to half the limit, so both fresh ones stay.
        let ageing = try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(30), maximumPartitions: 4, clock: clock)
        for key in ["p0", "p1", "p2"] { _ = try await ageing.load(partition: key) }
        clock.advance(by: 30)
        _ = try await ageing.load(partition: "p3")
        _ = try await ageing.load(partition: "p4")
        #expect(await Self.kept(ageing, shared, ["p0", "p1", "p2", "p3", "p4"]) == ["p3", "p4"])

        // With room for one, the copy just made is the one kept: alternating loads are answered
        // from memory for the partition read last.
        let single = try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(30), maximumPartitions: 1, clock: clock)
        _ = try await single.load(partition: "p0")
        _ = try await single.load(partition: "p1")
        #expect(await Self.kept(single, shared, ["p0", "p1"]) == ["p1"])
    }

    @Test("A negative maximumAge or maximumPartitions under 1 is refused with invalidParameter")
    func invalidParameters() throws {
        let shared = VersionedStore()
        let refused: [(maximumAge: Duration, maximumPartitions: Int)] = [
            (.seconds(-1), 10), (.milliseconds(-1), 10), (.seconds(30), 0), (.seconds(30), -5),
        ]
        for (age, partitions) in refused {
            #expect {
                _ = try MSALReadThroughTokenCacheStore(shared, maximumAge: age, maximumPartitions: partitions)
            } throws: { error in
                let error = error as? MSALFailure
                return error?.code == .internal && error?.internalCode == .internalErrorInvalidParameter
            }
        }
        let smallest = try MSALReadThroughTokenCacheStore(shared, maximumAge: .zero, maximumPartitions: 1)
        #expect(smallest.maximumAge == .zero)
        #expect(smallest.maximumPartitions == 1)
        #expect((smallest.store as? VersionedStore) === shared)
    }

    @Test("removeAllCopies: the next load of every partition reads the store, and a load under way keeps nothing")
    func removeAllCopies() async throws {
        let shared = VersionedStore()
        shared.set("p", Self.data("p"))
        shared.set("q", Self.data("q"))
        let holding = HoldingStore(shared)
        let copy = try MSALReadThroughTokenCacheStore(holding, clock: StoppedClock())
        _ = try await copy.load(partition: "p")
        _ = try await copy.load(partition: "q")
        #expect(await Self.kept(copy, shared, ["p", "q"]) == ["p", "q"])
        #expect(Self.loads(shared) == 2)

        copy.removeAllCopies()
        #expect(try await copy.load(partition: "p")?.version == 1)
        #expect(try await copy.load(partition: "q")?.version == 2)
        #expect(Self.loads(shared) == 4)
        #expect(await Self.kept(copy, shared, ["p", "q"]) == ["p", "q"])

        copy.removeAllCopies()
        let hold = holding.holdNextLoad()
        let load = Task { try await copy.load(partition: "p") }
        await hold.arrived.wait()
        copy.removeAllCopies()
        hold.release.fire()
        #expect(try await load.value?.version == 1)
        #expect(await Self.kept(copy, shared, ["p", "q"]).isEmpty)
    }

    @Test("Client credentials through the copy: cache hits after the first read need no load; another replica's token after maximumAge")
    func confidentialClient() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            // The copies age by their own clock, so that no real time can age them.
            let shared = VersionedStore()
            let clock = StoppedClock()
            let copies = [
                try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(30), clock: clock),
                try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(30), clock: clock),
            ]
            let first = try App.application(harness, cache: MSALCacheConfig(storage: .partitioned(copies[0])))
            let second = try App.application(harness, cache: MSALCacheConfig(storage: .partitioned(copies[1])))
            let key = "\(Grant.secretClientID)_\(EmulatorHarness.contoso)_AppTokenCache"

            let token = try await first.acquireTokenForClient(scopes: [App.graphDefault])
            #expect(token.tokenSource == .identityProvider)
            #expect(shared.record(key)?.version == 1)
            // The store dropped the first replica's copy: the next call reads the partition once...
            var loads = Self.loads(shared)
            let hit = try await first.acquireTokenForClient(scopes: [App.graphDefault])
            #expect(hit.tokenSource == .cache)
            #expect(hit.accessToken == token.accessToken)
            #expect(Self.loads(shared) == loads + 1)
            // ...and the calls after it are answered from memory, with no load.
            for _ in 0..<3 {
                let fromMemory = try await first.acquireTokenForClient(scopes: [App.graphDefault])
                #expect(fromMemory.tokenSource == .cache)
                #expect(fromMemory.accessToken == token.accessToken)
            }
            #expect(Self.loads(shared) == loads + 1)

            // The second replica reads the shared partition once, then from its own copy.
            loads = Self.loads(shared)
            #expect(try await second.acquireTokenForClient(scopes: [App.graphDefault]).accessToken == token.accessToken)
            #expect(try await second.acquireTokenForClient(scopes: [App.graphDefault]).accessToken == token.accessToken)
            #expect(Self.loads(shared) == loads + 1)
            #expect(App.grants(harness) == 1)

            // The second replica replaces the token over the version it read.
            let parameters = MSALClientCredentialParameters(scopes: [App.graphDefault])
            parameters.forceRefresh = true
            let refreshed = try await second.acquireTokenForClient(with: parameters)
            #expect(refreshed.accessToken != token.accessToken)
            #expect(shared.record(key)?.version == 2)
            #expect(App.grants(harness) == 2)
            // Its own next call sees it (its store dropped its copy).
            #expect(try await second.acquireTokenForClient(scopes: [App.graphDefault]).accessToken == refreshed.accessToken)
            // The first replica's copy is younger than 30 s: it still answers with the older token.
            #expect(try await first.acquireTokenForClient(scopes: [App.graphDefault]).accessToken == token.accessToken)
            // Once the copy is 30 s old, the first replica reads the shared partition again.
            clock.advance(by: 30)
            loads = Self.loads(shared)
            let later = try await first.acquireTokenForClient(scopes: [App.graphDefault])
            #expect(later.tokenSource == .cache)
            #expect(later.accessToken == refreshed.accessToken)
            #expect(Self.loads(shared) == loads + 1)
            #expect(App.grants(harness) == 2)
        }
    }

    @Test("2 replicas, each its own copy of one store × 8 concurrent writers × 5 writes: every write kept, stale copies redone")
    func noLostUpdates() async throws {
        // As PartitionedStoreTests.noLostUpdates, with each replica's copy in front of the shared
        // store: all 16 first loads are held until each has arrived, so 15 writers must conflict.
        // The clock stands still, so a copy never ages: only the stores through it drop it.
        let shared = VersionedStore(gate: 16)
        let clock = StoppedClock()
        let copies = [
            try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(3600), clock: clock),
            try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(3600), clock: clock),
        ]
        let replicas = try copies.map { try Self.cache($0, attempts: 1000) }
        try await PartitionedStoreTests.writeConcurrently(replicas, sharing: shared)
    }
}
