import Glibc

/// The few Glibc idioms the cache file store repeats: `EINTR` retries, errno text, a monotonic clock.
enum POSIXCalls {
    /// `strerror` text followed by the number, e.g. `No space left on device (errno 28)`.
    ///
    /// glibc's `strerror` returns its static table entry for known codes and is thread-safe since 2.32.
    static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// Calls `body` again while it fails with `EINTR`.
    @inline(__always)
    static func retrying(_ body: () -> Int32) -> Int32 {
        var result: Int32
        repeat {
            result = body()
        } while result == -1 && errno == EINTR
        return result
    }

    /// Seconds on `CLOCK_MONOTONIC`.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// `CLOCK_REALTIME`, the clock the kernel stamps file times from.
    static func realtime() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    /// Blocks the calling thread for `seconds` (restarted after signals).
    static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR {
            request = remaining
        }
    }

    /// `lstat`-like metadata of `name` in the directory `directory`, or the errno.
    static func status(of name: String, in directory: Int32) -> Result<stat, Errno> {
        var info = stat()
        if fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            return .success(info)
        }
        return .failure(Errno(errno))
    }

    /// Metadata of an open descriptor, or the errno.
    static func status(of descriptor: Int32) -> Result<stat, Errno> {
        var info = stat()
        if fstat(descriptor, &info) == 0 {
            return .success(info)
        }
        return .failure(Errno(errno))
    }

    /// An errno value as an `Error`, to carry it through `Result`.
    struct Errno: Error, Equatable {
        var code: Int32
        init(_ code: Int32) { self.code = code }
    }
}

extension stat {
    /// The file type bits (`S_IFMT`).
    var fileType: mode_t { st_mode & S_IFMT }
    /// Whether this is a regular file.
    var isRegularFile: Bool { fileType == S_IFREG }
    /// Whether this is a directory.
    var isDirectory: Bool { fileType == S_IFDIR }
    /// Whether this is a symbolic link (only from `lstat`/`AT_SYMLINK_NOFOLLOW`).
    var isSymbolicLink: Bool { fileType == S_IFLNK }
    /// The permission bits, e.g. `0o600`.
    var permissions: mode_t { st_mode & 0o7777 }
}
