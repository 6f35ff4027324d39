import NIOCore
import NIOHTTP1

/// Serves one connection: collects each request within the size caps, hands it to the emulator,
/// writes the answer. Requests on a kept-alive connection are answered in order (the pipeline's
/// `HTTPServerPipelineHandler` holds the next one back until the previous answer is written).
final class EmulatorHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case receiving(HTTPRequestHead, [UInt8])
        /// An answer is on its way; nothing more is read into this request.
        case responding
        /// The request broke a cap and was answered; the connection is closing.
        case rejected
        /// An injected wire fault is playing; nothing more is read or answered on this connection.
        case faulted
    }

    private let limits: MSALEmulator.Configuration.Limits
    private let respond: @Sendable (EmulatorHTTPRequest) async -> EmulatorHTTPResponse
    private var state = State.idle

    init(limits: MSALEmulator.Configuration.Limits, respond: @escaping @Sendable (EmulatorHTTPRequest) async -> EmulatorHTTPResponse) {
        self.limits = limits
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let head), .idle):
            if head.uri.utf8.count > limits.maximumURIBytes {
                reject(context: context, status: 414, "The request target is longer than \(limits.maximumURIBytes) bytes.")
                return
            }
            let headerBytes = head.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
            if headerBytes > limits.maximumHeaderBytes {
                reject(context: context, status: 431, "The request headers are larger than \(limits.maximumHeaderBytes) bytes.")
                return
            }
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limits.maximumBodyBytes {
                reject(context: context, status: 413, "The request body is larger than \(limits.maximumBodyBytes) bytes.")
                return
            }
            state = .receiving(head, [])
        case (.body(let buffer), .receiving(let head, var body)):
            guard body.count + buffer.readableBytes <= limits.maximumBodyBytes else {
                reject(context: context, status: 413, "The request body is larger than \(limits.maximumBodyBytes) bytes.")
                return
            }
            state = .responding  // Drop the array's second reference before appending.
            body.append(contentsOf: buffer.readableBytesView)
            state = .receiving(head, body)
        case (.end, .receiving(let head, let body)):
            state = .responding
            dispatch(head: head, body: body, context: context)
        case (_, .rejected), (_, .responding), (_, .faulted):
            break
        case (.head, _), (.body, .idle), (.end, .idle):
            reject(context: context, status: 400, "Malformed request.")
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            // A request being answered (perhaps delayed by a fault) is not idleness, nor is a stall
            // played on purpose (it lasts until the client gives up or the emulator shuts down).
            switch state {
            case .responding, .faulted: return
            default: break
            }
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Parse errors were answered 400 by the pipeline's error handler; anything else ends the connection.
        context.close(promise: nil)
    }

    private func dispatch(head: HTTPRequestHead, body: [UInt8], context: ChannelHandlerContext) {
        let request = EmulatorHTTPRequest(
            method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body)
        let keepAlive = head.isKeepAlive
        let version = head.version
        let promise = context.eventLoop.makePromise(of: EmulatorHTTPResponse.self)
        let respond = self.respond
        // On this connection's event loop, not the cooperative pool (see EmulatorTaskExecutor).
        Task(executorPreference: EmulatorTaskExecutor(eventLoop: context.eventLoop)) {
            promise.succeed(await respond(request))
        }
        promise.futureResult.assumeIsolated().whenSuccess { response in
            // Ready for the next request before the answer is written: the pipelining handler
            // hands over a request it held back as soon as this answer's end goes out.
            if let fault = response.wireFault {
                self.state = .faulted
                EmulatorWireFault.play(fault, on: context.channel, version: version)
                return
            }
            if case .responding = self.state { self.state = .idle }
            self.write(response, version: version, keepAlive: keepAlive, context: context)
        }
    }

    private func reject(context: ChannelHandlerContext, status: Int, _ message: String) {
        state = .rejected
        write(.text(message, status: status), version: .http1_1, keepAlive: false, context: context)
    }

    private func write(_ response: EmulatorHTTPResponse, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
