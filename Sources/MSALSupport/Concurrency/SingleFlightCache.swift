import Foundation

/// A cache in front of a ``SingleFlight``: concurrent misses for one key share a single load, and
/// the result is kept for as long as the loader says.
///
/// The warm path is a lock and a dictionary lookup: no task, no allocation beyond the key.
/// Failed loads may be cached too (negative caching), for the time the loader says.
package final class SingleFlightCache<Key: Hashable & Sendable, Value: Sendable, Failure: Error>: Sendable {
    /// What a load produced and how long to keep it (`nil`: do not keep it).
    package struct Outcome: Sendable {
        package var result: Result<Value, Failure>
        package var timeToLive: Double?

        /// A load's `result`, kept for `timeToLive` seconds (`nil` or not positive: not kept).
        package init(_ result: Result<Value, Failure>, timeToLive: Double?) {
            self.result = result
            self.timeToLive = timeToLive
        }
    }

    private struct Entry {
        var result: Result<Value, Failure>
        var expires: Date
        var stored: Date
    }

    private let entries = Mutex([Key: Entry]())
    /// How many times an entry was stored or removed (``generation``).
    private let changes = Atomic<Int>(0)
    private let loads = SingleFlight<Key, Value>()
    private let capacity: Int
    private let now: @Sendable () -> Date

    /// Creates a cache that keeps at most `capacity` entries, timed by `now`.
    package init(capacity: Int = 256, now: @escaping @Sendable () -> Date) {
        self.capacity = capacity
        self.now = now
    }

    /// Counts the changes to the entries (each store and removal; not expiry). A result read with
    /// ``cachedEntry(_:)`` after this read `g` is still the one in the cache, until it expires,
    /// for as long as this still reads `g`: a memo in front of the cache (one specialized for its
    /// types, cheaper than this generic lookup) is checked with it.
    package var generation: Int { changes.load(ordering: .acquiring) }

    /// The unexpired cached result for `key`, without loading.
    package func cached(_ key: Key) -> Result<Value, Failure>? {
        cachedEntry(key)?.result
    }

    /// The unexpired cached result for `key` and when it expires, without loading.
    package func cachedEntry(_ key: Key) -> (result: Result<Value, Failure>, expires: Date)? {
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[key], entry.expires > now else { return nil }
            return (entry.result, entry.expires)
        }
    }

    /// When the entry for `key` was stored, if there is one.
    package func storedDate(_ key: Key) -> Date? {
        entries.withLock { $0[key]?.stored }
    }

    /// The cached value, or the result of one shared `load` for all concurrent callers.
    ///
    /// A caller whose task is cancelled stops waiting with `CancellationError`; the load goes on
    /// and its result is kept for the next caller.
    package func value(
        for key: Key, load: @escaping @Sendable () async -> Outcome
    ) async throws -> Value {
        if let hit = cached(key) { return try hit.get() }
        return try await loads.run(key) { [self] in
            // A caller that missed just before another load stored its result finds it here.
            if let hit = cached(key) { return try hit.get() }
            let outcome = await load()
            store(key, outcome)
            return try outcome.result.get()
        }
    }

    /// The result of one shared `load` for `key`, whatever is cached: a successful result replaces
    /// the cached one, a failed one (not kept) leaves it in place.
    package func reload(for key: Key, load: @escaping @Sendable () async -> Outcome) async throws -> Value {
        try await loads.run(key) { [self] in
            let outcome = await load()
            store(key, outcome)
            return try outcome.result.get()
        }
    }

    /// The result of the load in flight for `key`; when none is, of a new `load` (a reload, as
    /// ``reload(for:load:)``) if `startsNew()` allows it, else `nil`. `startsNew` is asked under the
    /// lock that registers loads, so a refused caller never misses a load another caller started.
    package func join(
        _ key: Key, orReloadIf startsNew: () -> Bool, load: @escaping @Sendable () async -> Outcome
    ) async throws -> Value? {
        try await loads.join(key, orStartIf: startsNew) { [self] in
            let outcome = await load()
            store(key, outcome)
            return try outcome.result.get()
        }
    }

    /// Forgets `key`.
    package func remove(_ key: Key) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
        changes.add(1, ordering: .releasing)
    }

    /// Forgets everything.
    package func removeAll() {
        entries.withLock { $0.removeAll() }
        changes.add(1, ordering: .releasing)
    }

    private func store(_ key: Key, _ outcome: Outcome) {
        guard let ttl = outcome.timeToLive, ttl > 0 else { return }
        let now = now()
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil,
                let oldest = entries.min(by: { $0.value.expires < $1.value.expires })?.key
            {
                entries[oldest] = nil
            }
            entries[key] = Entry(result: outcome.result, expires: now.addingTimeInterval(ttl), stored: now)
        }
        changes.add(1, ordering: .releasing)
    }
}
