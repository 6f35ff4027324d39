import NIOCore
import NIOHTTP1

/// Sits between SwiftNIO's HTTP/1 response decoder and AsyncHTTPClient's handler on the
/// transport's own client, and ends the connection with an error where AsyncHTTPClient would trap
/// the process.
///
/// AsyncHTTPClient 1.37 skips every response head whose status is below 200 (but 101) as an
/// interim answer, whatever the number, then traps on the body that follows ("How can we receive a
/// response body, if we haven't received a head"): a server answering `HTTP/1.1 000 Zero` with a
/// body brings down the process (found by `MalformedResponseTests`). This guard refuses a status
/// outside 100–999, and a body or end that arrives before a final head.
final class ResponseHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    /// The error the request fails with.
    struct MalformedResponse: Error, CustomStringConvertible {
        let description: String
    }

    /// Until a final (non-interim) head of the current response has passed.
    private var awaitingFinalHead = true
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            let code = head.status.code
            guard (100...999).contains(code) else {
                return refuse(context, "a response with the status code \(code)")
            }
            if code >= 200 || code == 101 { awaitingFinalHead = false }
        case .body:
            if awaitingFinalHead { return refuse(context, "a response body before any final status line") }
        case .end:
            if awaitingFinalHead { return refuse(context, "a response end before any final status line") }
            awaitingFinalHead = true
        }
        context.fireChannelRead(data)
    }

    private func refuse(_ context: ChannelHandlerContext, _ what: String) {
        refused = true
        context.fireErrorCaught(MalformedResponse(description: "the server sent \(what)"))
        context.close(promise: nil)
    }
}

extension ResponseHeadGuard {
    /// AsyncHTTPClient's hook for a new HTTP/1.1 connection: puts a guard right after the
    /// connection's response decoder.
    @Sendable static func install(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
            try operations.addHandler(ResponseHeadGuard(), position: .after(decoder))
        }
    }
}
