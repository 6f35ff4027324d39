import Foundation
import Synchronization

/// A cache whose concurrent misses for one key share a single load.
///
/// The warm path is a lock and a dictionary lookup: no task, no allocation beyond the key.
/// Failed loads may be cached too (negative caching), for the time the loader says.
package final class SingleFlightCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// What a load produced and how long to keep it (`nil`: do not keep it).
    package struct Outcome: Sendable {
        package var result: Result<Value, MSALError>
        package var timeToLive: Double?

        package init(_ result: Result<Value, MSALError>, timeToLive: Double?) {
            self.result = result
            self.timeToLive = timeToLive
        }
    }

    private struct Entry {
        var result: Result<Value, MSALError>
        var expires: Date
        var stored: Date
    }

    private enum Step {
        case hit(Result<Value, MSALError>)
        case wait(Task<Value, any Error>)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var inflight: [Key: Task<Value, any Error>] = [:]
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let clock: any MSALClock

    /// Creates a cache that keeps at most `capacity` entries, timed by `clock`.
    package init(capacity: Int = 256, clock: any MSALClock = MSALSystemClock()) {
        self.capacity = capacity
        self.clock = clock
    }

    /// The unexpired cached result for `key`, without loading.
    package func cached(_ key: Key) -> Result<Value, MSALError>? {
        let now = clock.now()
        return state.withLock { state in
            guard let entry = state.entries[key], entry.expires > now else { return nil }
            return entry.result
        }
    }

    /// The unexpired cached result for `key` and when it expires, without loading.
    package func cachedEntry(_ key: Key) -> (result: Result<Value, MSALError>, expires: Date)? {
        let now = clock.now()
        return state.withLock { state in
            guard let entry = state.entries[key], entry.expires > now else { return nil }
            return (entry.result, entry.expires)
        }
    }

    /// When the entry for `key` was stored, if there is one.
    package func storedDate(_ key: Key) -> Date? {
        state.withLock { $0.entries[key]?.stored }
    }

    /// The cached value, or the result of one shared `load` for all concurrent callers.
    package func value(
        for key: Key, load: @escaping @Sendable () async -> Outcome
    ) async throws -> Value {
        let now = clock.now()
        let step: Step = state.withLock { state in
            if let entry = state.entries[key], entry.expires > now { return .hit(entry.result) }
            if let running = state.inflight[key] { return .wait(running) }
            let task = Task<Value, any Error> { [weak self] in
                let outcome = await load()
                self?.finish(key, outcome: outcome)
                return try outcome.result.get()
            }
            state.inflight[key] = task
            return .wait(task)
        }
        switch step {
        case .hit(let result): return try result.get()
        case .wait(let task): return try await task.value
        }
    }

    /// Forgets `key`.
    package func remove(_ key: Key) {
        _ = state.withLock { $0.entries.removeValue(forKey: key) }
    }

    /// Forgets everything.
    package func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    private func finish(_ key: Key, outcome: Outcome) {
        let now = clock.now()
        state.withLock { state in
            state.inflight[key] = nil
            guard let ttl = outcome.timeToLive, ttl > 0 else { return }
            if state.entries.count >= capacity, state.entries[key] == nil {
                if let oldest = state.entries.min(by: { $0.value.expires < $1.value.expires })?.key {
                    state.entries[oldest] = nil
                }
            }
            state.entries[key] = Entry(result: outcome.result, expires: now.addingTimeInterval(ttl), stored: now)
        }
    }
}
