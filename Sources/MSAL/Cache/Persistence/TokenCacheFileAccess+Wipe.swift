import Glibc

extension TokenCacheFileAccess {
    /// Overwrites the cache file's bytes with zeros, syncs them, and removes the file. Exclusive lock only.
    ///
    /// For a move to storage that encrypts (the Secret Service): on a file system that writes in place
    /// (ext4, xfs without reflinks) the old blocks no longer hold the tokens; a copy-on-write file
    /// system, an SSD's remapping or a backup may still keep them, which `docs/cache-persistence.md`
    /// says. Refuses an unsafe file (`cacheUnsafeFile`) as ``read()`` does; no file is not an error.
    package func wipeAndRemove() throws {
        try checkOpen()
        guard session.exclusive else {
            throw MSALFailure.cacheMisuse(path, "removing the file needs the exclusive lock")
        }
        let descriptor = openat(session.directory, file.fileName, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            if errno == ENOENT { return }
            throw MSALFailure.cacheIO(path, "open the file to wipe it", errno: errno)
        }
        defer { _ = Glibc.close(descriptor) }
        let info = try POSIXCalls.status(of: descriptor).mapError { MSALFailure.cacheIO(path, "inspect the file", errno: $0.code) }.get()
        try checkSafe(info)
        let zeros = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: off_t = 0
        while offset < info.st_size {
            let count = min(zeros.count, Int(info.st_size - offset))
            let written = zeros.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, count, offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw MSALFailure.cacheIO(path, "overwrite the file", errno: errno)
            }
            offset += off_t(written)
        }
        guard POSIXCalls.retrying({ fsync(descriptor) }) == 0 else {
            throw MSALFailure.cacheIO(path, "sync the overwritten file", errno: errno)
        }
        guard unlinkat(session.directory, file.fileName, 0) == 0 else {
            throw MSALFailure.cacheIO(path, "remove the file", errno: errno)
        }
        _ = POSIXCalls.retrying { fsync(session.directory) }
    }

    /// The names of files beside the cache that may hold tokens: moved-aside corrupt files
    /// (`<name>.corrupt-*`) and temporary files of interrupted writes (`<name>.tmp-*`), as paths.
    package func leftoverCopies() -> [String] {
        directoryNames().filter { $0.hasPrefix(file.fileName + ".corrupt-") || $0.hasPrefix(file.fileName + ".tmp-") }
            .map(file.pathInDirectory).sorted()
    }

    /// The names in the cache's directory (empty when it cannot be listed).
    func directoryNames() -> [String] {
        let duplicate = dup(session.directory)
        guard duplicate >= 0 else { return [] }
        guard let stream = fdopendir(duplicate) else {
            _ = Glibc.close(duplicate)
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(
                withUnsafePointer(to: entry.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) })
        }
        return names
    }
}
