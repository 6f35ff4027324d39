import Glibc
import MSALSupport

/// The byte-level token cache file: a cross-process lock, safe reads and atomic replacement.
///
/// Every access runs inside ``withLock(exclusive:_:)``, which opens the cache's directory (creating it
/// with mode 0700 when missing) and takes a `flock` on the separate lock file `<path>.lock`, waiting
/// at most ``TokenCacheFileOptions/lockTimeout`` seconds. The lock file is opened anew for every call, so
/// two threads of one process exclude each other exactly like two processes do; the kernel drops the lock
/// when its holder dies, so a killed process never leaves a lock behind. Calls do not nest: a second
/// `withLock` on the same file inside a body waits for the first one and fails with `cacheLockTimeout`
/// (two shared locks do nest). The wait blocks the calling thread. See `docs/cache-persistence.md`.
package final class TokenCacheFile: Sendable {
    /// The absolute path of the cache file.
    package let path: String
    /// The absolute path of the lock file (`path` + ``TokenCacheFileOptions/lockFileSuffix``).
    package let lockPath: String
    /// The options the file was opened with.
    package let options: TokenCacheFileOptions
    /// The directory part of `path` (`/` for a file at the root).
    let directoryPath: String
    /// The last component of `path`.
    let fileName: String
    /// The last component of `lockPath`.
    let lockFileName: String
    /// This file's watch generation (``TokenCacheFileWatcher/Generation``), live once watched.
    private let generation = TokenCacheFileWatcher.Generation()
    /// The watch of this file's name, once ``TokenCacheFileOptions/watchAfterReads`` reads were
    /// answered from memory and it could be had; kept only to keep the directory watched.
    private let watch = AtomicLazyReference<TokenCacheFileWatcher.Watch>()
    /// Reads answered from memory after an `lstat` (counted until the watch is tried).
    private let quickReads = Atomic<Int>(0)

    /// A cache file at `path`, which must be absolute; nothing is touched until ``withLock(exclusive:_:)``.
    ///
    /// Throws `cacheLocationUnavailable` for a relative or malformed path and `invalidParameter` for
    /// unusable options.
    package init(path: String, options: TokenCacheFileOptions = .init()) throws {
        guard path.hasPrefix("/") else {
            throw MSALFailure.cacheLocationUnavailable("Token cache path \"\(path)\" is not absolute")
        }
        guard !path.utf8.contains(0) else {
            throw MSALFailure.cacheLocationUnavailable("Token cache path \"\(path)\" contains a NUL character")
        }
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))!
        let name = String(path[path.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else {
            throw MSALFailure.cacheLocationUnavailable("Token cache path \"\(path)\" does not name a file")
        }
        guard options.lockTimeout.isFinite, options.lockTimeout >= 0, options.maximumFileSize > 0,
            options.staleTemporaryFileAge.isFinite, options.staleTemporaryFileAge >= 0,
            !options.lockFileSuffix.isEmpty, !options.lockFileSuffix.contains("/"), !options.lockFileSuffix.utf8.contains(0)
        else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "Token cache file \(path): invalid options (lock timeout \(options.lockTimeout) s, "
                    + "size limit \(options.maximumFileSize) bytes, lock suffix \"\(options.lockFileSuffix)\")")
        }
        self.path = path
        self.options = options
        self.fileName = name
        self.directoryPath = slash == path.startIndex ? "/" : String(path[..<slash])
        self.lockFileName = name + options.lockFileSuffix
        self.lockPath = path + options.lockFileSuffix
    }

    /// The generation of this file's watch (``TokenCacheFileWatcher/Generation``): while it
    /// stays the same, no change to the file has been seen. `nil` while the file is not watched.
    package var watchedGeneration: UInt64? {
        generation.value
    }

    /// Whether the file's name is watched (for tests).
    package var isWatched: Bool { watch.load() != nil }

    /// Counts a read answered from memory after an `lstat`; the one that reaches
    /// ``TokenCacheFileOptions/watchAfterReads`` tries to watch the file.
    package func noteReadFromMemory() {
        guard let threshold = options.watchAfterReads else { return }
        guard quickReads.wrappingAdd(1, ordering: .relaxed).newValue == threshold else { return }
        if let started = TokenCacheFileWatcher.shared.watch(directory: directoryPath, name: fileName, generation: generation) {
            _ = watch.storeIfNil(started)
        }
    }

    /// Runs `body` holding the cross-process lock: `LOCK_EX` when `exclusive`, `LOCK_SH` otherwise.
    ///
    /// Creates the directory (0700, with any missing parents) if needed. A shared lock in a directory
    /// where the lock file cannot be created (read-only) proceeds without a lock: writers replace the file
    /// atomically, so a lone read still sees one complete version. Throws `cacheLockTimeout`,
    /// `cacheUnsafeFile` (the directory is writable by others without the sticky bit or belongs to another
    /// user; the lock file is a symlink or not a regular file) or `cacheIOFailure`. The
    /// ``TokenCacheFileAccess`` is valid only inside `body`.
    @discardableResult
    package func withLock<T>(exclusive: Bool, _ body: (TokenCacheFileAccess) throws -> T) throws -> T {
        let directory = try openDirectory()
        let lock: Int32?
        do {
            lock = try acquireLock(in: directory, exclusive: exclusive)
        } catch {
            _ = Glibc.close(directory)
            throw error
        }
        let session = TokenCacheFileSession(directory: directory, lock: lock, exclusive: exclusive)
        defer { session.close() }
        // msal-extensions' lock for every change (a torn read of its in-place write fails to parse
        // and is read again under the exclusive lock, which waits for it).
        if options.msalExtensionsLock, exclusive {
            session.extensionsLock = try acquireExtensionsLock(in: directory)
        }
        return try body(TokenCacheFileAccess(file: self, session: session))
    }

    /// `directoryPath/name`.
    func pathInDirectory(_ name: String) -> String {
        directoryPath == "/" ? "/" + name : directoryPath + "/" + name
    }
}
