import Foundation
import NIOCore
import NIOHTTP1

/// Serves one connection to the loopback listener: reads one request, answers it, closes.
///
/// Every response carries `Connection: close`. A connection that has not delivered its request within the
/// listener's connection timeout is closed, so a slow or silent client holds one slot for a bounded time
/// and never delays the others. Bytes the HTTP decoder rejects (TLS, garbage) close the connection.
final class LoopbackConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let core: LoopbackListenerCore
    private var head: HTTPRequestHead?
    private var answered = false
    private var admitted = false
    private var deadline: Scheduled<Void>?

    init(core: LoopbackListenerCore) {
        self.core = core
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        guard core.admit(channel) else {
            context.close(promise: nil)
            return
        }
        admitted = true
        deadline = context.eventLoop.scheduleTask(in: core.connectionTimeout) {
            channel.close(promise: nil)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if admitted {
            core.release(context.channel)
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            core.markRequestBegun(context.channel)
        case .body:
            break
        case .end:
            guard let head else { return }
            answered = true
            answer(head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Not HTTP (TLS bytes, garbage) or a decoder limit: drop the connection unless already answering.
        if !answered {
            answered = true
            context.close(promise: nil)
        }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard let rules = core.rules else {
            respond(context: context, status: 503, text: "Not ready.")
            return
        }
        let verdict = rules.evaluate(method: head.method.rawValue, target: head.uri, hostHeaders: head.headers["Host"])
        switch verdict {
        case .reject(let status, let reason):
            respond(
                context: context, status: status, text: reason,
                extraHeaders: status == 405 ? [("Allow", "GET")] : [])
        case .redirect(let redirect):
            guard core.settle(.success(redirect), answering: context.channel) else {
                respond(context: context, status: 409, text: "The sign-in has already finished.")
                return
            }
            if redirect.error != nil {
                respondPage(
                    context: context, status: 200,
                    html: core.pages.failureHTML(error: redirect.error, description: redirect.errorDescription),
                    builtIn: core.pages.isBuiltInFailure)
            } else {
                respondPage(context: context, status: 200, html: core.pages.successHTML, builtIn: core.pages.isBuiltInSuccess)
            }
        case .start(let method):
            switch core.claimStart(method: method, answering: context.channel) {
            case .serve(let location):
                // The authorization URL goes to the browser only here, never on a command line.
                write(
                    context: context, status: 302, contentType: "text/plain; charset=utf-8", body: "Continuing to the sign-in page.\n",
                    extraHeaders: [("Location", location.absoluteString)])
            case .reused:
                respondPage(
                    context: context, status: 400,
                    html: core.pages.failureHTML(
                        error: "start_url_reused",
                        description:
                            "This sign-in link was opened a second time, perhaps by another program on this computer. The sign-in was stopped for safety; start it again."
                    ),
                    builtIn: core.pages.isBuiltInFailure)
            case .finished:
                respond(context: context, status: 409, text: "The sign-in has already finished.")
            }
        case .unusable(let reason):
            guard core.settle(.failure(.invalidRedirect(reason)), answering: context.channel) else {
                respond(context: context, status: 409, text: "The sign-in has already finished.")
                return
            }
            respondPage(
                context: context, status: 400,
                html: core.pages.failureHTML(error: "invalid_redirect", description: reason),
                builtIn: core.pages.isBuiltInFailure)
        }
    }

    private func respond(context: ChannelHandlerContext, status: Int, text: String, extraHeaders: [(String, String)] = []) {
        write(
            context: context, status: status, contentType: "text/plain; charset=utf-8", body: text + "\n",
            extraHeaders: extraHeaders)
    }

    private func respondPage(context: ChannelHandlerContext, status: Int, html: String, builtIn: Bool) {
        // The built-in pages need no script, image or outside resource.
        let policy = builtIn ? [("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")] : []
        write(context: context, status: status, contentType: "text/html; charset=utf-8", body: html, extraHeaders: policy)
    }

    private func write(
        context: ChannelHandlerContext, status: Int, contentType: String, body: String,
        extraHeaders: [(String, String)]
    ) {
        let bytes = Array(body.utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(bytes.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        // The redirect URL holds the code: a page must never send it on as a Referer.
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        for (name, value) in extraHeaders {
            headers.add(name: name, value: value)
        }
        let responseHead = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
