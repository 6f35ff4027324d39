import NIOCore

/// Caps the bytes one loopback connection may send, in front of the HTTP decoder.
///
/// A redirect is one `GET` without a body, so the whole connection is held to the request size cap. Past it
/// the client gets `431 Request Header Fields Too Large` (unless a response was already written) and the
/// connection is closed; nothing more is read or decoded.
final class LoopbackRequestLimiter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let response = Array(
        """
        HTTP/1.1 431 Request Header Fields Too Large\r
        Content-Type: text/plain; charset=utf-8\r
        Content-Length: 18\r
        Connection: close\r
        Cache-Control: no-store\r
        \r
        Request too large.
        """.utf8)

    private let maximumBytes: Int
    private var received = 0
    private var exceeded = false
    private var responded = false

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !exceeded else { return }
        let buffer = unwrapInboundIn(data)
        received += buffer.readableBytes
        guard received <= maximumBytes else {
            exceeded = true
            let channel = context.channel
            if responded {
                context.close(promise: nil)
            } else {
                responded = true
                let bytes = context.channel.allocator.buffer(bytes: Self.response)
                context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
            }
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        responded = true
        context.write(data, promise: promise)
    }
}
