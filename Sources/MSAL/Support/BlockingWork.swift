import MSALSupport
import NIOPosix

/// Runs blocking work on threads of its own, never on Swift's cooperative pool: the cache file's
/// locks (a wait of up to ``MSALCacheConfig/fileLockTimeout``), its reads, `fsync`s and renames, and
/// an application's cache hooks, which may do anything.
///
/// On a 2-core machine the cooperative pool has two threads; a few sign-ins waiting for a cache lock
/// held by another process would otherwise stop every other task of the application. Work waiting
/// for a thread here ends with `CancellationError` when its task is cancelled; work that has started
/// runs to its end, so a write is never cut in half.
package final class BlockingWork: Sendable {
    /// The process's pool: four threads, started on first use and kept for the life of the process.
    package static let shared = BlockingWork(threads: 4)

    private let pool: NIOThreadPool

    /// A pool of `threads` threads.
    package init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    private enum Progress {
        case queued
        case running
        case abandoned
    }

    /// Runs `body` on one of the pool's threads and returns what it returned or threw.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let progress = Mutex(Progress.queued)
        let done = OneShot<T>()
        return try await withTaskCancellationHandler {
            pool.submit { state in
                let runs = progress.withLock { progress -> Bool in
                    guard case .queued = progress, state == .active else { return false }
                    progress = .running
                    return true
                }
                done.deliver(runs ? Result(catching: body) : .failure(CancellationError()))
            }
            return try await done.result().get()
        } onCancel: {
            let abandoned = progress.withLock { progress -> Bool in
                guard case .queued = progress else { return false }
                progress = .abandoned
                return true
            }
            if abandoned { done.deliver(.failure(CancellationError())) }
        }
    }
}
