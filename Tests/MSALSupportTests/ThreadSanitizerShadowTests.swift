import Foundation
import MSALSupport
import Testing

/// Hand-overs that are correctly ordered, in the two shapes ThreadSanitizer misreported before
/// `ThreadSanitizerShadows.swift`: state behind a contended `Mutex`, and a value written before a
/// continuation is resumed on another thread.
///
/// In a normal build these only check the values. Under `scripts/sanitize.sh thread` (CI stage 4)
/// a report fails the run, so they check that the shadows keep giving ThreadSanitizer the order the
/// standard library guarantees. Without the shadows both are reported; a write made after `resume`
/// is still reported, so the fence hides no real race (`docs/reliability.md`, "ThreadSanitizer").
@Suite("ThreadSanitizer shadows: ordered hand-overs are not reported")
struct ThreadSanitizerShadowTests {
    /// A class with no lock of its own, so only the continuation can order its accesses.
    final class Box: @unchecked Sendable {
        // @unchecked Sendable: written on one thread before `resume` and read after the `await`;
        // the continuation orders the two, which is what the test is about.
        var value = 0
    }

    @Test("A value written on another thread before resume is read after the await")
    func continuationHandOver() async {
        for round in 1...200 {
            let box = Box()
            let returned: Int = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                Thread.detachNewThread {
                    box.value = round
                    continuation.resume(returning: round * 2)
                }
            }
            #expect(box.value == round)
            #expect(returned == round * 2)
        }
    }

    @Test("A thrown error and the state written before it cross a throwing continuation")
    func throwingContinuationHandOver() async {
        struct Refused: Error { var round: Int }
        for round in 1...50 {
            let box = Box()
            do {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    Thread.detachNewThread {
                        box.value = round
                        continuation.resume(throwing: Refused(round: round))
                    }
                }
                Issue.record("round \(round) did not throw")
            } catch {
                #expect((error as? Refused)?.round == round)
            }
            #expect(box.value == round)
        }
    }

    /// Totals behind a `Mutex` (a class, so tasks can share it).
    final class Totals: Sendable {
        let byWorker = Mutex([Int: Int]())
    }

    @Test("Eight threads updating one dictionary behind a Mutex")
    func contendedMutex() async {
        let shared = Totals()
        let steps = 2_000
        // Threads, not tasks: two cooperative threads rarely contend, and the lock's contended
        // path is the one ThreadSanitizer could not see.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let group = DispatchGroup()
                for worker in 0..<8 {
                    group.enter()
                    Thread.detachNewThread {
                        for step in 0..<steps {
                            shared.byWorker.withLock { $0[worker, default: 0] += step }
                        }
                        group.leave()
                    }
                }
                group.wait()
                continuation.resume()
            }
        }
        let totals = shared.byWorker.withLock { $0 }
        #expect(totals.count == 8)
        #expect(totals.values.allSatisfy { $0 == (0..<steps).reduce(0, +) })
    }
}
