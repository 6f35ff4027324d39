import Foundation
import MSALSupport
import NIOCore
import NIOPosix

/// A TCP server on 127.0.0.1 that answers each request with fixed bytes, chosen by the request's
/// path, and then closes the connection: for responses no HTTP library would produce (bad status
/// lines, header lines without a colon, broken chunking, a second response head).
///
/// It reads until the end of the request head (`\r\n\r\n`), so it serves requests without a body.
final class RawHTTPServer: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.port = port
        self.group = group
        self.channel = channel
    }

    /// Starts a server answering `path` with `responses[path]` (unknown paths get a 404).
    static func start(_ responses: [String: [UInt8]]) async throws -> RawHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawResponder(responses: responses))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
            return RawHTTPServer(port: port, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

/// Buffers a request head, writes the canned response for its path, then closes.
private final class RawResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let responses: [String: [UInt8]]
    private var head: [UInt8] = []
    private var answered = false

    init(responses: [String: [UInt8]]) {
        self.responses = responses
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        var buffer = unwrapInboundIn(data)
        head += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard head.count <= 64 * 1024 else {
            context.close(promise: nil)
            return
        }
        guard let end = head.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
        answered = true
        let requestLine = String(decoding: head[..<(head.firstRange(of: Array("\r\n".utf8))?.lowerBound ?? end.lowerBound)], as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        let path = parts.count > 1 ? String(parts[1]) : "/"
        let bytes = responses[path] ?? Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
            // Close a moment later, so the client reads the response before the FIN.
            channel.eventLoop.scheduleTask(in: .milliseconds(50)) { channel.close(promise: nil) }
        }
    }
}
