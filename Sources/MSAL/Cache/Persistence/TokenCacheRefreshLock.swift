import Glibc
import MSALSupport

/// One held per-account refresh lock (see `TokenCacheFile.tryRefreshLock(slot:)`): an open descriptor
/// of the cache's lock file carrying an open-file-description write lock on one byte.
///
/// Closing the descriptor releases the lock; ``release()`` does, once, and so does `deinit`. The
/// kernel releases it too when the process dies, so a killed holder never blocks the others.
package final class TokenCacheRefreshLock: Sendable {
    private let descriptor: Int32
    private let released = Atomic<Bool>(false)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Releases the lock; later calls do nothing.
    package func release() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) {
            _ = Glibc.close(descriptor)
        }
    }

    deinit {
        release()
    }
}
