import Glibc

extension TokenCacheFile {
    /// Linux's `F_OFD_SETLK` (open-file-description record lock, not waiting), which Glibc's module
    /// may not export without `_GNU_SOURCE`.
    private static let setOpenFileDescriptionLock: Int32 = 37

    /// Tries once, without waiting, to take the refresh lock of `slot`: an open-file-description write
    /// lock (`F_OFD_SETLK`) on byte `slot` of the lock file `<path>.lock`.
    ///
    /// Record locks and the `flock` that guards the cache file itself are independent, so holding a
    /// refresh lock never blocks reading or writing the cache. The lock belongs to the descriptor opened
    /// here, so two threads of one process exclude each other like two processes, and the kernel drops it
    /// when its holder dies.
    ///
    /// - Returns: `.held` with the lock; `.busy` when another holder has it; `.unavailable` when the lock
    ///   file cannot be opened for writing (a read-only directory: nobody can change the cache then).
    func tryRefreshLock(slot: Int64) throws -> RefreshLockAttempt {
        let directory = try openDirectory()
        defer { _ = Glibc.close(directory) }
        guard let descriptor = try openLockFile(in: directory, exclusive: true) else {
            return .unavailable
        }
        var region = Glibc.flock()
        region.l_type = Int16(F_WRLCK)
        region.l_whence = Int16(SEEK_SET)
        region.l_start = off_t(slot)
        region.l_len = 1
        region.l_pid = 0  // required for open-file-description locks
        while true {
            if fcntl(descriptor, Self.setOpenFileDescriptionLock, &region) == 0 {
                guard lockFileIsCurrent(descriptor, in: directory) else {
                    // Unlinked or replaced since we opened it: a lock on that inode excludes nobody.
                    _ = Glibc.close(descriptor)
                    return .busy
                }
                return .held(TokenCacheRefreshLock(descriptor: descriptor))
            }
            let code = errno
            if code == EINTR { continue }
            _ = Glibc.close(descriptor)
            switch code {
            case EAGAIN, EACCES:
                return .busy
            case EBADF:
                return .unavailable  // opened read-only: the directory or the lock file is not writable
            default:
                throw MSALFailure.cacheIO(lockPath, "take the refresh lock", errno: code)
            }
        }
    }

    /// The outcome of one ``tryRefreshLock(slot:)``.
    enum RefreshLockAttempt {
        case held(TokenCacheRefreshLock)
        case busy
        case unavailable
    }

    /// The byte of the lock file that stands for `key` (a stable 64-bit FNV-1a hash, cut to 40 bits:
    /// every process computes the same slot; two keys sharing one only wait for each other).
    static func refreshLockSlot(_ key: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(hash & (1 << 40 - 1))
    }
}
