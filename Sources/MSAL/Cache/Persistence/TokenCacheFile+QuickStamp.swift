import Glibc

extension TokenCacheFile {
    /// The stamp of the file at ``path`` from one `lstat`, without the lock: `.some(nil)` when there
    /// is no file, `nil` when it cannot be inspected (the caller then takes the locked path).
    ///
    /// Used to answer reads from memory when the file has not changed since it was read under the
    /// lock. Writers replace the file by `rename`, so a changed file has another inode; an in-place
    /// change moves its size or modification time. Either way the stamp differs and the caller
    /// reads again under the lock, where every safety check runs.
    package func quickStamp() -> TokenCacheFileStamp?? {
        var info = stat()
        // `withCString` hands over a native string's own bytes; passing `path` as an argument
        // would copy it into a new C string on every call.
        guard path.withCString({ lstat($0, &info) }) == 0 else {
            return errno == ENOENT ? .some(nil) : nil
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return .some(TokenCacheFileStamp(info))
    }
}
