import Foundation
import MSAL

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads command inputs (tokens and key sets) from arguments, files, standard input or HTTPS, with size caps and timeouts.
enum InputReader {
    /// Largest token read from standard input.
    static let maximumTokenBytes = 1024 * 1024
    /// Largest JWK set read from a file or URL.
    static let maximumKeySetBytes = 1024 * 1024

    /// The token argument, or standard input when it is `-`, trimmed of surrounding whitespace.
    static func token(_ argument: String) throws -> String {
        if argument != "-" {
            return argument.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var collected: [UInt8] = []
        let handle = FileHandle.standardInput
        while collected.count <= maximumTokenBytes {
            let chunk = handle.readData(ofLength: 64 * 1024)
            if chunk.isEmpty { break }
            collected.append(contentsOf: chunk)
        }
        guard collected.count <= maximumTokenBytes else {
            throw MSALError(.internal, internalCode: .limitExceeded, message: "standard input holds more than \(maximumTokenBytes) bytes; that is not a token")
        }
        return String(decoding: collected, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The JWK set at `source`: an `https://` URL (or `http://` on a loopback host), or a file path.
    static func keySet(_ source: String) async throws -> [UInt8] {
        if source.hasPrefix("https://") || source.hasPrefix("http://") {
            return try await download(source)
        }
        let url = URL(fileURLWithPath: source)
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw MSALError(.internal, internalCode: .invalidParameter, message: "cannot read the JWK set file \(source): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: maximumKeySetBytes + 1) ?? Data()
        guard data.count <= maximumKeySetBytes else {
            throw MSALError(.internal, internalCode: .limitExceeded, message: "JWK set file \(source) is larger than \(maximumKeySetBytes) bytes")
        }
        return [UInt8](data)
    }

    private static func download(_ source: String) async throws -> [UInt8] {
        guard let url = URL(string: source), let host = url.host else {
            throw MSALError(.internal, internalCode: .invalidParameter, message: "\(source) is not a valid URL")
        }
        let isLoopback = host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "[::1]"
        guard url.scheme == "https" || (url.scheme == "http" && isLoopback) else {
            throw MSALError(.internal, internalCode: .invalidParameter, message: "JWK sets are fetched over https only (plain http only from a loopback host)")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.timeoutIntervalForResource = 20
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(from: url)
        } catch {
            throw MSALError(.internal, internalCode: .unhandledResponse, message: "cannot fetch the JWK set from \(source): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            var failure = MSALError(.internal, internalCode: .unhandledResponse, message: "fetching the JWK set from \(source) returned HTTP \(status)")
            failure.httpStatusCode = status
            throw failure
        }
        guard data.count <= maximumKeySetBytes else {
            throw MSALError(.internal, internalCode: .limitExceeded, message: "JWK set at \(source) is larger than \(maximumKeySetBytes) bytes")
        }
        return [UInt8](data)
    }
}
