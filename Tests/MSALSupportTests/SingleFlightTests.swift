import MSALSupport
import Testing

@Suite("Single flight and one-shot", .timeLimit(.minutes(1)))
struct SingleFlightTests {
    /// A gate the operations wait on, opened by the test.
    final class Gate: Sendable {
        private let isOpen = Mutex(false)
        func open() { isOpen.withLock { $0 = true } }
        func wait() async {
            while !isOpen.withLock({ $0 }) { try? await Task.sleep(nanoseconds: 1_000_000) }
        }
    }

    /// Counts operation runs.
    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int {
            value.withLock {
                $0 += 1; return $0
            }
        }
        var count: Int { value.withLock { $0 } }
    }

    struct Failure: Error, Equatable { let code: Int }

    @Test("Concurrent callers for one key share one run; other keys run on their own")
    func sharing() async throws {
        let flights = SingleFlight<String, Int>()
        let runs = Counter()
        let gate = Gate()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                group.addTask {
                    try await flights.run(index < 90 ? "a" : "b") {
                        await gate.wait()
                        _ = runs.next()
                        return index < 90 ? 1 : 2
                    }
                }
            }
            while flights.joinedCount < 98 { try await Task.sleep(nanoseconds: 100_000) }
            #expect(flights.count == 2)
            gate.open()
            var values: [Int] = []
            for try await value in group { values.append(value) }
            #expect(values.filter { $0 == 1 }.count == 90)
            #expect(values.filter { $0 == 2 }.count == 10)
        }
        #expect(runs.count == 2)
        #expect(flights.count == 0)
    }

    @Test("A failure reaches every caller of the flight, and the next call runs again")
    func failure() async throws {
        let flights = SingleFlight<Int, Int>()
        let runs = Counter()
        await #expect(throws: Failure(code: 7)) {
            try await flights.run(1) {
                _ = runs.next(); throw Failure(code: 7)
            }
        }
        #expect(try await flights.run(1) { runs.next() } == 2)
    }

    @Test("A cancelled caller stops waiting at once; the others get the result and the run is not cut short")
    func cancelledWaiter() async throws {
        let flights = SingleFlight<String, Int>()
        let gate = Gate()
        let finished = Counter()
        let leader = Task {
            try await flights.run("k") {
                await gate.wait(); _ = finished.next(); return 42
            }
        }
        while flights.count == 0 { try await Task.sleep(nanoseconds: 100_000) }
        let quitter = Task {
            try await flights.run("k") {
                Issue.record("joined callers never run"); return 0
            }
        }
        let stayer = Task {
            try await flights.run("k") {
                Issue.record("joined callers never run"); return 0
            }
        }
        while flights.joinedCount < 2 { try await Task.sleep(nanoseconds: 100_000) }
        quitter.cancel()
        await #expect(throws: CancellationError.self) { try await quitter.value }
        leader.cancel()  // the leader's cancellation ends its wait, not the shared run
        await #expect(throws: CancellationError.self) { try await leader.value }
        #expect(finished.count == 0)
        gate.open()
        #expect(try await stayer.value == 42)
        #expect(finished.count == 1)
    }

    @Test("One-shot: delivery before or after the wait; only the first counts")
    func oneShot() async throws {
        let early = OneShot<Int>()
        early.deliver(.success(1))
        early.deliver(.success(2))
        #expect(try await early.value() == 1)

        let late = OneShot<Int>()
        let waiter = Task { try await late.value() }
        try await Task.sleep(nanoseconds: 10_000_000)
        late.deliver(.success(3))
        #expect(try await waiter.value == 3)
    }

    @Test("One-shot: a task cancelled before it waits gets CancellationError without waiting")
    func oneShotCancelledFirst() async {
        let shot = OneShot<Int>()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await shot.value()
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    @Test("Single-flight cache: concurrent misses share one load and the result is kept")
    func cacheSharesLoads() async throws {
        let cache = SingleFlightCache<String, Int, Failure>(capacity: 8, now: { .now })
        let loads = Counter()
        let gate = Gate()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await cache.value(for: "k") {
                        await gate.wait()
                        return .init(.success(loads.next()), timeToLive: 60)
                    }
                }
            }
            try await Task.sleep(nanoseconds: 50_000_000)
            gate.open()
            for try await value in group { #expect(value == 1) }
        }
        #expect(loads.count == 1)
        #expect(try cache.cached("k")?.get() == 1)
    }
}
