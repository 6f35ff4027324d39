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
    /// Their lock is taken as well, see ``msalExtensionsLock``.
    package var lockFileSuffix: String = ".lock"
    /// Whether every access also takes the lock of MSAL's extensions for Python (msal-extensions,
    /// used by Azure CLI and Azure Identity), so a swift-msal process and an MSAL for Python process
    /// sharing the file never interleave a read-modify-write: the file `<path>.lockfile` created with
    /// `O_CREAT|O_EXCL` (held while it exists), `flock`ed (portalocker's variant) and holding
    /// `"<pid> <program>"`, removed again when the access ends. Taken for every change; a read
    /// that catches msal-extensions' in-place rewrite half-way fails to parse and is read again
    /// under the exclusive lock, which waits for it.
    package var msalExtensionsLock = true
    /// A `.lockfile` older than this many seconds, or naming a process that is gone, was left by a
    /// killed process and is removed (msal-extensions never removes one it did not create).
    package var staleExtensionsLockAge: Double = 60
    /// A leftover `<path>.tmp-*` file (from a writer killed before its rename) older than this many
    /// seconds is removed by the next write.
    package var staleTemporaryFileAge: Double = 600
    /// After this many reads answered from memory (each after one `lstat`), the file's name is
    /// watched for changes (``TokenCacheFileWatcher``) and further reads need no system call while
    /// nothing changes; `nil` never watches. A process that reads its cache a few times (a command
    /// that runs once) never starts the watcher's thread.
    package var watchAfterReads: Int? = 32
    /// Supplies the time in the name of a quarantined file.
    package var clock: any MSALClock = MSALSystemClock()
    /// Test hook: called by ``TokenCacheFileAccess/write(_:)`` with the temporary file's path once it is
    /// fully written and synced, just before the rename. A thrown error fails the write like an I/O error.
    package var beforeRename: (@Sendable (_ temporaryPath: String) throws -> Void)? = nil
    /// Test hook (fault injection): called by ``TokenCacheFileAccess/write(_:)`` at each ``WriteStep``;
    /// an `errno` value it returns fails that step as if the system call had failed with it (`nil`
    /// lets the step run). At ``WriteStep/write`` it is called once half of the bytes are written,
    /// so a failure or a kill there leaves a partial temporary file, as a full disk would.
    package var writeFault: (@Sendable (_ step: WriteStep) -> Int32?)? = nil

    /// The steps of a write, in order, where ``writeFault`` is consulted.
    package enum WriteStep: String, Sendable, CaseIterable {
        /// Creating `<path>.tmp-<pid>-<random>`.
        case createTemporaryFile = "create"
        /// Writing the bytes into it (consulted half-way).
        case write
        /// `fsync` of the temporary file.
        case sync
        /// Renaming it over the cache file.
        case rename
        /// `fsync` of the directory, after the rename.
        case syncDirectory = "sync-directory"
    }

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
