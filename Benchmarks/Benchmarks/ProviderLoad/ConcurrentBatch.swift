import Foundation
import Synchronization

/// Holds tasks back until a known number have arrived, then lets them all go at once, so that every
/// call of a batch is in flight together (a task created last does not start after the first ones
/// have finished).
final class StartGate: Sendable {
    private struct State {
        var arrived = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var openedAt: ContinuousClock.Instant?
    }

    private let expected: Int
    private let state = Mutex(State())

    init(expected: Int) {
        self.expected = expected
    }

    /// Waits until `expected` tasks have called this; the last one opens the gate for all.
    func arrive() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.arrived += 1
                state.waiting.append(continuation)
                guard state.arrived == expected else { return [] }
                state.openedAt = .now
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in released { waiter.resume() }
        }
    }

    /// When the last task arrived.
    var openedAt: ContinuousClock.Instant? { state.withLock { $0.openedAt } }
}

/// What one batch of concurrent calls gave.
struct Batch<Value: Sendable>: Sendable {
    /// Call `i`'s result at index `i`.
    var results: [Value]
    /// Call `i`'s latency at index `i`: from the gate opening for it to its result, as its task saw it.
    var latencies: [Duration]
    /// From the gate opening to the last result.
    var elapsed: Duration

    /// Latencies in whole microseconds, for the benchmark's custom metric.
    var latencyMicroseconds: [Int] { latencies.map(Self.microseconds) }

    /// Calls completed per second over ``elapsed``.
    var callsPerSecond: Int {
        let seconds = Double(Self.microseconds(elapsed)) / 1_000_000
        return seconds > 0 ? Int((Double(results.count) / seconds).rounded()) : 0
    }

    static func microseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
    }
}

/// Runs `call(0) … call(count - 1)` in `count` concurrent tasks released together by a
/// ``StartGate``, timing each. Any failure ends the run: under this load every call must succeed.
func runBatch<Value: Sendable>(_ count: Int, _ call: @escaping @Sendable (Int) async throws -> Value) async -> Batch<Value> {
    let gate = StartGate(expected: count)
    let outcomes = await withTaskGroup(of: (Int, Result<Value, any Error>, Duration, ContinuousClock.Instant).self) { group in
        for index in 0..<count {
            group.addTask {
                await gate.arrive()
                let start = ContinuousClock.now
                let result: Result<Value, any Error>
                do {
                    result = .success(try await call(index))
                } catch {
                    result = .failure(error)
                }
                let end = ContinuousClock.now
                return (index, result, start.duration(to: end), end)
            }
        }
        var collected: [(Int, Result<Value, any Error>, Duration, ContinuousClock.Instant)] = []
        collected.reserveCapacity(count)
        for await outcome in group { collected.append(outcome) }
        return collected.sorted { $0.0 < $1.0 }
    }
    guard let opened = gate.openedAt, let last = outcomes.map(\.3).max() else { fail("the batch never started") }
    let results = outcomes.map { outcome -> Value in
        switch outcome.1 {
        case .success(let value): return value
        case .failure(let error): fail("call \(outcome.0) of \(count) failed: \(String(reflecting: error))")
        }
    }
    return Batch(results: results, latencies: outcomes.map(\.2), elapsed: opened.duration(to: last))
}
