import AsyncHTTPClient
import MSAL
import NIOCore
import NIOHTTP1

/// Streams one AsyncHTTPClient response into its `TransportExchange`, on the connection's event
/// loop: the head (with the exchange's `Content-Length` checks), each body part (with the cap),
/// the end, or the failure.
final class ExchangeDelegate: HTTPClientResponseDelegate {
    typealias Response = Void

    let exchange: TransportExchange

    init(exchange: TransportExchange) {
        self.exchange = exchange
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        var fields: [MSALHTTPHeaders.Field] = []
        fields.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            fields.append(MSALHTTPHeaders.Field(name: name, value: value))
        }
        if let refused = exchange.receive(statusCode: Int(head.status.code), headers: MSALHTTPHeaders(fields)) {
            exchange.finish(.failure(refused))
            return task.eventLoop.makeFailedFuture(refused)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        if let refused = buffer.withUnsafeReadableBytes({ exchange.append($0) }) {
            exchange.finish(.failure(refused))
            return task.eventLoop.makeFailedFuture(refused)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        exchange.finish(.failure(MSALAsyncHTTPClientTransport.mapError(error, host: exchange.host)))
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        exchange.finishWithCollectedResponse()
    }
}
