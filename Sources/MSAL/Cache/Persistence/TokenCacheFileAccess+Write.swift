import Glibc

extension TokenCacheFileAccess {
    /// Seconds the cache file's modification time is set ahead of the clock on each write.
    static let modificationTimeLead = 2

    /// Replaces the file with `bytes` atomically and returns the new content's stamp. Exclusive lock only.
    ///
    /// Writes a new file `<path>.tmp-<pid>-<random>` (`O_CREAT|O_EXCL`, mode 0600) in the same directory,
    /// syncs it, renames it over the path and syncs the directory. Readers see the old or the new content,
    /// never a mix, and a crash or kill at any point leaves one of the two. On any failure before the rename
    /// the temporary file is removed, the old file is left as it was and the error is `cacheIOFailure`
    /// (`ENOSPC`/`EDQUOT` named as a full disk). Refuses to replace an unsafe file (`cacheUnsafeFile`, as
    /// ``read()``) and content over the size limit (`cacheTooLarge`). Removes `<path>.tmp-*` files left by
    /// killed writers once they are older than ``TokenCacheFileOptions/staleTemporaryFileAge``.
    package func write(_ bytes: [UInt8]) throws -> TokenCacheFileStamp {
        try write(bytes, signal: false)
    }

    /// Replaces a Secret Service cache's signal file with an empty one, as ``write(_:)`` does, and
    /// returns its stamp; the file it replaces passes the signal file's checks (``signalStamp()``).
    package func writeSignal() throws -> TokenCacheFileStamp {
        try write([], signal: true)
    }

    private func write(_ bytes: [UInt8], signal: Bool) throws -> TokenCacheFileStamp {
        try checkOpen()
        guard session.exclusive else {
            throw MSALFailure.cacheMisuse(path, "write needs the exclusive lock")
        }
        let limit = file.options.maximumFileSize
        guard bytes.count <= limit else {
            throw MSALFailure.cacheTooLarge(path, size: bytes.count, limit: limit, writing: true)
        }
        var previous: stat?
        switch POSIXCalls.status(of: file.fileName, in: session.directory) {
        case .success(let info):
            if signal {
                try checkSignalSafe(info)
            } else {
                try checkSafe(info)
            }
            previous = info
        case .failure(let failure) where failure.code == ENOENT:
            previous = nil
        case .failure(let failure):
            throw MSALFailure.cacheIO(path, "inspect the file", errno: failure.code)
        }
        removeStaleTemporaryFiles()

        let (descriptor, temporaryName) = try createTemporaryFile()
        var open = true
        var committed = false
        defer {
            if open {
                _ = Glibc.close(descriptor)
            }
            if !committed {
                _ = unlinkat(session.directory, temporaryName, 0)
            }
        }
        let temporaryPath = file.pathInDirectory(temporaryName)
        try writeAll(bytes, to: descriptor)
        // A modification time strictly after the replaced file's keeps stamps distinct even if the inode
        // number is reused and the size is unchanged. It is set two seconds ahead: msal-extensions
        // decides that a file changed since it last read it by `mtime > the time its read finished`,
        // and reads without its lock, so a write landing while it is still parsing would look older
        // than its read and never be loaded — and its next write would drop ours.
        var modified = POSIXCalls.realtime()
        modified.tv_sec += Self.modificationTimeLead
        if let previous, (modified.tv_sec, modified.tv_nsec) <= (previous.st_mtim.tv_sec, previous.st_mtim.tv_nsec) {
            modified = previous.st_mtim
            modified.tv_nsec += 1
            if modified.tv_nsec >= 1_000_000_000 {
                modified.tv_sec += 1
                modified.tv_nsec = 0
            }
        }
        let times = [modified, modified]
        guard futimens(descriptor, times) == 0 else {
            throw MSALFailure.cacheIO(path, "set the time of \(temporaryPath)", errno: errno)
        }
        if let code = injectedFailure(.sync) {
            throw MSALFailure.cacheIO(path, "sync \(temporaryPath)", errno: code)
        }
        guard POSIXCalls.retrying({ fsync(descriptor) }) == 0 else {
            throw MSALFailure.cacheIO(path, "sync \(temporaryPath)", errno: errno)
        }
        let stamp = TokenCacheFileStamp(
            try POSIXCalls.status(of: descriptor).mapError { MSALFailure.cacheIO(path, "inspect \(temporaryPath)", errno: $0.code) }.get())
        open = false
        guard Glibc.close(descriptor) == 0 else {
            throw MSALFailure.cacheIO(path, "close \(temporaryPath)", errno: errno)
        }
        if let hook = file.options.beforeRename {
            do {
                try hook(temporaryPath)
            } catch {
                throw MSALFailure.cacheIO(path, "replace the file", underlying: error)
            }
        }
        if let code = injectedFailure(.rename) {
            throw MSALFailure.cacheIO(path, "rename \(temporaryPath) over it", errno: code)
        }
        guard renameat(session.directory, temporaryName, session.directory, file.fileName) == 0 else {
            throw MSALFailure.cacheIO(path, "rename \(temporaryPath) over it", errno: errno)
        }
        committed = true
        let directorySync =
            injectedFailure(.syncDirectory)
            ?? (POSIXCalls.retrying({ fsync(session.directory) }) != 0 && errno != EINVAL && errno != EROFS ? errno : nil)
        if let code = directorySync {
            throw MSALFailure.cacheIO(
                path, "sync its directory", errno: code,
                detail: "the new content is in place but may not survive a crash")
        }
        return stamp
    }

    /// The `errno` the ``TokenCacheFileOptions/writeFault`` test hook injects at `step`, if any.
    private func injectedFailure(_ step: TokenCacheFileOptions.WriteStep) -> Int32? {
        file.options.writeFault?(step)
    }

    /// Creates `<name>.tmp-<pid>-<random hex>` exclusively with mode 0600.
    private func createTemporaryFile() throws -> (Int32, String) {
        if let code = injectedFailure(.createTemporaryFile) {
            throw MSALFailure.cacheIO(path, "create a temporary file in \(file.directoryPath)", errno: code)
        }
        var lastError: Int32 = EEXIST
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
            let name = "\(file.fileName).tmp-\(getpid())-\(suffix)"
            let descriptor = openat(
                session.directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o600)
            if descriptor >= 0 {
                // The umask can only remove bits; make the mode exactly 0600 in any case.
                if fchmod(descriptor, 0o600) != 0 {
                    let code = errno
                    _ = Glibc.close(descriptor)
                    _ = unlinkat(session.directory, name, 0)
                    throw MSALFailure.cacheIO(path, "set the mode of \(file.pathInDirectory(name))", errno: code)
                }
                return (descriptor, name)
            }
            lastError = errno
            guard lastError == EEXIST || lastError == EINTR else {
                break
            }
        }
        throw MSALFailure.cacheIO(path, "create a temporary file in \(file.directoryPath)", errno: lastError)
    }

    /// `write` until every byte is out.
    private func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        // With the fault-injection hook, the first half goes out before the hook is consulted once.
        var pause = file.options.writeFault == nil ? nil : bytes.count / 2
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                if let half = pause, offset >= half {
                    pause = nil
                    if let code = injectedFailure(.write) {
                        throw MSALFailure.cacheIO(path, "write", errno: code)
                    }
                }
                let end = pause.map { max($0, offset + 1) } ?? buffer.count
                let count = Glibc.write(descriptor, buffer.baseAddress! + offset, end - offset)
                if count < 0 {
                    if errno == EINTR {
                        continue
                    }
                    throw MSALFailure.cacheIO(path, "write", errno: errno)
                }
                if count == 0 {
                    throw MSALFailure.cacheIO(path, "write", errno: EIO)
                }
                offset += count
            }
        }
    }

    /// Removes this user's `<name>.tmp-*` regular files older than the configured age: under the exclusive
    /// lock no live swift-msal writer can own one. Best effort; failures are ignored.
    private func removeStaleTemporaryFiles() {
        let prefix = file.fileName + ".tmp-"
        let euid = geteuid()
        let cutoff = POSIXCalls.realtime().tv_sec - Int(file.options.staleTemporaryFileAge.rounded(.up))
        for name in directoryNames() where name.hasPrefix(prefix) {
            guard case .success(let info) = POSIXCalls.status(of: name, in: session.directory), info.isRegularFile,
                info.st_uid == euid, info.st_mtim.tv_sec < cutoff
            else { continue }
            _ = unlinkat(session.directory, name, 0)
        }
    }
}
