import Glibc

extension TokenCacheFileAccess {
    /// The stamp of the file used as a Secret Service cache's signal file, or `nil` when there is none.
    ///
    /// A signal file holds nothing secret, so group and other read bits are accepted (msal-extensions
    /// creates it with the umask's mode). It must be an empty regular file of this user: one that holds
    /// data is most likely a plaintext cache left from file storage, and is refused (`cacheUnsafeFile`,
    /// left untouched) rather than kept beside the encrypted copy or overwritten.
    package func signalStamp() throws -> TokenCacheFileStamp? {
        try stamp(checking: checkSignalSafe)
    }

    /// The `cacheUnsafeFile` checks on a signal file's metadata (see ``signalStamp()``).
    func checkSignalSafe(_ info: stat) throws {
        try checkOwnRegularFile(info)
        guard info.st_size == 0 else {
            throw MSALFailure.cacheUnsafe(
                path,
                "it is the Secret Service cache's signal file but holds \(info.st_size) bytes (a plaintext cache?); "
                    + "move a file cache into the Secret Service with `msal cache migrate --to secret-service`, or remove the file")
        }
    }
}
