import Foundation
import Glibc
import MSALSupport

extension Process {
    /// Starts the process from a short-lived thread whose signal mask is empty.
    ///
    /// corelibs Foundation spawns the child with the calling thread's signal mask (swift-corelibs-foundation
    /// issue #4772), and the threads of Dispatch and of Swift's cooperative pool block nearly every signal:
    /// a browser started from a task ignored `SIGTERM`, `SIGINT` and `SIGHUP` for good, so neither `kill`
    /// nor closing the terminal stopped it. A thread of our own with nothing blocked spawns it instead;
    /// the caller's thread waits only for the spawn.
    func runWithEmptySignalMask() async throws {
        let box = UncheckedProcess(process: self)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                var empty = sigset_t()
                sigemptyset(&empty)
                pthread_sigmask(SIG_SETMASK, &empty, nil)
                continuation.resume(with: Result { try box.process.run() })
            }
        }
    }
}

/// Carries a `Process` to the spawning thread.
private struct UncheckedProcess: @unchecked Sendable {
    // @unchecked Sendable: the process is handed over, not shared: the caller awaits the spawn and
    // touches the process only after the spawning thread has resumed it.
    let process: Process
}
