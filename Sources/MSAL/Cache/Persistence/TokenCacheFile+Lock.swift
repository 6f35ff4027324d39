import Glibc

extension TokenCacheFile {
    /// Opens the cache's directory, creating it and any missing parents with mode 0700, and checks that
    /// nobody else can swap entries in it.
    func openDirectory() throws -> Int32 {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
        var directory = Glibc.open(directoryPath, flags)
        if directory < 0 && errno == ENOENT {
            try makeDirectory(directoryPath)
            directory = Glibc.open(directoryPath, flags)
        }
        guard directory >= 0 else {
            throw MSALFailure.cacheIO(path, "open its directory \(directoryPath)", errno: errno)
        }
        let info: stat
        switch POSIXCalls.status(of: directory) {
        case .success(let value):
            info = value
        case .failure(let failure):
            _ = Glibc.close(directory)
            throw MSALFailure.cacheIO(path, "inspect its directory \(directoryPath)", errno: failure.code)
        }
        let euid = geteuid()
        if info.st_uid != euid && info.st_uid != 0 {
            _ = Glibc.close(directory)
            throw MSALFailure.cacheUnsafe(
                path, "its directory \(directoryPath) belongs to uid \(info.st_uid), not to this user (uid \(euid)) or root")
        }
        if info.st_mode & S_IWOTH != 0 && info.st_mode & S_ISVTX == 0 {
            _ = Glibc.close(directory)
            throw MSALFailure.cacheUnsafe(
                path, "its directory \(directoryPath) is writable by everyone without the sticky bit (mode \(octal(info.permissions)))")
        }
        return directory
    }

    /// `mkdir -p` with mode 0700 for every directory it creates (the XDG base directory rule).
    private func makeDirectory(_ directory: String) throws {
        if mkdir(directory, 0o700) == 0 || errno == EEXIST {
            return
        }
        let code = errno
        guard code == ENOENT, let slash = directory.utf8.lastIndex(of: UInt8(ascii: "/")), slash != directory.startIndex else {
            throw MSALFailure.cacheIO(path, "create the directory \(directory)", errno: code)
        }
        try makeDirectory(String(directory[..<slash]))
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw MSALFailure.cacheIO(path, "create the directory \(directory)", errno: errno)
        }
    }

    /// Takes the `flock` on the lock file, polling with `LOCK_NB` and a short randomized backoff until
    /// the lock timeout. Returns `nil` only for a shared lock when no lock file exists or can be created.
    func acquireLock(in directory: Int32, exclusive: Bool) throws -> Int32? {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        let deadline = POSIXCalls.monotonicSeconds() + options.lockTimeout
        var backoff = 0.000_5
        guard var lock = try openLockFile(in: directory, exclusive: exclusive) else {
            return nil
        }
        while true {
            if flock(lock, operation) == 0 {
                if lockFileIsCurrent(lock, in: directory) {
                    return lock
                }
                // Someone unlinked or replaced the lock file between our open and our lock (a cleanup tool,
                // a user): a lock on an unlinked inode excludes nobody, so lock the current file instead.
                _ = flock(lock, LOCK_UN)
                _ = Glibc.close(lock)
                guard let reopened = try openLockFile(in: directory, exclusive: exclusive) else {
                    return nil
                }
                lock = reopened
                if POSIXCalls.monotonicSeconds() >= deadline {
                    _ = Glibc.close(lock)
                    throw MSALFailure.cacheLockTimeout(lockPath, exclusive: exclusive, seconds: options.lockTimeout)
                }
                continue
            }
            let code = errno
            if code == EINTR {
                continue
            }
            guard code == EWOULDBLOCK else {
                _ = Glibc.close(lock)
                throw MSALFailure.cacheIO(lockPath, "lock", errno: code)
            }
            let now = POSIXCalls.monotonicSeconds()
            if now >= deadline {
                _ = Glibc.close(lock)
                throw MSALFailure.cacheLockTimeout(lockPath, exclusive: exclusive, seconds: options.lockTimeout)
            }
            POSIXCalls.sleep(seconds: min(backoff * Double.random(in: 0.5...1.0), deadline - now))
            backoff = min(backoff * 2, 0.01)
        }
    }

    /// Takes msal-extensions' lock, `<path>.lockfile` (see ``TokenCacheFileOptions/msalExtensionsLock``):
    /// creates it with `O_EXCL`, `flock`s it and writes `"<pid> <program>"`, polling while another
    /// process holds it, until the lock timeout. A leftover of a killed process (its pid gone, or older
    /// than ``TokenCacheFileOptions/staleExtensionsLockAge``) is removed. A symlink (dangling or not)
    /// or anything else that is not a regular file at that name is refused at once with
    /// `cacheUnsafeFile`, never followed, waited for or removed. Returns `nil` when the
    /// directory is read-only: nobody can change the file then, and the write fails on its own.
    func acquireExtensionsLock(in directory: Int32) throws -> (descriptor: Int32, name: String)? {
        let name = fileName + ".lockfile"
        let path = pathInDirectory(name)
        let deadline = POSIXCalls.monotonicSeconds() + options.lockTimeout
        var backoff = 0.000_5
        while true {
            let descriptor = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o600)
            if descriptor >= 0 {
                // portalocker's variant also flocks the file it created; nobody else holds this new inode.
                _ = flock(descriptor, LOCK_EX | LOCK_NB)
                let text = Array("\(getpid()) \(CommandLine.arguments.first ?? "swift-msal")".utf8)
                _ = text.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                return (descriptor, name)
            }
            let code = errno
            if code == EINTR { continue }
            if code == EACCES || code == EPERM || code == EROFS { return nil }
            guard code == EEXIST else {
                throw MSALFailure.cacheIO(path, "create msal-extensions' lock file", errno: code)
            }
            // Only a regular file is a lock someone holds: a symlink (dangling or not) or anything else
            // would never go away on its own, so waiting for it would end in a misleading lock timeout.
            switch POSIXCalls.status(of: name, in: directory) {
            case .success(let info) where info.isSymbolicLink:
                throw MSALFailure.cacheUnsafe(path, "it is a symbolic link (msal-extensions' lock file is always a regular file)")
            case .success(let info) where !info.isRegularFile:
                throw MSALFailure.cacheUnsafe(
                    path, "it is not a regular file (file type \(octal(info.fileType >> 12)), msal-extensions' lock file is always one)")
            case .success:
                break
            case .failure(let failure) where failure.code == ENOENT:
                continue  // Removed since the create failed: try again.
            case .failure(let failure):
                throw MSALFailure.cacheIO(path, "inspect msal-extensions' lock file", errno: failure.code)
            }
            if removeStaleExtensionsLock(name, in: directory) { continue }
            let now = POSIXCalls.monotonicSeconds()
            if now >= deadline {
                throw MSALFailure.cacheLockTimeout(path, exclusive: true, seconds: options.lockTimeout)
            }
            POSIXCalls.sleep(seconds: min(backoff * Double.random(in: 0.5...1.0), deadline - now))
            backoff = min(backoff * 2, 0.02)
        }
    }

    /// Removes `name` when it is a leftover: its `"<pid> …"` names a process that is gone, or it is
    /// older than the stale age (msal-extensions holds it only for one rewrite of the file, never
    /// across a network call). A file without a pid yet may be one a process has just created and not
    /// written: only its age counts. Returns whether it was removed.
    private func removeStaleExtensionsLock(_ name: String, in directory: Int32) -> Bool {
        guard case .success(let info) = POSIXCalls.status(of: name, in: directory), info.isRegularFile else { return false }
        let age = Double(time(nil)) - Double(info.st_mtim.tv_sec)
        var stale = age > options.staleExtensionsLockAge
        if !stale {
            let descriptor = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            _ = Glibc.close(descriptor)
            let text = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
            if let pid = text.split(separator: " ").first.flatMap({ pid_t($0) }), pid > 0, kill(pid, 0) != 0, errno == ESRCH {
                stale = true
            }
        }
        guard stale else { return false }
        // Only the inode examined: a holder may have replaced it meanwhile.
        guard case .success(let again) = POSIXCalls.status(of: name, in: directory), again.st_ino == info.st_ino,
            again.st_dev == info.st_dev
        else { return false }
        return unlinkat(directory, name, 0) == 0
    }

    /// Opens (creating it 0600 if needed) the lock file without following a symlink.
    func openLockFile(in directory: Int32, exclusive: Bool) throws -> Int32? {
        let common = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        var lock = openat(directory, lockFileName, O_RDWR | O_CREAT | common, 0o600)
        if lock < 0 {
            let code = errno
            if code == ELOOP {
                throw MSALFailure.cacheUnsafe(lockPath, "it is a symbolic link")
            }
            if code == EISDIR {
                throw MSALFailure.cacheUnsafe(lockPath, "it is a directory, not a regular file")
            }
            guard code == EACCES || code == EPERM || code == EROFS else {
                throw MSALFailure.cacheIO(lockPath, "create or open the lock file", errno: code)
            }
            // A read-only directory, or a lock file that is not ours: a read-only descriptor locks too.
            lock = openat(directory, lockFileName, O_RDONLY | common)
            if lock < 0 {
                if errno == ELOOP {
                    throw MSALFailure.cacheUnsafe(lockPath, "it is a symbolic link")
                }
                if errno == ENOENT && !exclusive {
                    return nil
                }
                throw MSALFailure.cacheIO(lockPath, "create or open the lock file", errno: code)
            }
        }
        switch POSIXCalls.status(of: lock) {
        case .success(let info) where info.isRegularFile:
            return lock
        case .success:
            _ = Glibc.close(lock)
            throw MSALFailure.cacheUnsafe(lockPath, "it is not a regular file")
        case .failure(let failure):
            _ = Glibc.close(lock)
            throw MSALFailure.cacheIO(lockPath, "inspect the lock file", errno: failure.code)
        }
    }

    /// Whether the locked descriptor is still the file named `lockFileName`.
    func lockFileIsCurrent(_ lock: Int32, in directory: Int32) -> Bool {
        guard case .success(let held) = POSIXCalls.status(of: lock), held.st_nlink > 0,
            case .success(let named) = POSIXCalls.status(of: lockFileName, in: directory)
        else {
            return false
        }
        return held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }
}

/// `0600`-style octal text of permission bits.
func octal(_ mode: mode_t) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
