import Foundation

/// Runs blocking work that may wait long (a D-Bus call waiting for a user in another process's
/// window, for instance) on a thread of its own, started for it and ended with it.
///
/// Not Swift's cooperative pool, whose few threads every task shares, and not Dispatch's global
/// queues either: on Linux their thread pool does not grow past the number of cores for work that
/// blocks, so a few long waits there stall every other Dispatch work item of the process (seen in
/// the broker tests: D-Bus calls that take milliseconds waited seconds for a thread).
package enum DedicatedThread {
    /// Runs `body` on a new thread and returns what it returned or threw. The wait does not end
    /// when the calling task is cancelled: `body` runs to its end (give it a deadline).
    package static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread { continuation.resume(with: Result(catching: body)) }
            thread.name = name
            thread.start()
        }
    }

    /// ``run(name:_:)`` for work that cannot fail.
    package static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = name
            thread.start()
        }
    }
}
