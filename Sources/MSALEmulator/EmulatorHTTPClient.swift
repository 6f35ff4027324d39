import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal HTTP/1.1 client for loopback URLs: one request per connection, redirects never
/// followed. The sign-in driver uses it to act as a browser; tests use it to send what a browser would not.
package struct EmulatorHTTPClient: Sendable {
    /// A response: status, headers (names lower-cased) and body.
    package struct Response: Sendable {
        package var status: Int
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]

        /// The first value of header `name` (case-insensitive).
        package func header(_ name: String) -> String? {
            let folded = name.lowercased()
            return headers.first { $0.name == folded }?.value
        }

        /// The body as UTF-8 text.
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The largest response body read.
    package static let maximumResponseBytes = 4 * 1024 * 1024

    package init() {}

    /// Sends `method` to `url` (an `http` URL on a loopback host) with `headers` and `body`.
    package func send(
        _ method: String, _ url: URL, headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> Response {
        guard url.scheme?.lowercased() == "http", let host = url.host, ["127.0.0.1", "localhost"].contains(host.lowercased()) else {
            throw MSALEmulatorError(.signInFailed, "only http URLs on 127.0.0.1 are supported, not \(url.absoluteString)")
        }
        let port = url.port ?? 80
        var target = url.path.isEmpty ? "/" : url.path
        // The encoded path and query as written: URL.path would decode escapes.
        if let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
        }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if !body.isEmpty || method == "POST" { head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        let requestHead = head

        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            // The whole request in one write: with `Connection: close` the server answers and closes
            // as soon as the request is complete, so a part written after the others could find
            // the connection closed ("I/O on closed channel") although the answer has arrived.
            var parts: [HTTPClientRequestPart] = [.head(requestHead)]
            if !body.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
            var response = Response(status: 0, headers: [], body: [])
            for try await part in inbound {
                switch part {
                case .head(let head):
                    response.status = Int(head.status.code)
                    response.headers = head.headers.map { ($0.name.lowercased(), $0.value) }
                case .body(let buffer):
                    guard response.body.count + buffer.readableBytes <= Self.maximumResponseBytes else {
                        throw MSALEmulatorError(.signInFailed, "the response from \(url.absoluteString) is larger than 4 MiB")
                    }
                    response.body.append(contentsOf: buffer.readableBytesView)
                case .end:
                    return response
                }
            }
            throw MSALEmulatorError(.signInFailed, "the connection to \(url.absoluteString) closed before the response ended")
        }
    }
}
