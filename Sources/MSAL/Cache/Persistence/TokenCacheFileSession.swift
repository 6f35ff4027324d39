import Glibc

/// The descriptors held during one ``TokenCacheFile/withLock(exclusive:_:)`` call.
///
/// Not `Sendable` on purpose: an access must not leave the thread and the body that own the lock.
final class TokenCacheFileSession {
    /// The cache's directory, opened `O_DIRECTORY`; names are resolved relative to it.
    let directory: Int32
    /// The locked lock file; `nil` for a shared access in a directory where no lock file could be created.
    let lock: Int32?
    /// Whether the lock is `LOCK_EX`.
    let exclusive: Bool
    /// msal-extensions' lock file, held (created by this access) until ``close()``, and its name in ``directory``.
    var extensionsLock: (descriptor: Int32, name: String)?
    /// False once the body has returned.
    private(set) var isOpen = true

    init(directory: Int32, lock: Int32?, exclusive: Bool) {
        self.directory = directory
        self.lock = lock
        self.exclusive = exclusive
    }

    /// Releases the lock and the directory.
    ///
    /// The lock is released with `LOCK_UN` before its descriptor is closed. Closing alone is not enough:
    /// a `flock` belongs to the open file description, and a child that another thread of this process
    /// is forking at that moment holds a copy of the description until it execs, so the lock would
    /// outlive the access and the next one (even in this process) would wait for it or time out.
    func close() {
        guard isOpen else { return }
        isOpen = false
        if let (descriptor, name) = extensionsLock {
            // Removed only while it is still ours: another process may have taken a new one.
            if case .success(let held) = POSIXCalls.status(of: descriptor),
                case .success(let named) = POSIXCalls.status(of: name, in: directory),
                held.st_dev == named.st_dev, held.st_ino == named.st_ino
            {
                _ = unlinkat(directory, name, 0)
            }
            _ = flock(descriptor, LOCK_UN)
            _ = Glibc.close(descriptor)
        }
        if let lock {
            _ = flock(lock, LOCK_UN)
            _ = Glibc.close(lock)
        }
        _ = Glibc.close(directory)
    }

    deinit {
        close()
    }
}
