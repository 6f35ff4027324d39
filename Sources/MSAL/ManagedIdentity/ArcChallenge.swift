import Foundation
import Glibc

/// Azure Arc's challenge: the agent answers a request without credentials with
/// `401` and `WWW-Authenticate: Basic realm=<path of a key file>`, after writing a secret into
/// that file, which only an administrator (or the `himds` group) can read. Sending the file's
/// contents back proves the caller runs on the machine with those rights.
///
/// A hostile process listening on the agent's port could name any file it wants read and sent
/// back to it, so the path is checked as MSAL for Python and .NET check it: only a `*.key` file,
/// directly inside the agent's token directory (the file name is taken from the challenge and
/// joined to the configured directory, never trusted as a path), a regular file (not a link, a
/// device or a FIFO) of at most 4096 bytes.
package enum ArcChallenge {
    /// The largest key file read.
    package static let maximumKeySize = 4096

    private static func rejected(_ why: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .managedIdentityChallengeRejected, message: "The Azure Arc challenge was refused: \(why)")
    }

    /// The key file's path for the `WWW-Authenticate` header `value`, inside `directory`.
    package static func keyPath(challenge value: String?, directory: String) throws(MSALFailure) -> String {
        guard let value else { throw rejected("the 401 answer has no WWW-Authenticate header") }
        let parts = value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "basic realm" else {
            throw rejected("the WWW-Authenticate header is not `Basic realm=<file>`")
        }
        let named = parts[1].trimmingCharacters(in: .whitespaces)
        let file = (named as NSString).lastPathComponent
        let parent = ((named as NSString).deletingLastPathComponent as NSString).standardizingPath
        let expected = (directory as NSString).standardizingPath
        guard parent == expected else {
            throw rejected("the key file is not in the agent's token directory \(expected)")
        }
        guard file.hasSuffix(".key"), file.count > 4, !file.hasPrefix("."), !file.contains("\u{0}") else {
            throw rejected("the key file is not named <name>.key")
        }
        return (expected as NSString).appendingPathComponent(file)
    }

    /// Reads the secret in the key file at `path` (a blocking read of at most 4096 bytes).
    package static func readKey(at path: String) throws(MSALFailure) -> String {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw rejected("the key file cannot be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw rejected("the key file is not a regular file")
        }
        guard status.st_size <= maximumKeySize else {
            throw rejected("the key file is larger than \(maximumKeySize) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: maximumKeySize + 1)
        var count = 0
        while count <= maximumKeySize {
            let read = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + count, maximumKeySize + 1 - count)
            }
            if read < 0 {
                if errno == EINTR { continue }
                throw rejected("the key file cannot be read (\(String(cString: strerror(errno))))")
            }
            if read == 0 { break }
            count += read
        }
        guard count <= maximumKeySize else { throw rejected("the key file is larger than \(maximumKeySize) bytes") }
        guard count > 0 else { throw rejected("the key file is empty") }
        // The key goes into `Authorization: Basic <key>`: only printable ASCII without spaces can be
        // sent as it is (the agent writes a hex string); anything else is refused, never altered.
        if let bad = bytes.prefix(count).firstIndex(where: { $0 < 0x21 || $0 > 0x7E }) {
            throw rejected(
                "the key file is not printable ASCII text (byte \(bad) of \(count) is 0x\(String(bytes[bad], radix: 16, uppercase: true)))")
        }
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }
}
