import Foundation
import MSALEmulator
import MSALJOSE
import MSALSupport
import NIOCore
import NIOPosix
import Testing

/// The emulator's HTTP client (behind `SignInDriver`) sends `Connection: close`, and a server may
/// answer and close as soon as the request is complete. A client that wrote the request in parts
/// (head, then body, then the end) could find the connection already closed by the answer before
/// its last part went out, and failed with "I/O on closed channel" — often in an optimized build on
/// a busy machine, where the benchmark's sign-ins failed within the first few users.
@Suite("The emulator's HTTP client when the server answers and closes at once")
struct SignInDriverConcurrencyTests {
    @Test(
        "A server that answers the moment the request is complete and closes: every GET and POST gets its answer, even with the task pool busy"
    )
    func answerThenClose() async throws {
        let server = try await QuickCloseServer.start()
        defer { server.close() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/page"))
        // Other work keeps the cooperative pool busy, so a task that suspends between two writes
        // resumes late — after the server's answer and close, which the old client then wrote into.
        let done = StopFlag()
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    while !done.isSet {
                        var spin = 0
                        for value in 0..<20_000 { spin &+= value &* value }
                        blackHole(spin)
                        await Task.yield()
                    }
                    return []
                }
            }
            group.addTask {
                defer { done.set() }
                var statuses: [Int] = []
                for _ in 0..<200 {
                    statuses.append(try await EmulatorHTTPClient().send("GET", url).status)
                    let post = try await EmulatorHTTPClient().send(
                        "POST", url, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array("emulator_user=ben".utf8)
                    )
                    statuses.append(post.status)
                }
                return statuses
            }
            return try await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(statuses == Array(repeating: 302, count: 400))
        #expect(server.answered == 400)
    }

    @Test(
        "Many concurrent sign-ins through the emulator's page (load and form post, one connection each) all end in a redirect with a code")
    func concurrentSignIns() async throws {
        try await EmulatorHarness.with { harness in
            let url = RawFlow(harness: harness).authorizeURL(pkce: try PKCE.generate())
            let codes = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        var codes: [String] = []
                        for _ in 0..<8 {
                            let redirect = try await MSALEmulator.SignInDriver(username: EmulatorHarness.ben).signIn(authorizationURL: url)
                            let items = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems ?? []
                            codes.append(try #require(items.first { $0.name == "code" }?.value))
                        }
                        return codes
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(codes.count == 128)
            #expect(Set(codes).count == 128)
            #expect(harness.emulator.requestCount(.authorize) == 256)
        }
    }
}

/// A flag set once, read by other tasks.
final class StopFlag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() {
        value.withLock { $0 = true }
    }
}

/// Keeps `value` alive so the loop computing it is not optimized away.
@inline(never)
func blackHole(_ value: Int) {}

/// A loopback server that reads one request (head, and a body of its `Content-Length`), answers
/// `302` with a numbered code at once, on the event loop, and closes the connection.
final class QuickCloseServer: Sendable {
    let channel: any Channel
    let port: Int

    private let counter: Counter

    private init(channel: any Channel, port: Int, counter: Counter) {
        self.channel = channel
        self.port = port
        self.counter = counter
    }

    /// When to answer: once the request is complete, or as soon as the connection is accepted,
    /// before reading anything (as a server does that refuses a request early).
    enum Moment: Sendable {
        case requestComplete
        case accepted
    }

    static func start(answering moment: Moment = .requestComplete) async throws -> QuickCloseServer {
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(AnswerThenClose(counter: counter, moment: moment))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try await channel.close()
            throw ChannelError.inappropriateOperationForState
        }
        return QuickCloseServer(channel: channel, port: port, counter: counter)
    }

    func close() {
        channel.close(promise: nil)
    }

    /// How many requests were answered.
    var answered: Int { counter.count }

    /// Numbers the answers.
    final class Counter: Sendable {
        private let value = Mutex(0)

        func next() -> Int {
            value.withLock { value in
                defer { value += 1 }
                return value
            }
        }

        var count: Int { value.withLock { $0 } }
    }

    /// Collects one request and answers it.
    final class AnswerThenClose: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let counter: Counter
        private let moment: Moment
        private var received: [UInt8] = []
        private var answered = false

        init(counter: Counter, moment: Moment) {
            self.counter = counter
            self.moment = moment
        }

        func channelActive(context: ChannelHandlerContext) {
            context.fireChannelActive()
            if moment == .accepted { answer(context: context) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received.append(contentsOf: unwrapInboundIn(data).readableBytesView)
            if isComplete { answer(context: context) }
        }

        private func answer(context: ChannelHandlerContext) {
            guard !answered else { return }
            answered = true
            let answer =
                "HTTP/1.1 302 Found\r\nLocation: http://localhost/?code=c\(counter.next())\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer))).whenComplete { _ in channel.close(promise: nil) }
        }

        /// Whether the head has ended and the body declared by `Content-Length` has arrived.
        private var isComplete: Bool {
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { return false }
            let head = text[..<end.lowerBound].lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            return text[end.upperBound...].utf8.count >= length
        }
    }
}
