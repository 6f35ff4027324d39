import Foundation
import NIOCore
import NIOPosix

/// What a raw client got back before the server closed the connection.
struct RawResponse: Sendable {
    /// Every byte received.
    var bytes: [UInt8]
    /// Whether the connection ended with a reset rather than an orderly close.
    var wasReset: Bool

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The status code of the first line, when there is a response.
    var status: Int? {
        let line = text.prefix { $0 != "\r" && $0 != "\n" }
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
        return Int(parts[1])
    }

    /// The header values named `name` (case-insensitive).
    func header(_ name: String) -> [String] {
        let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        return head.components(separatedBy: "\r\n").dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":"),
                line[..<colon].lowercased() == name.lowercased()
            else { return nil }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// The body after the head.
    var body: String {
        guard let range = text.range(of: "\r\n\r\n") else { return "" }
        return String(text[range.upperBound...])
    }
}

/// An HTTP client that sends exactly the bytes it is given, for malformed and hostile requests.
enum RawHTTPClient {
    /// An open connection the test writes to at its own pace.
    struct Connection: Sendable {
        let channel: any Channel
        fileprivate let ended: EventLoopFuture<RawResponse>

        /// Sends `bytes`.
        func send(_ bytes: [UInt8]) async throws {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        }

        /// Waits until the server closes the connection; returns everything that arrived.
        func readToEnd() async -> RawResponse {
            // The future is only ever succeeded (see `Collector`).
            (try? await ended.get()) ?? RawResponse(bytes: [], wasReset: true)
        }

        /// Closes the connection from the client side.
        func close() async {
            try? await channel.close()
        }
    }

    /// Collects the bytes of one connection and reports them when it closes.
    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let promise: EventLoopPromise<RawResponse>
        private var bytes: [UInt8] = []
        private var reset = false

        init(promise: EventLoopPromise<RawResponse>) {
            self.promise = promise
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            bytes += unwrapInboundIn(data).readableBytesView
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            reset = true
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.succeed(RawResponse(bytes: bytes, wasReset: reset))
        }
    }

    /// Opens a connection to `host`:`port`.
    static func connect(port: Int, host: String = "127.0.0.1") async throws -> Connection {
        let group = MultiThreadedEventLoopGroup.singleton
        let eventLoop = group.next()
        let promise = eventLoop.makePromise(of: RawResponse.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(.seconds(2))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Collector(promise: promise))
                    }
                }
                .connect(host: host, port: port)
                .get()
        } catch {
            // A promise must not be dropped unfulfilled (NIO traps on that in debug builds).
            promise.succeed(RawResponse(bytes: [], wasReset: true))
            throw error
        }
        return Connection(channel: channel, ended: promise.futureResult)
    }

    /// Sends `bytes` on a new connection and reads until the server closes it.
    static func exchange(port: Int, host: String = "127.0.0.1", _ bytes: [UInt8]) async throws -> RawResponse {
        let connection = try await connect(port: port, host: host)
        try await connection.send(bytes)
        return await connection.readToEnd()
    }

    /// Sends a request with the given request line target, method and headers (`Host: localhost:<port>` unless given).
    static func request(
        port: Int, method: String = "GET", target: String, host: String? = nil,
        headers: [(String, String)] = [], connectTo address: String = "127.0.0.1"
    ) async throws -> RawResponse {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        text += "Host: \(host ?? "localhost:\(port)")\r\n"
        for (name, value) in headers {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return try await exchange(port: port, host: address, Array(text.utf8))
    }

    /// Whether a connection to `host`:`port` is refused (nothing listens).
    static func isRefused(port: Int, host: String = "127.0.0.1") async -> Bool {
        do {
            let connection = try await connect(port: port, host: host)
            await connection.close()
            return false
        } catch {
            return true
        }
    }
}
