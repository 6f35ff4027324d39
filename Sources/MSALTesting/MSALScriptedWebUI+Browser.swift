import Foundation
import NIOCore
import NIOPosix

extension MSALScriptedWebUI {
    /// Requests each URL in turn, as a browser following the redirect would: one plain HTTP/1.1 `GET`
    /// per connection to `127.0.0.1`, read until the server closes it.
    static func send(_ urls: [URL]) async -> [DeliveryResult] {
        var results: [DeliveryResult] = []
        for url in urls {
            results.append(await get(url))
        }
        return results
    }

    /// The longest a delivery waits for the listener to answer and close.
    static let deliveryTimeout: Duration = .seconds(30)

    private static func get(_ url: URL) async -> DeliveryResult {
        guard let host = url.host, let port = url.port else {
            return DeliveryResult(url: url, statusCode: nil, body: "", failure: "not an http://host:port URL")
        }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery { target += "?" + query }
        let request = "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: text/html\r\nConnection: close\r\n\r\n"
        do {
            let bytes = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                group.addTask { try await exchange(host: host, port: port, request: request) }
                group.addTask {
                    try await Task.sleep(for: deliveryTimeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let bytes = first else {
                    throw DeliveryTimeout()
                }
                return bytes
            }
            return parse(bytes, url: url)
        } catch {
            return DeliveryResult(url: url, statusCode: nil, body: "", failure: "\(error)")
        }
    }

    private struct DeliveryTimeout: Error, CustomStringConvertible {
        var description: String { "no answer within \(MSALScriptedWebUI.deliveryTimeout)" }
    }

    /// Connects, writes `request`, and returns every byte received until the server closes.
    private static func exchange(host: String, port: Int, request: String) async throws -> [UInt8] {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            var bytes: [UInt8] = []
            for try await chunk in inbound {
                bytes += chunk.readableBytesView
            }
            return bytes
        }
    }

    /// The status and body of an HTTP/1.1 response (the listener always sends `Content-Length` and closes).
    private static func parse(_ bytes: [UInt8], url: URL) -> DeliveryResult {
        let text = String(decoding: bytes, as: UTF8.self)
        let statusLine = text.prefix { $0 != "\r" && $0 != "\n" }.split(separator: " ")
        let status = statusLine.count >= 2 && statusLine[0].hasPrefix("HTTP/1.") ? Int(statusLine[1]) : nil
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return DeliveryResult(url: url, statusCode: status, body: body, failure: status == nil ? "no HTTP response" : nil)
    }
}
