import Foundation
import MSAL
import MSALSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate of ``MSALURLSessionTransport``: routes each task's events to its
/// ``TransportExchange`` (looked up by task identifier under a lock), refuses every redirect,
/// enforces the response body cap while the body streams in, and never lets libcurl resend a
/// request body.
///
/// Sendable without `@unchecked`: its only stored property is a `Mutex`, and `NSObject` is the one
/// superclass a `Sendable` class may have.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: TransportExchange]>([:])

    func register(_ exchange: TransportExchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    func unregister(_ task: URLSessionTask) {
        _ = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func exchange(for task: URLSessionTask) -> TransportExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Never follow: the 3xx response itself becomes the result.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let exchange = exchange(for: dataTask), let http = response as? HTTPURLResponse {
            if let error = exchange.receive(statusCode: http.statusCode, headers: Self.headers(of: http)) {
                if exchange.finish(.failure(error)) { dataTask.cancelHoldingDelegateQueue() }
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let exchange = exchange(for: dataTask) else { return }
        if let error = exchange.append(data), exchange.finish(.failure(error)) {
            dataTask.cancelHoldingDelegateQueue()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        // libcurl asks for the body again when it resends a request on a new connection because the
        // reused keep-alive connection closed before any answer. corelibs Foundation cannot replay a
        // `Data` body: the resend would send its headers and stall until the timeout. And resending is
        // not the transport's decision (a code redemption must go out once): the exchange fails now
        // with `networkFailure`, the pipeline applies its retry rule, and the transfer is canceled.
        completionHandler(nil)
        guard let exchange = exchange(for: task) else { return }
        let failure = MSALFailure(
            .internal, internalCode: .networkFailure,
            message: "The request to \(exchange.host) failed: the connection closed before any response; the request was not sent again")
        if exchange.finish(.failure(failure)) {
            // This runs on the session's work queue, not the delegate queue (and `cancel()`, which waits
            // for the work queue, would deadlock here).
            session.delegateQueue.addOperation { task.cancelHoldingDelegateQueue() }
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Server trust (Darwin only; spelled out because corelibs marks the constant unavailable).
        guard challenge.protectionSpace.authenticationMethod != "NSURLAuthenticationMethodServerTrust" else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        // An HTTP 401 with `WWW-Authenticate`: swift-msal sends no credentials, so the 401 (whose
        // body has already been delivered) is the answer. Default handling would stall the task.
        if let exchange = exchange(for: task) {
            finishWithResponse(exchange, task: task)
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchange(for: task) else { return }
        if let error {
            exchange.finish(.failure(MSALURLSessionTransport.mapError(error, host: exchange.host)))
        } else {
            finishWithResponse(exchange, task: task)
        }
    }

    private func finishWithResponse(_ exchange: TransportExchange, task: URLSessionTask) {
        let http = task.response as? HTTPURLResponse
        exchange.finishWithCollectedResponse(fallbackStatus: http?.statusCode, fallbackHeaders: http.map(Self.headers(of:)) ?? [:])
    }

    static func headers(of response: HTTPURLResponse) -> MSALHTTPHeaders {
        var headers = MSALHTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.add(name: String(describing: name), value: String(describing: value))
        }
        return headers
    }
}
