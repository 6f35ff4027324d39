import Foundation
import NIOCore
import NIOPosix

/// Writes raw bytes to a TCP port and reads everything the server sends until it closes the
/// connection, for inputs an HTTP client library would refuse to send.
enum RawSocket {
    static func exchange(port: Int, _ bytes: [UInt8], closeOutput: Bool = false) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            do {
                try await outbound.write(ByteBuffer(bytes: bytes))
                if closeOutput { outbound.finish() }
            } catch {
                // The server may close first (for example after rejecting an oversized request).
            }
            var received: [UInt8] = []
            do {
                for try await buffer in inbound {
                    received.append(contentsOf: buffer.readableBytesView)
                }
            } catch {
                // A reset after the answer still leaves the answer.
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// The status codes of every response in `text`, in order.
    static func statuses(_ text: String) -> [Int] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }
}
