import Glibc

/// Identity of a cache file's current contents, to skip re-reading a file that has not changed.
///
/// Every swift-msal write replaces the file with a new inode whose modification time is strictly later
/// than the replaced file's (to the nanosecond), so two writes never leave equal stamps even when an
/// inode number is reused and the size is the same. A writer that rewrites the file in place (not
/// swift-msal) within the file system's timestamp granularity, keeping the size, is not detected.
package struct TokenCacheFileStamp: Sendable, Hashable, CustomStringConvertible {
    /// `st_dev`.
    package var device: UInt64
    /// `st_ino`.
    package var inode: UInt64
    /// Size in bytes.
    package var size: Int64
    /// Modification time, whole seconds since 1970.
    package var modificationSeconds: Int64
    /// Modification time, nanoseconds within the second.
    package var modificationNanoseconds: Int64

    /// The stamp of `info`.
    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modificationSeconds = Int64(info.st_mtim.tv_sec)
        modificationNanoseconds = Int64(info.st_mtim.tv_nsec)
    }

    /// `dev:inode size@seconds.nanoseconds`.
    package var description: String {
        "\(device):\(inode) \(size)@\(modificationSeconds).\(modificationNanoseconds)"
    }
}
