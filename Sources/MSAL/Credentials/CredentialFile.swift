import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads the files credentials come from (a certificate, a private key, a workload identity's
/// token file), so that no file can hang or confuse the caller.
///
/// Only a regular file is read: a FIFO with no writer would block an ordinary `open` or `read`
/// forever, and a directory, socket or device is not a credential. The file is opened with
/// `O_NONBLOCK` (so opening a FIFO returns at once), checked with `fstat` on the open descriptor
/// (no race with a swap of the path), and read with `read(2)` up to a size bound.
package enum CredentialFile {
    /// The bytes of the regular file at `path`, at most `limit`.
    ///
    /// - Throws: ``MSALFailure`` ``MSALError/internal`` with ``MSALInternalError/invalidCredential``
    ///   and the reason in plain words (no such file, permission denied, a directory, a FIFO, socket
    ///   or device), or ``MSALInternalError/credentialTooLarge`` for a file over `limit` bytes.
    package static func read(_ path: String, limit: Int) throws -> [UInt8] {
        let name = name(path)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            throw failure("\(name) cannot be opened", errno: errno)
        }
        defer { _ = close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw failure("\(name) cannot be inspected", errno: errno)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            throw MSALFailure(.internal, internalCode: .invalidCredential, message: "\(name) is a directory; name the file itself")
        default:
            throw MSALFailure(
                .internal, internalCode: .invalidCredential,
                message: "\(name) is not a regular file (a FIFO, socket or device); save the credential to a file")
        }
        guard info.st_size <= limit else {
            throw MSALFailure(
                .internal, internalCode: .credentialTooLarge, message: "\(name) is over the \(limit)-byte limit for a credential")
        }
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw failure("\(name) cannot be read", errno: code)
            }
            collected.append(contentsOf: buffer[..<count])
            // The file grew after fstat: the bound still holds.
            guard collected.count <= limit else {
                throw MSALFailure(
                    .internal, internalCode: .credentialTooLarge, message: "\(name) is over the \(limit)-byte limit for a credential")
            }
        }
        return collected
    }

    /// `bytes` as text, refusing anything that is not valid UTF-8 rather than replacing it: a
    /// credential changed by the replacement (U+FFFD) would be sent, and fail, as another one.
    ///
    /// - Parameter name: the source in words, such as "The credential file /path"; starts the message.
    /// - Throws: ``MSALFailure`` ``MSALError/internal`` with ``MSALInternalError/invalidCredential``
    ///   naming the source and the offset of the first byte that is not UTF-8, never the text.
    package static func text(_ bytes: [UInt8], name: String) throws -> String {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                offset += encoded.count
            case .emptyInput:
                return String(decoding: bytes, as: UTF8.self)
            case .error:
                throw MSALFailure(
                    .internal, internalCode: .invalidCredential,
                    message: "\(name) is not valid UTF-8 text (the first invalid byte is at offset \(offset)); save it as UTF-8")
            }
        }
    }

    /// The text of the regular file at `path`, at most `limit` bytes, as ``read(_:limit:)`` reads it.
    ///
    /// - Throws: as ``read(_:limit:)``, and ``MSALInternalError/invalidCredential`` when the file is
    ///   not valid UTF-8 (``text(_:name:)``).
    package static func readText(_ path: String, limit: Int) throws -> String {
        try text(read(path, limit: limit), name: name(path))
    }

    /// How errors name the file at `path`.
    private static func name(_ path: String) -> String {
        "The credential file \(OAuthErrorResponse.sanitized(path, limit: 300))"
    }

    /// The error of a failed system call, with its reason in words.
    private static func failure(_ what: String, errno code: Int32) -> MSALFailure {
        let reason: String
        switch code {
        case ENOENT: reason = "no such file"
        case EACCES, EPERM: reason = "permission denied"
        case ENOTDIR: reason = "a part of the path is not a directory"
        case ELOOP: reason = "too many symbolic links"
        default: reason = String(cString: strerror(code))
        }
        return MSALFailure(.internal, internalCode: .invalidCredential, message: "\(what): \(reason) (errno \(code))")
    }
}
