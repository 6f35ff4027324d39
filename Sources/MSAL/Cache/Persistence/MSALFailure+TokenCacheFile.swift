import Foundation
import Glibc

extension MSALFailure {
    /// `cacheIOFailure`: `operation` failed on `path` with `code`. `ENOSPC`/`EDQUOT` are named as a full disk.
    package static func cacheIO(_ path: String, _ operation: String, errno code: Int32, detail: String? = nil) -> MSALFailure {
        var text = "Token cache file \(path): cannot \(operation): "
        if code == ENOSPC || code == EDQUOT {
            text += "disk full — "
        }
        text += POSIXCalls.describe(code)
        if let detail {
            text += "; \(detail)"
        }
        return MSALFailure(
            .internal, internalCode: .cacheIOFailure, message: text,
            underlyingError: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }

    /// `cacheIOFailure` without an errno (for example a test hook that threw).
    package static func cacheIO(_ path: String, _ operation: String, underlying: any Error & Sendable) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .cacheIOFailure,
            message: "Token cache file \(path): cannot \(operation): \(underlying)", underlyingError: underlying)
    }

    /// `cacheUnsafeFile`: `path` is `problem` (a symlink, another owner, group/other access, not a regular file).
    package static func cacheUnsafe(_ path: String, _ problem: String) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .cacheUnsafeFile,
            message: "Token cache file \(path) is unsafe: \(problem); it was left untouched, fix or remove it")
    }

    /// `cacheTooLarge`: `path` holds (or would hold) `size` bytes, over `limit`.
    package static func cacheTooLarge(_ path: String, size: Int, limit: Int, writing: Bool) -> MSALFailure {
        let what = writing ? "the new content is" : "the file is"
        return MSALFailure(
            .internal, internalCode: .cacheTooLarge,
            message: "Token cache file \(path): \(what) \(size) bytes, over the limit of \(limit) bytes"
                + (writing ? "" : "; it was left in place: move or delete it (no token cache is that large), or raise the limit"))
    }

    /// `cacheLockTimeout`: the lock at `lockPath` stayed held for `seconds`.
    package static func cacheLockTimeout(_ lockPath: String, exclusive: Bool, seconds: Double) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .cacheLockTimeout,
            message: "Token cache lock \(lockPath): another process or thread held it for more than \(seconds) s "
                + "(wanted \(exclusive ? "an exclusive" : "a shared") lock)")
    }

    /// `cacheLocationUnavailable` with `message`.
    package static func cacheLocationUnavailable(_ message: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .cacheLocationUnavailable, message: message)
    }

    /// `unexpected`: the cache file API was used against its contract (a programming error, not bad input).
    package static func cacheMisuse(_ path: String, _ problem: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "Token cache file \(path): \(problem)")
    }
}
