import Foundation
import MSALSupport
import NIOCore
import NIOHTTP1
import NIOPosix

@testable import MSAL

/// A request the ``LocalHTTPServer`` received.
struct RecordedRequest: Sendable {
    var method: String
    /// The request target as sent (path and query).
    var uri: String
    var headers: MSALHTTPHeaders
    var body: [UInt8]

    /// The path without the query.
    var path: String {
        String(uri.prefix { $0 != "?" })
    }
}

/// One thing the server does while answering.
enum ServerStep: Sendable {
    /// Waits before the next step.
    case wait(milliseconds: Int)
    /// Sends the status line and headers. Without `Content-Length` the body is sent chunked.
    case head(status: Int, headers: [(String, String)])
    /// Sends body bytes at once.
    case body([UInt8])
    /// Sends body bytes one at a time, waiting between them.
    case trickle([UInt8], intervalMilliseconds: Int)
    /// Sends `chunk` `count` times (a large body without holding it in memory).
    case repeatedBody(chunk: [UInt8], count: Int)
    /// Ends the response.
    case end
    /// Closes the connection (after a partial response: a connection reset mid-body).
    case close
}

/// What the server does for one request: steps run in order.
struct ServerReply: Sendable {
    var steps: [ServerStep]

    /// A complete response with `Content-Length`.
    static func respond(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) -> ServerReply {
        ServerReply(steps: [.head(status: status, headers: headers + [("Content-Length", "\(body.count)")]), .body(body), .end])
    }

    /// A complete response with a UTF-8 text body.
    static func text(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> ServerReply {
        respond(status: status, headers: headers + [("Content-Type", "text/plain")], body: Array(text.utf8))
    }

    /// A complete response with a JSON body.
    static func json(_ json: String, status: Int = 200, headers: [(String, String)] = []) -> ServerReply {
        respond(status: status, headers: headers + [("Content-Type", "application/json")], body: Array(json.utf8))
    }

    /// `reply`, after a pause before anything is sent.
    static func delayed(milliseconds: Int, _ reply: ServerReply) -> ServerReply {
        ServerReply(steps: [.wait(milliseconds: milliseconds)] + reply.steps)
    }

    /// A head with the full `Content-Length`, then the body one byte at a time.
    static func trickled(_ body: [UInt8], intervalMilliseconds: Int) -> ServerReply {
        ServerReply(steps: [
            .head(status: 200, headers: [("Content-Length", "\(body.count)")]),
            .trickle(body, intervalMilliseconds: intervalMilliseconds), .end,
        ])
    }

    /// Declares `declaredLength` bytes, sends `body` (shorter), then closes the connection.
    static func truncated(declaredLength: Int, body: [UInt8]) -> ServerReply {
        ServerReply(steps: [.head(status: 200, headers: [("Content-Length", "\(declaredLength)")]), .body(body), .close])
    }

    /// A body of `size` bytes (`size` a multiple of 1 KiB), with `Content-Length` or chunked.
    static func huge(size: Int, chunked: Bool) -> ServerReply {
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1024)
        let headers = chunked ? [] : [("Content-Length", "\(size)")]
        return ServerReply(steps: [.head(status: 200, headers: headers), .repeatedBody(chunk: chunk, count: size / 1024), .end])
    }

    /// A redirect to `location`.
    static func redirect(to location: String, status: Int = 302) -> ServerReply {
        respond(status: status, headers: [("Location", location)], body: Array("moved".utf8))
    }
}

/// A scripted HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for transport integration tests.
///
/// Routes map a path to a handler that gets the request and its index among the requests to that path
/// (0 for the first), so a test can answer 503 first and 200 next. Unknown paths get 404.
final class LocalHTTPServer: Sendable {
    typealias Handler = @Sendable (RecordedRequest, Int) -> ServerReply

    private struct State {
        var requests: [RecordedRequest] = []
        var waiters: [(path: String, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let port: Int
    private let routes: [String: Handler]
    private let group: MultiThreadedEventLoopGroup
    private let channel: Mutex<(any Channel)?>
    private let state = Mutex(State())

    private init(routes: [String: Handler], group: MultiThreadedEventLoopGroup, port: Int) {
        self.routes = routes
        self.group = group
        self.port = port
        self.channel = Mutex(nil)
    }

    /// Starts a server with `routes`.
    static func start(_ routes: [String: Handler]) async throws -> LocalHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = Mutex<LocalHTTPServer?>(nil)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let server = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(ScriptedHTTPHandler(server: server))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            try? await group.shutdownGracefully()
            throw ChannelError.unknownLocalAddress
        }
        let server = LocalHTTPServer(routes: routes, group: group, port: port)
        server.channel.withLock { $0 = channel }
        box.withLock { $0 = server }
        return server
    }

    /// A port on 127.0.0.1 nothing listens on (bound, then closed).
    static func closedPort() async throws -> Int {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 1
        try await channel.close()
        try await group.shutdownGracefully()
        return port
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String, scheme: String = "http") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    /// Every request received, in order.
    var requests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// The requests received for `path`.
    func requests(to path: String) -> [RecordedRequest] {
        requests.filter { $0.path == path }
    }

    /// Suspends until a request for `path` has been received.
    func waitForRequest(to path: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = state.withLock { state in
                if state.requests.contains(where: { $0.path == path }) { return true }
                state.waiters.append((path, continuation))
                return false
            }
            if already { continuation.resume() }
        }
    }

    /// Records `request` and returns what to answer.
    fileprivate func record(_ request: RecordedRequest) -> ServerReply {
        let (index, ready) = state.withLock { state in
            let index = state.requests.filter { $0.path == request.path }.count
            state.requests.append(request)
            let ready = state.waiters.filter { $0.path == request.path }.map(\.continuation)
            state.waiters.removeAll { $0.path == request.path }
            return (index, ready)
        }
        ready.forEach { $0.resume() }
        guard let handler = routes[request.path] else {
            return .text("no route for \(request.path)", status: 404)
        }
        return handler(request, index)
    }

    /// Closes the listener and every connection.
    func shutdown() async throws {
        let channel = self.channel.withLock { channel in
            defer { channel = nil }
            return channel
        }
        try? await channel?.close()
        try await group.shutdownGracefully()
    }
}

/// Collects one request at a time and plays the route's reply on the connection.
private final class ScriptedHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: LocalHTTPServer
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(server: LocalHTTPServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            var headers = MSALHTTPHeaders()
            for (name, value) in head.headers { headers.add(name: name, value: value) }
            let request = RecordedRequest(method: head.method.rawValue, uri: head.uri, headers: headers, body: body)
            self.head = nil
            let reply = server.record(request)
            Self.perform(reply.steps[...], on: context.channel)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Runs `steps` on `channel`, one after the other; stops when a write fails (the client went away).
    private static func perform(_ steps: ArraySlice<ServerStep>, on channel: any Channel) {
        guard let step = steps.first else { return }
        let rest = steps.dropFirst()
        let next: @Sendable (Result<Void, any Error>) -> Void = { result in
            if case .success = result { perform(rest, on: channel) }
        }
        switch step {
        case .wait(let milliseconds):
            channel.eventLoop.scheduleTask(in: .milliseconds(Int64(milliseconds))) {
                perform(rest, on: channel)
            }
        case .head(let status, let fields):
            var headers = HTTPHeaders()
            for (name, value) in fields { headers.add(name: name, value: value) }
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
            channel.writeAndFlush(HTTPServerResponsePart.head(head)).whenComplete(next)
        case .body(let bytes):
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes)))).whenComplete(next)
        case .trickle(let bytes, let interval):
            guard let first = bytes.first else {
                perform(rest, on: channel)
                return
            }
            let remaining: [ServerStep] = [.trickle(Array(bytes.dropFirst()), intervalMilliseconds: interval)] + rest
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: [first])))).whenComplete { result in
                guard case .success = result else { return }
                channel.eventLoop.scheduleTask(in: .milliseconds(Int64(interval))) {
                    perform(remaining[...], on: channel)
                }
            }
        case .repeatedBody(let chunk, let count):
            guard count > 0 else {
                perform(rest, on: channel)
                return
            }
            let remaining: [ServerStep] = [.repeatedBody(chunk: chunk, count: count - 1)] + rest
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: chunk)))).whenComplete { result in
                if case .success = result { perform(remaining[...], on: channel) }
            }
        case .end:
            channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete(next)
        case .close:
            channel.close(promise: nil)
        }
    }
}
