/// Options of the built-in token cache file (``TokenCacheFile``).
package struct TokenCacheFileOptions: Sendable {
    /// Seconds to wait for the cross-process lock before failing with `cacheLockTimeout`; `0` tries once.
    package var lockTimeout: Double = 10
    /// Largest file, in bytes, read or written; larger is `cacheTooLarge`.
    package var maximumFileSize: Int = 512 << 20
    /// Appended to the cache path to name the lock file.
    ///
    /// Deliberately not `.lockfile`, the name MSAL's extensions for Python and .NET use: they delete
    /// their lock file after each use and wait up to 5 s for it to disappear before locking, so a lock
    /// file that stays (as this one does, which `flock` needs) would stall them on every access.
    package var lockFileSuffix: String = ".lock"
    /// A leftover `<path>.tmp-*` file (from a writer killed before its rename) older than this many
    /// seconds is removed by the next write.
    package var staleTemporaryFileAge: Double = 600
    /// Supplies the time in the name of a quarantined file.
    package var clock: any MSALClock = MSALSystemClock()
    /// Test hook: called by ``TokenCacheFileAccess/write(_:)`` with the temporary file's path once it is
    /// fully written and synced, just before the rename. A thrown error fails the write like an I/O error.
    package var beforeRename: (@Sendable (_ temporaryPath: String) throws -> Void)? = nil

    /// Creates options; the defaults suit an interactive app.
    package init(
        lockTimeout: Double = 10,
        maximumFileSize: Int = 512 << 20,
        clock: any MSALClock = MSALSystemClock(),
        beforeRename: (@Sendable (_ temporaryPath: String) throws -> Void)? = nil
    ) {
        self.lockTimeout = lockTimeout
        self.maximumFileSize = maximumFileSize
        self.clock = clock
        self.beforeRename = beforeRename
    }
}
