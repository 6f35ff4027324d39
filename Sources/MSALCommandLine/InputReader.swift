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
    static func keySet(_ source: String, transport: @autoclosure () throws -> any MSALHTTPTransport) async throws -> [UInt8] {
        if source.hasPrefix("https://") || source.hasPrefix("http://") {
            return try await download(source, transport: try transport())
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

    private static func download(_ source: String, transport: any MSALHTTPTransport) async throws -> [UInt8] {
        guard let url = URL(string: source), let host = url.host else {
            throw MSALError(.internal, internalCode: .invalidParameter, message: "\(source) is not a valid URL")
        }
        let isLoopback = host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "[::1]"
        guard url.scheme == "https" || (url.scheme == "http" && isLoopback) else {
            throw MSALError(.internal, internalCode: .invalidParameter, message: "JWK sets are fetched over https only (plain http only from a loopback host)")
        }
        let limits = MSALHTTPLimits(maximumResponseBodySize: maximumKeySetBytes, connectTimeout: 10, totalTimeout: 20)
        let response = try await transport.send(MSALHTTPRequest(method: .get, url: url), limits: limits)
        guard response.statusCode == 200 else {
            var failure = MSALError(.internal, internalCode: .unhandledResponse, message: "fetching the JWK set from \(source) returned HTTP \(response.statusCode)")
            failure.httpStatusCode = response.statusCode
            throw failure
        }
        return response.body
    }
}
