/// Runs one shared operation per key for all concurrent callers: the first caller for a key starts
/// it, the others join, and every caller gets its result.
///
/// The operation runs in its own task and always runs to its end, so work that must not be lost
/// halfway (a redeemed refresh token's successor) is finished and stored even when every caller
/// has gone. A caller whose own task is cancelled stops waiting at once with `CancellationError`;
/// the others keep waiting.
package final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        /// Each operation in flight, with the callers waiting for it.
        var flights: [Key: [OneShot<Value>]] = [:]
        var joined = 0
    }

    private let state = Mutex(State())

    /// Creates an empty set of flights.
    package init() {}

    /// The result of the operation in flight for `key`, or of a new one running `operation`.
    package func run(
        _ key: Key, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        // Always allowed to start, `join` always has a result.
        try await join(key, orStartIf: { true }, operation)!
    }

    /// The result of the operation in flight for `key`; when none is, of a new one running
    /// `operation` if `startsNew()` allows it, else `nil`.
    ///
    /// `startsNew` is asked under the same lock that registers the flight, so a caller that is
    /// refused a start never misses a flight that another caller's allowed start has begun: it
    /// either joins that flight or runs after it has ended (and stored its result).
    package func join(
        _ key: Key, orStartIf startsNew: () -> Bool, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        let waiter = OneShot<Value>()
        let decision = state.withLock { state -> Bool? in
            if state.flights[key] != nil {
                state.flights[key]!.append(waiter)
                state.joined += 1
                return false
            }
            guard startsNew() else { return nil }
            state.flights[key] = [waiter]
            return true
        }
        guard let starts = decision else { return nil }
        if starts {
            Task {
                let result: Result<Value, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                self.finish(key, result)
            }
        }
        return try await waiter.value()
    }

    private func finish(_ key: Key, _ result: Result<Value, any Error>) {
        let waiters = state.withLock { $0.flights.removeValue(forKey: key) ?? [] }
        for waiter in waiters { waiter.deliver(result) }
    }

    /// How many operations are in flight (for tests).
    package var count: Int { state.withLock { $0.flights.count } }

    /// How many callers have joined an operation already in flight instead of starting one (for
    /// tests: a test can hold the operation until every concurrent caller has joined).
    package var joinedCount: Int { state.withLock { $0.joined } }
}
