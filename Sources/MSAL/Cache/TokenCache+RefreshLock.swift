import Foundation

extension TokenCache {
    /// Takes the cross-process refresh lock for `key` (an account in a cloud), waiting at most
    /// `timeout` seconds plus the file's lock timeout (a holder stores its tokens under the file lock before
    /// it releases this one) without blocking a thread: one attempt that does not wait, then `Task.sleep`
    /// with a growing, randomized backoff (1 ms to 50 ms) before the next.
    ///
    /// Only a cache stored in a file has one (processes share nothing else); for the others, and for a
    /// file whose lock file cannot be written, it returns `nil` at once.
    ///
    /// - Throws: ``MSALInternalError/cacheLockTimeout`` when another holder kept it for `timeout`
    ///   seconds; `CancellationError` when the task is canceled while waiting; the cache file's errors
    ///   (an unsafe directory or lock file, an I/O failure).
    package func refreshLock(for key: String, timeout: Double) async throws -> TokenCacheRefreshLock? {
        guard let file else { return nil }
        let slot = TokenCacheFile.refreshLockSlot(key)
        let clock = ContinuousClock()
        let limit = max(0, timeout) + file.options.lockTimeout
        let deadline = clock.now.advanced(by: .milliseconds(Int64(limit * 1000)))
        var backoff = 0.001
        while true {
            switch try file.tryRefreshLock(slot: slot) {
            case .held(let lock):
                return lock
            case .unavailable:
                return nil
            case .busy:
                break
            }
            let now = clock.now
            guard now < deadline else {
                throw MSALFailure(
                    .internal, internalCode: .cacheLockTimeout,
                    message:
                        "Token cache \(file.path): another process or thread kept refreshing this account's tokens for more than \(limit) s "
                        + "(its refresh lock is byte \(slot) of \(file.lockPath))")
            }
            let pause = Duration.milliseconds(Int64(backoff * Double.random(in: 0.5...1.0) * 1000))
            try await Task.sleep(for: min(pause, now.duration(to: deadline)))
            backoff = min(backoff * 2, 0.05)
        }
    }
}
