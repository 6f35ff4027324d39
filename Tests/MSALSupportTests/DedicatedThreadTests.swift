import Foundation
import Testing

@testable import MSALSupport

/// ``DedicatedThread``: blocking work on a thread of its own, many at once without waiting for
/// each other, results and errors handed back.
@Suite("Dedicated threads for blocking work")
struct DedicatedThreadTests {
    struct Refusal: Error, Equatable {}

    @Test("The value or the error comes back")
    func valuesAndErrors() async throws {
        #expect(await DedicatedThread.run(name: "t") { 7 } == 7)
        #expect(try await DedicatedThread.run(name: "t") { () throws -> Int in 42 } == 42)
        await #expect(throws: Refusal.self) { try await DedicatedThread.run(name: "t") { () throws -> Int in throw Refusal() } }
    }

    @Test("Sixteen works that each block for 300 ms end together, not one after another (no pool to wait for)")
    func blockingWorkDoesNotQueue() async {
        let started = ContinuousClock.now
        await withTaskGroup(of: Int32.self) { group in
            for _ in 0..<16 {
                group.addTask { await DedicatedThread.run(name: "sleeper") { usleep(300_000) } }
            }
            await group.waitForAll()
        }
        // Sixteen in a row would take 4.8 s; a pool of two threads 2.4 s.
        #expect(ContinuousClock.now - started < .seconds(2), "\(ContinuousClock.now - started)")
    }
}
