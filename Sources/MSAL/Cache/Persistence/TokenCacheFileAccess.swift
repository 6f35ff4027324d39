import Glibc

/// Reads and writes of the cache file while ``TokenCacheFile/withLock(exclusive:_:)`` holds its lock.
///
/// Valid only inside the `withLock` body; used afterwards every method throws `unexpected`. Names are
/// resolved in the directory opened by `withLock`, never through a symlink at the cache path.
package struct TokenCacheFileAccess {
    let file: TokenCacheFile
    let session: TokenCacheFileSession

    /// The cache file's path.
    package var path: String { file.path }

    /// Whether this access holds the exclusive lock (and may write and quarantine).
    package var isExclusive: Bool { session.exclusive }

    /// The identity of the file's current contents, or `nil` when there is no file.
    ///
    /// Applies the same safety checks as ``read()`` (`cacheUnsafeFile`), but not the size limit.
    package func stamp() throws -> TokenCacheFileStamp? {
        try stamp(checking: checkSafe)
    }

    /// The stamp of the file after `check` accepted its metadata, or `nil` when there is no file.
    func stamp(checking check: (stat) throws -> Void) throws -> TokenCacheFileStamp? {
        try checkOpen()
        switch POSIXCalls.status(of: file.fileName, in: session.directory) {
        case .success(let info):
            try check(info)
            return TokenCacheFileStamp(info)
        case .failure(let failure) where failure.code == ENOENT:
            return nil
        case .failure(let failure):
            throw MSALFailure.cacheIO(path, "inspect the file", errno: failure.code)
        }
    }

    /// The file's bytes, or `nil` when there is no file.
    ///
    /// Refuses (`cacheUnsafeFile`, leaving the file as it is) a symlink, anything but a regular file, a
    /// file owned by another user, a file with group or other permission bits and a file with more than
    /// one hard link; a file over ``TokenCacheFileOptions/maximumFileSize`` is `cacheTooLarge`.
    package func read() throws -> [UInt8]? {
        try readStamped()?.source.allBytes
    }

    /// Whether the file differs from `stamp` now or within the next 200 ms (checked every 50 ms):
    /// a writer is still at work on it.
    package func isStillChanging(from stamp: TokenCacheFileStamp) throws -> Bool {
        for check in 0..<5 {
            if check > 0 { POSIXCalls.sleep(seconds: 0.05) }
            if try self.stamp() != stamp { return true }
        }
        return false
    }

    /// The file's bytes with the stamp of the descriptor they were read from, or `nil` when there is no file.
    ///
    /// The bytes are read straight into the ``CacheSource`` the cache's reader keeps, so loading
    /// never holds the file twice.
    package func readStamped() throws -> (source: CacheSource, stamp: TokenCacheFileStamp)? {
        try checkOpen()
        let descriptor = openat(session.directory, file.fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if descriptor < 0 {
            switch errno {
            case ENOENT:
                return nil
            case ELOOP:
                throw MSALFailure.cacheUnsafe(path, "it is a symbolic link")
            case let code:
                throw MSALFailure.cacheIO(path, "open for reading", errno: code)
            }
        }
        defer { _ = Glibc.close(descriptor) }
        let info = try POSIXCalls.status(of: descriptor).mapError { MSALFailure.cacheIO(path, "inspect the file", errno: $0.code) }.get()
        try checkSafe(info)
        let limit = file.options.maximumFileSize
        guard info.st_size <= limit else {
            throw MSALFailure.cacheTooLarge(path, size: Int(info.st_size), limit: limit, writing: false)
        }
        let source = try readAll(descriptor, expected: Int(info.st_size), limit: limit)
        return (source, TokenCacheFileStamp(info))
    }

    /// Moves the current file aside to `<path>.corrupt-<UTC yyyyMMdd'T'HHmmss'Z'>` (with `-1`, `-2`, …
    /// when that name is taken) and returns the new path. Exclusive lock only.
    ///
    /// `reason` (why the content was rejected) goes into the error when the move fails; logging the
    /// returned path with the reason is the caller's job. No file is `cacheIOFailure` (`ENOENT`).
    package func quarantine(reason: String) throws -> String {
        try checkOpen()
        guard session.exclusive else {
            throw MSALFailure.cacheMisuse(path, "quarantine needs the exclusive lock")
        }
        let operation = "move the file aside (\(reason))"
        if case .failure(let failure) = POSIXCalls.status(of: file.fileName, in: session.directory) {
            throw MSALFailure.cacheIO(path, operation, errno: failure.code)
        }
        let base = file.fileName + ".corrupt-" + Self.utcTimestamp(file.options.clock.now().timeIntervalSince1970)
        for attempt in 0..<10_000 {
            let name = attempt == 0 ? base : "\(base)-\(attempt)"
            switch POSIXCalls.status(of: name, in: session.directory) {
            case .success:
                continue
            case .failure(let failure) where failure.code == ENOENT:
                guard renameat(session.directory, file.fileName, session.directory, name) == 0 else {
                    throw MSALFailure.cacheIO(path, operation, errno: errno)
                }
                _ = POSIXCalls.retrying { fsync(session.directory) }
                return file.pathInDirectory(name)
            case .failure(let failure):
                throw MSALFailure.cacheIO(path, operation, errno: failure.code)
            }
        }
        throw MSALFailure.cacheIO(path, operation, errno: EEXIST)
    }

    /// Throws `unexpected` once the `withLock` body has returned.
    func checkOpen() throws {
        guard session.isOpen else {
            throw MSALFailure.cacheMisuse(path, "the cache file access was used after its withLock call returned")
        }
    }

    /// The `cacheUnsafeFile` checks on the file's metadata.
    func checkSafe(_ info: stat) throws {
        try checkOwnRegularFile(info)
        guard info.st_mode & 0o077 == 0 else {
            throw MSALFailure.cacheUnsafe(
                path, "it grants group or other access (mode \(octal(info.permissions)), expected 0600)")
        }
        guard info.st_nlink <= 1 else {
            throw MSALFailure.cacheUnsafe(path, "it has \(info.st_nlink) hard links")
        }
    }

    /// The checks every file swift-msal reads takes: not a link, a regular file, this user's.
    func checkOwnRegularFile(_ info: stat) throws {
        if info.isSymbolicLink {
            throw MSALFailure.cacheUnsafe(path, "it is a symbolic link")
        }
        guard info.isRegularFile else {
            throw MSALFailure.cacheUnsafe(path, "it is not a regular file (file type \(octal(info.fileType >> 12)))")
        }
        let euid = geteuid()
        guard info.st_uid == euid else {
            throw MSALFailure.cacheUnsafe(path, "it belongs to uid \(info.st_uid), not to this user (uid \(euid))")
        }
    }

    /// Reads to end of file, failing with `cacheTooLarge` past `limit` (the file may grow under a writer
    /// that ignores the lock).
    private func readAll(_ descriptor: Int32, expected: Int, limit: Int) throws -> CacheSource {
        let source = CacheSource(capacity: min(expected, limit) + 1)
        var chunk = max(expected + 1, 4_096)
        while true {
            let room = min(chunk, limit + 1 - source.count)
            var failure: Int32 = 0
            var got = 0
            let grown = source.append(upTo: room) { space in
                while got < space.count {
                    let count = Glibc.read(descriptor, space.baseAddress! + got, space.count - got)
                    if count < 0 {
                        if errno == EINTR {
                            continue
                        }
                        failure = errno
                        break
                    }
                    if count == 0 {
                        break
                    }
                    got += count
                }
                return got
            }
            guard grown, !source.allocationFailed else {
                throw MSALFailure.cacheTooLarge(path, size: source.count + room, limit: limit, writing: false)
            }
            if failure != 0 {
                throw MSALFailure.cacheIO(path, "read", errno: failure)
            }
            if source.count > limit {
                throw MSALFailure.cacheTooLarge(path, size: source.count, limit: limit, writing: false)
            }
            if got < room {
                return source
            }
            chunk = 65_536
        }
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func utcTimestamp(_ secondsSince1970: Double) -> String {
        var seconds = time_t(secondsSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
