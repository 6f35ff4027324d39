import Foundation
import Glibc
import MSALSupport
import Testing

/// `msal app-token` against a token endpoint that answers an access token carrying a terminal
/// escape sequence (issue 39, finding 4): the command fails, and neither the token nor any of its
/// bytes reach the output or the cache file.
@Suite("msal app-token: a hostile access token is refused, never printed")
struct AppTokenHostileTokenTests {
    static let tenant = "5d0a8b52-1c37-4e6f-9a2b-3c4d5e6f7a8b"
    static let clientID = "7e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
    /// An OSC sequence setting the terminal's title (ended by BEL), a right-to-left override and
    /// a line break: printed raw, it drives the terminal and makes the output two lines.
    static let hostileToken = "AT-hostile\u{1B}]0;x\u{07}\u{202E}\r\ny"

    /// A one-thread HTTP server on 127.0.0.1 answering discovery with the authority's metadata and
    /// every token request with `tokenBody`, one request per connection.
    final class TokenEndpoint: Sendable {
        let port: UInt16
        private let socket: Int32
        private let tokenRequests = Counter()

        /// The number of token requests, shared with the server's thread.
        final class Counter: Sendable {
            let value = Mutex(0)
        }

        init(tokenBody: String) throws {
            let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                    bind(descriptor, raw, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, raw, &length) == 0
                }
            }
            guard bound else {
                close(descriptor)
                throw POSIXError(.EADDRINUSE)
            }
            socket = descriptor
            port = UInt16(bigEndian: address.sin_port)
            let port = port
            let thread = Thread { [tokenRequests] in
                while true {
                    let connection = accept(descriptor, nil, nil)
                    guard connection >= 0 else { return }
                    Self.answer(connection, port: port, tokenBody: tokenBody, tokenRequests: tokenRequests)
                    close(connection)
                }
            }
            thread.start()
        }

        /// Stops accepting (the thread's `accept` then fails and it ends).
        func stop() {
            shutdown(socket, Int32(SHUT_RDWR))
            close(socket)
        }

        var tokenRequestCount: Int { tokenRequests.value.withLock { $0 } }

        var authority: String { "http://127.0.0.1:\(port)/\(AppTokenHostileTokenTests.tenant)" }

        private static func answer(_ connection: Int32, port: UInt16, tokenBody: String, tokenRequests: Counter) {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            var headerEnd: Int?
            var contentLength = 0
            while true {
                if let end = headerEnd, received.count >= end + contentLength { break }
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { return }
                received += buffer[0..<count]
                if headerEnd == nil, let range = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                    headerEnd = range.upperBound
                    let head = String(decoding: received[..<range.lowerBound], as: UTF8.self).lowercased()
                    for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                        contentLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
            let requestLine = String(decoding: received.prefix { $0 != 0x0D }, as: UTF8.self)
            let base = "http://127.0.0.1:\(port)/\(AppTokenHostileTokenTests.tenant)"
            let body: String
            let status: String
            if requestLine.hasPrefix("GET "), requestLine.contains("/.well-known/openid-configuration") {
                status = "200 OK"
                body = """
                    {"issuer":"\(base)/v2.0","authorization_endpoint":"\(base)/oauth2/v2.0/authorize",\
                    "token_endpoint":"\(base)/oauth2/v2.0/token","jwks_uri":"\(base)/discovery/v2.0/keys",\
                    "response_types_supported":["code"],"id_token_signing_alg_values_supported":["RS256"]}
                    """
            } else if requestLine.hasPrefix("POST "), requestLine.contains("/oauth2/v2.0/token") {
                tokenRequests.value.withLock { $0 += 1 }
                status = "200 OK"
                body = tokenBody
            } else {
                status = "404 Not Found"
                body = #"{"error":"not_found"}"#
            }
            let bytes = Array(body.utf8)
            let response =
                Array(
                    "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
                        .utf8)
                + bytes
            var sent = 0
            while sent < response.count {
                let count = response[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                sent += count
            }
        }
    }

    @Test(
        "The OSC token: exit 1, invalidResponse naming access_token, no byte of the token in either output, no cache file",
        arguments: ["text", "json"])
    func oscToken(format: String) async throws {
        let escaped = "AT-hostile\\u001b]0;x\\u0007\\u202e\\r\\ny"
        let endpoint = try TokenEndpoint(tokenBody: #"{"token_type":"Bearer","expires_in":3599,"access_token":"\#(escaped)"}"#)
        defer { endpoint.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-hostile-cli-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let secretFile = folder.appendingPathComponent("secret.txt")
        try Data("cli~secret-value\n".utf8).write(to: secretFile)
        let cachePath = folder.appendingPathComponent("cache.json").path

        let result = try await CommandRunner.run([
            "app-token", "--client-id", Self.clientID, "--authority", endpoint.authority, "--allow-http-loopback",
            "--secret-file", secretFile.path, "--cache", cachePath, "--output", format,
        ])
        #expect(result.status != 0, "\(result.standardOutput)")
        #expect(endpoint.tokenRequestCount == 1)
        let output = result.standardOutput + result.standardError
        #expect(!output.contains("AT-hostile"), "\(output.debugDescription)")
        #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E || $0.value == 0x0D })
        #expect(output.contains("access_token"), "\(output.debugDescription)")
        if format == "json" {
            let error = try #require(try result.json()["error"] as? [String: Any], "\(result.standardOutput)")
            #expect(error["internal_code"] as? Int == -42600, "\(error)")
        }
        // Nothing cached: the file holds no access token (it may not exist at all).
        if let cache = FileManager.default.contents(atPath: cachePath) {
            let document = try #require(try JSONSerialization.jsonObject(with: cache) as? [String: Any])
            #expect((document["AccessToken"] as? [String: Any])?.isEmpty ?? true, "\(document)")
        }
    }
}
