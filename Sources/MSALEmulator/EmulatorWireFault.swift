import Glibc
import NIOCore
import NIOHTTP1

/// Plays an injected wire fault (``MSALEmulator/Fault/Response/isWireFault``) on a connection
/// instead of writing the answer: the bytes go out as a broken server would send them.
///
/// Every step is scheduled on the channel's event loop and stops as soon as a write fails (the
/// client went away) or the connection is closed (the emulator shut down).
enum EmulatorWireFault {
    /// The `Content-Length` declared by the faults that send a partial or trickled body.
    static let declaredLength = 4_096
    /// How much of the body the mid-body faults send before they break.
    static let partialLength = 64
    /// The largest oversized body sent.
    static let maximumOversizedBody = 64 << 20

    /// The status the request log records: 0 when no status line is sent.
    static func status(of fault: MSALEmulator.Fault.Response) -> Int {
        switch fault {
        case .closeBeforeHeaders, .stallBeforeHeaders: 0
        default: 200
        }
    }

    /// Body bytes that start like a token response, so a client that stops early has read JSON text.
    static func body(_ count: Int) -> [UInt8] {
        let start = Array(#"{"token_type":"Bearer","scope":"User.Read","expires_in":3599,"access_token":""#.utf8)
        guard count > start.count else { return Array(start.prefix(count)) }
        return start + [UInt8](repeating: UInt8(ascii: "x"), count: count - start.count)
    }

    /// Starts playing `fault` on `channel`.
    static func play(_ fault: MSALEmulator.Fault.Response, on channel: any Channel, version: HTTPVersion) {
        switch fault {
        case .closeBeforeHeaders:
            channel.close(promise: nil)
        case .stallBeforeHeaders:
            break
        case .resetMidBody:
            sendPartial(on: channel, version: version).whenSuccess {
                // SO_LINGER with a zero timeout turns the close into a reset (RST).
                let reset =
                    (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
                    ?? channel.eventLoop.makeSucceededVoidFuture()
                reset.whenComplete { _ in channel.close(promise: nil) }
            }
        case .truncatedBody:
            sendPartial(on: channel, version: version).whenComplete { _ in channel.close(promise: nil) }
        case .stallMidBody:
            _ = sendPartial(on: channel, version: version)
        case .trickle(let interval):
            let body = body(declaredLength)
            let pause = TimeAmount.nanoseconds(Int64(max(0.001, min(interval, 3600)) * 1e9))
            writeHead(on: channel, version: version, length: body.count).whenSuccess {
                trickle(body[...], every: pause, on: channel)
            }
        case .oversizedBody(let bytes, let declaresLength):
            let size = max(0, min(bytes, maximumOversizedBody))
            writeHead(on: channel, version: version, length: declaresLength ? size : nil).whenSuccess {
                stream(remaining: size, on: channel)
            }
        case .invalidGrant, .interactionRequired, .oauthError, .throttled, .serverError, .delay, .answer, .dpopProofRefused:
            // Not wire faults; never routed here.
            channel.close(promise: nil)
        }
    }

    /// A 200 head: `Content-Length: length`, or chunked when `nil`.
    private static func writeHead(on channel: any Channel, version: HTTPVersion, length: Int?) -> EventLoopFuture<Void> {
        var headers = HTTPHeaders([("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")])
        if let length { headers.add(name: "Content-Length", value: String(length)) }
        let head = HTTPResponseHead(version: version, status: .ok, headers: headers)
        return channel.writeAndFlush(HTTPServerResponsePart.head(head))
    }

    /// The head of a ``declaredLength``-byte answer and its first ``partialLength`` bytes.
    private static func sendPartial(on channel: any Channel, version: HTTPVersion) -> EventLoopFuture<Void> {
        writeHead(on: channel, version: version, length: declaredLength).flatMap {
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body(partialLength)))))
        }
    }

    /// Writes `bytes` one at a time, `pause` apart, then ends the answer.
    private static func trickle(_ bytes: ArraySlice<UInt8>, every pause: TimeAmount, on channel: any Channel) {
        guard let first = bytes.first else {
            channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil)
            return
        }
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: [first])))).whenSuccess {
            channel.eventLoop.scheduleTask(in: pause) {
                trickle(bytes.dropFirst(), every: pause, on: channel)
            }
        }
    }

    /// Writes `remaining` body bytes in 64 KiB pieces, each after the previous one went out, then ends the answer.
    private static func stream(remaining: Int, on channel: any Channel) {
        guard remaining > 0 else {
            channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil)
            return
        }
        let count = min(remaining, 64 << 10)
        let piece = ByteBuffer(repeating: UInt8(ascii: "x"), count: count)
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(piece))).whenSuccess {
            stream(remaining: remaining - count, on: channel)
        }
    }
}
