import Foundation
import MSALSupport

/// An in-process copy of recently read partitions in front of a shared
/// ``MSALPartitionedTokenCacheStore`` (MSAL for .NET's "L1" cache in front of a distributed one):
/// a silent call whose partition was read less than ``maximumAge`` ago is answered from memory,
/// without a round trip to the store.
///
/// ```swift
/// let shared = try MSALPostgresTokenCache(client: postgres, configuration: .init(encryptionKeys: [key]))
/// let store = try MSALReadThroughTokenCacheStore(shared, maximumAge: .seconds(30))
/// configuration.cacheConfig = MSALCacheConfig(storage: .partitioned(store))
/// ```
///
/// What it changes, and what it does not:
/// - **Reads** may be up to ``maximumAge`` old: a token another replica stored in that time is not
///   seen (this replica may fetch one of its own), and an account another replica removed is still
///   served here until the copy ages out. Within this process every store through this object
///   drops its partition's copy, so an operation sees the writes of the operations before it.
/// - **Writes** are never stale: a store goes to the shared store over the version read, and when
///   the copy was older than the shared partition the store answers `false`; the copy is dropped,
///   and the operation is done again from the shared partition.
/// - Only partitions that exist are kept (an absent one is asked for again each time), at most
///   ``maximumPartitions`` of them; beyond that, aged copies go first, then others until about half
///   the limit is left (never the copy just made).
/// - The copies hold the partitions' tokens in this process's memory, decrypted, as the
///   in-memory cache of a single-process app does.
public final class MSALReadThroughTokenCacheStore: MSALPartitionedTokenCacheStore {
    /// The shared store every miss and every write goes to.
    public let store: any MSALPartitionedTokenCacheStore
    /// How long a partition read from ``store`` is answered from memory, counted from when the read
    /// began; `.zero` keeps nothing.
    public let maximumAge: Duration
    /// How many partitions are kept in memory at most.
    public let maximumPartitions: Int

    private let clock: any MSALClock
    private let maximumAgeSeconds: Double
    private let state = Mutex(State())

    /// The copies, and what keeps a load that raced a store from keeping a copy older than the store.
    fileprivate struct State {
        var slots: [String: Slot] = [:]
        /// How many slots hold a copy.
        var copies = 0
        /// Counts stores through this object; a load keeps its result only if no store of its
        /// partition ended after the load began.
        var epoch: UInt64 = 0
    }

    fileprivate struct Slot {
        var copy: MSALTokenCachePartitionRecord?
        var readAt: Date = .distantPast
        /// The epoch at which the last store of this partition ended.
        var storedAtEpoch: UInt64 = 0
        /// Loads of this partition under way; the slot (and `storedAtEpoch`) is kept while any is.
        var loadsUnderWay = 0
    }

    /// An in-process copy in front of `store`.
    ///
    /// - Parameters:
    ///   - store: the shared store.
    ///   - maximumAge: how long a partition read from `store` is answered from memory (default 30 s;
    ///     `.zero`: never).
    ///   - maximumPartitions: how many partitions are kept at most (default 10,000).
    ///   - clock: the time copies age by.
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for a negative
    ///   `maximumAge` or a `maximumPartitions` under 1.
    public init(
        _ store: any MSALPartitionedTokenCacheStore, maximumAge: Duration = .seconds(30), maximumPartitions: Int = 10_000,
        clock: any MSALClock = MSALSystemClock()
    ) throws(MSALFailure) {
        guard maximumAge >= .zero, maximumPartitions >= 1 else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "A read-through token cache store needs a maximum age of zero or more and room for at least one partition")
        }
        self.store = store
        self.maximumAge = maximumAge
        self.maximumPartitions = maximumPartitions
        self.clock = clock
        let (seconds, attoseconds) = maximumAge.components
        self.maximumAgeSeconds = Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The partition from memory when it was read less than ``maximumAge`` ago, else from
    /// ``store`` (and kept).
    public func load(partition key: String) async throws -> MSALTokenCachePartitionRecord? {
        let now = clock.now()
        let maximumAge = maximumAgeSeconds
        let begun = state.withLock { state -> (copy: MSALTokenCachePartitionRecord?, epoch: UInt64) in
            if let slot = state.slots[key], let copy = slot.copy, now.timeIntervalSince(slot.readAt) < maximumAge {
                return (copy, 0)
            }
            state.slots[key, default: Slot()].loadsUnderWay += 1
            return (nil, state.epoch)
        }
        if let copy = begun.copy { return copy }
        let record: MSALTokenCachePartitionRecord?
        do {
            record = try await store.load(partition: key)
        } catch {
            state.withLock { $0.endLoad(key, keeping: nil, begunAt: begun.epoch, readAt: now, limit: 0, maximumAge: 0) }
            throw error
        }
        // The copy ages from when the load began: the record may be that old.
        let limit = maximumAge > 0 ? maximumPartitions : 0
        state.withLock { $0.endLoad(key, keeping: record, begunAt: begun.epoch, readAt: now, limit: limit, maximumAge: maximumAge) }
        return record
    }

    /// Stores through to ``store``, then drops the partition's copy whatever the answer (stored:
    /// the copy is older than the store; a conflict: older than the shared partition; an error:
    /// unknown), so the next load reads the shared partition.
    public func store(partition key: String, data: Data?, expiresOn: Date?, replacing version: Int64?) async throws -> Bool {
        defer { state.withLock { $0.dropCopy(key) } }
        return try await store.store(partition: key, data: data, expiresOn: expiresOn, replacing: version)
    }

    /// Drops every copy; the next load of each partition reads ``store``.
    public func removeAllCopies() {
        state.withLock { state in
            state.epoch &+= 1
            for key in Array(state.slots.keys) { state.dropCopy(key) }
        }
    }
}

extension MSALReadThroughTokenCacheStore.State {
    /// A load of `key` that began at `epoch` ended: keep `record` unless a store of `key` ended
    /// since (the record may predate it), `limit` is 0, or there is no record.
    fileprivate mutating func endLoad(
        _ key: String, keeping record: MSALTokenCachePartitionRecord?, begunAt epoch: UInt64, readAt: Date, limit: Int,
        maximumAge: Double
    ) {
        guard var slot = slots[key] else { return }
        slot.loadsUnderWay -= 1
        if let record, limit > 0, slot.storedAtEpoch <= epoch {
            if slot.copy == nil { copies += 1 }
            slot.copy = record
            slot.readAt = readAt
        }
        if slot.copy == nil && slot.loadsUnderWay == 0 {
            slots[key] = nil
        } else {
            slots[key] = slot
        }
        if copies > limit && limit > 0 { evict(now: readAt, limit: limit, maximumAge: maximumAge, keeping: key) }
    }

    /// A store of `key` ended: its copy goes, and a load begun before now keeps nothing.
    fileprivate mutating func dropCopy(_ key: String) {
        epoch &+= 1
        guard var slot = slots[key] else { return }
        if slot.copy != nil { copies -= 1 }
        slot.copy = nil
        slot.storedAtEpoch = epoch
        slots[key] = slot.loadsUnderWay == 0 ? nil : slot
    }

    /// Over the limit: drop aged copies, then fresh ones (in the dictionary's order, which is as
    /// good as random) until about half the limit is left, never `kept` (the copy just made); so
    /// the scan runs once per about `limit / 2` new copies.
    private mutating func evict(now: Date, limit: Int, maximumAge: Double, keeping kept: String) {
        let target = max(limit / 2, 1)
        var aged: [String] = []
        var fresh: [String] = []
        for (key, slot) in slots where slot.copy != nil && key != kept {
            if now.timeIntervalSince(slot.readAt) >= maximumAge {
                aged.append(key)
            } else {
                fresh.append(key)
            }
        }
        let beyondAged = copies - aged.count - target
        let keys = aged + fresh.prefix(max(beyondAged, 0))
        for key in keys {
            guard var slot = slots[key], slot.copy != nil else { continue }
            slot.copy = nil
            copies -= 1
            slots[key] = slot.loadsUnderWay == 0 ? nil : slot
        }
    }
}
