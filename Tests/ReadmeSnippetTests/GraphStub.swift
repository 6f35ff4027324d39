import Foundation
import MSALSupport
import NIOCore
import NIOHTTP1
import NIOPosix

/// A stand-in for Microsoft Graph's `/me` on 127.0.0.1: answers every request with a small JSON
/// profile and records the `Authorization` header it was sent.
final class GraphStub: Sendable {
    private let channel: any Channel
    private let received: Authorizations

    /// `http://127.0.0.1:<port>/v1.0/me/`.
    let url: URL

    private init(channel: any Channel, received: Authorizations) {
        self.channel = channel
        self.received = received
        url = URL(string: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)/v1.0/me/")!
    }

    /// Starts a stub on an ephemeral port.
    static func start() async throws -> GraphStub {
        let received = Authorizations()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(GraphHandler(received: received))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return GraphStub(channel: channel, received: received)
    }

    /// The `Authorization` headers received, in order.
    var authorizations: [String] { received.all }

    func stop() async throws {
        try await channel.close()
    }
}

/// Thread-safe list of received `Authorization` headers.
final class Authorizations: Sendable {
    private let values = Mutex<[String]>([])
    var all: [String] { values.withLock { $0 } }
    func append(_ value: String) { values.withLock { $0.append(value) } }
}

/// One connection of ``GraphStub``.
final class GraphHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let received: Authorizations

    init(received: Authorizations) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else {
            if case .head(let head) = unwrapInboundIn(data) {
                received.append(head.headers.first(name: "Authorization") ?? "")
            }
            return
        }
        let body = #"{"displayName":"Tutorial User","userPrincipalName":"tutorial.user@contoso.example"}"#
        let headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "\(body.utf8.count)"), ("Connection", "close")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let loopBoundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBoundContext.value.close(promise: nil) }
    }
}
