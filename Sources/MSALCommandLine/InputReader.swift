import Foundation
import Glibc
import MSAL

/// Reads command inputs (tokens and key sets) from arguments, files, standard input or HTTPS, with size caps and timeouts.
enum InputReader {
    /// Largest token read from standard input.
    static let maximumTokenBytes = 1024 * 1024
    /// Largest JWK set read from a file or URL.
    static let maximumKeySetBytes = 1024 * 1024

    /// The token argument, or standard input when it is `-`, trimmed of surrounding whitespace.
    ///
    /// Standard input is read with `read(2)`: a closed descriptor or a directory on standard input is a
    /// typed error, never a trap (Foundation's `FileHandle.readData(ofLength:)` traps on both).
    static func token(_ argument: String) throws -> String {
        if argument != "-" {
            return argument.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let collected = try readAll(STDIN_FILENO, limit: maximumTokenBytes, name: "standard input")
        return String(decoding: collected, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The JWK set at `source`: an `https://` URL (or `http://` on a loopback host), or a file path.
    ///
    /// A file must be a regular file (a FIFO, a device or a directory is refused at once instead of
    /// blocking or failing obscurely) of at most ``maximumKeySetBytes`` bytes.
    static func keySet(_ source: String, transport: @autoclosure () throws -> any MSALHTTPTransport) async throws -> [UInt8] {
        if source.hasPrefix("https://") || source.hasPrefix("http://") {
            return try await download(source, transport: try transport())
        }
        return try regularFile(
            source, limit: maximumKeySetBytes, name: "the JWK set file \(OAuthErrorResponse.sanitized(source, limit: 200))")
    }

    /// Standard input, read with `read(2)`, up to `limit` bytes (more is `limitExceeded`).
    static func standardInput(limit: Int) throws -> [UInt8] {
        try readAll(STDIN_FILENO, limit: limit, name: "standard input")
    }

    /// The bytes of the regular file at `path`, at most `limit`; `name` names it in errors.
    ///
    /// A FIFO, a device or a directory is refused at once instead of blocking or failing obscurely.
    static func regularFile(_ path: String, limit: Int, name: String) throws -> [UInt8] {
        // O_NONBLOCK: opening a FIFO with no writer must not wait for one.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            throw failure("cannot open \(name)", errno: errno)
        }
        defer { _ = close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw failure("cannot inspect \(name)", errno: errno)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "\(name) is a directory; name the file")
        default:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "\(name) is not a regular file (a FIFO, socket or device); save it to a file first")
        }
        guard info.st_size <= limit else {
            throw MSALFailure(.internal, internalCode: .limitExceeded, message: "\(name) is larger than \(limit) bytes")
        }
        return try readAll(descriptor, limit: limit, name: name)
    }

    /// Every byte of `descriptor` up to `limit` (more is `limitExceeded`), read with `read(2)`.
    private static func readAll(_ descriptor: Int32, limit: Int, name: String) throws -> [UInt8] {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw failure("cannot read \(name)", errno: code)
            }
            collected.append(contentsOf: buffer[..<count])
            guard collected.count <= limit else {
                throw MSALFailure(.internal, internalCode: .limitExceeded, message: "\(name) holds more than \(limit) bytes")
            }
        }
        return collected
    }

    /// A typed error for a failed system call, with the reason in words.
    private static func failure(_ what: String, errno code: Int32) -> MSALFailure {
        let reason: String
        switch code {
        // A closed standard input reads as EBADF, or, once the runtime has reused descriptor 0 for
        // something of its own (an event or timer descriptor), as EINVAL or EAGAIN.
        case EBADF, EINVAL, EAGAIN: reason = "it is closed or not open for reading"
        case EISDIR: reason = "it is a directory"
        case ENOENT: reason = "no such file"
        case EACCES, EPERM: reason = "permission denied"
        default: reason = String(cString: strerror(code))
        }
        return MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "\(what): \(reason) (errno \(code))")
    }

    private static func download(_ source: String, transport: any MSALHTTPTransport) async throws -> [UInt8] {
        guard let url = URL(string: source), let host = url.host else {
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "\(source) is not a valid URL")
        }
        let isLoopback = host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "[::1]"
        guard url.scheme == "https" || (url.scheme == "http" && isLoopback) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "JWK sets are fetched over https only (plain http only from a loopback host)")
        }
        let limits = MSALHTTPLimits(maximumResponseBodySize: maximumKeySetBytes, connectTimeout: 10, totalTimeout: 20)
        let response = try await transport.send(MSALHTTPRequest(method: .get, url: url), limits: limits)
        guard response.statusCode == 200 else {
            var failure = MSALFailure(
                .internal, internalCode: .internalErrorUnhandledResponse,
                message: "fetching the JWK set from \(source) returned HTTP \(response.statusCode)")
            failure.httpStatusCode = response.statusCode
            throw failure
        }
        return response.body
    }
}
