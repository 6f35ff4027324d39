import Foundation
import MSAL
import MSALSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``MSALHTTPTransport`` on Foundation's `URLSession` (libcurl on Linux); the default is
/// ``MSALCurlTransport``.
///
/// - Important: swift-corelibs-foundation traps the process on a chunked response that ends with a
///   trailer field (`NativeProtocol.swift: Transfer completed, but there's no response.`), whatever
///   this transport does. Use it only with servers trusted not to send trailers; the default
///   transport is not affected.
///
/// - The session is ephemeral: no cookies, no URL cache, no credential storage.
/// - Redirects are never followed; a 3xx response is returned as it is.
/// - ``MSALHTTPLimits/connectTimeout`` bounds the wait for the connection and for every next byte,
///   ``MSALHTTPLimits/totalTimeout`` the whole exchange (a server that trickles bytes still times out).
///   Both are enforced by the transport itself, as libcurl-backed `URLSession` rounds timeouts down to
///   whole seconds and does not enforce a resource timeout per request.
/// - The response body is capped at ``MSALHTTPLimits/maximumResponseBodySize`` while it streams in
///   (and at once when `Content-Length` declares more); the request body at
///   ``MSALHTTPLimits/maximumRequestBodySize`` before anything is sent.
/// - A request is sent once: when a reused keep-alive connection closes before any answer, a
///   request with a body fails at once with ``MSALInternalError/networkFailure`` instead of being
///   resent (libcurl resends a bodiless `GET` once by itself).
/// - Errors are ``MSALFailure``s with internal code ``MSALInternalError/networkTimeout``,
///   ``MSALInternalError/tlsFailure``, ``MSALInternalError/bodyTooLarge`` or
///   ``MSALInternalError/networkFailure`` (the `URLError` kept as ``MSALFailure/underlyingError``).
///   Canceling the calling task cancels the transfer and throws `CancellationError`.
/// - A request with a ``MSALHTTPRequest/clientCertificate`` (mutual TLS) is refused with
///   ``MSALInternalError/tlsFailure`` before anything is sent: corelibs Foundation's `URLSession`
///   cannot present a client certificate. Use ``MSALCurlTransport`` for it.
///
/// One instance serves any number of concurrent requests; share it. The session is invalidated when
/// the transport is released (transfers still ending, such as a canceled one, finish first).
public final class MSALURLSessionTransport: MSALHTTPTransport {
    private let session: URLSession
    private let delegate: URLSessionTransportDelegate
    /// The session's delegate queue, where every transfer is canceled (see
    /// `URLSessionTask.cancelHoldingDelegateQueue()`).
    private let delegateQueue: OperationQueue

    /// Creates a transport with its own ephemeral session.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let queue = OperationQueue()
        queue.name = "MSALURLSessionTransport"
        // One queue per session, serial, so each task's callbacks arrive in order.
        queue.maxConcurrentOperationCount = 1
        let delegate = URLSessionTransportDelegate()
        self.delegate = delegate
        self.delegateQueue = queue
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        // Not `invalidateAndCancel()`: its `cancel()` calls could meet a completing transfer (see
        // `URLSessionTask.cancelHoldingDelegateQueue()`). No exchange is open once the transport is
        // released; transfers still ending were already canceled and end by themselves.
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` once and returns whatever HTTP response arrives.
    public func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        try Task.checkCancellation()
        let host = try request.checkBeforeSending(limits: limits)
        guard request.clientCertificate == nil else {
            throw MSALFailure(
                .internal, internalCode: .tlsFailure,
                message:
                    "The request to \(host) needs a client certificate (mutual TLS), which MSALURLSessionTransport cannot present; it was not sent (use MSALCurlTransport)"
            )
        }
        let task = session.dataTask(with: Self.urlRequest(for: request, limits: limits))
        let exchange = TransportExchange(limits: limits, host: host)
        delegate.register(exchange, for: task)
        defer { delegate.unregister(task) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MSALHTTPResponse, any Error>) in
                if exchange.install({ continuation.resume(with: $0) }) {
                    task.resume()
                    exchange.watchDeadlines { [delegateQueue] in Self.cancel(task, on: delegateQueue) }
                }
            }
        } onCancel: { [delegateQueue] in
            if exchange.finish(.failure(CancellationError())) {
                Self.cancel(task, on: delegateQueue)
            }
        }
    }

    /// Cancels `task`'s transfer from the session's delegate queue, the one place where a cancel
    /// cannot race the transfer's completion (see `URLSessionTask.cancelHoldingDelegateQueue()`).
    private static func cancel(_ task: URLSessionTask, on delegateQueue: OperationQueue) {
        delegateQueue.addOperation { task.cancelHoldingDelegateQueue() }
    }

    private static func urlRequest(for request: MSALHTTPRequest, limits: MSALHTTPLimits) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpShouldHandleCookies = false
        urlRequest.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        // URLSession's own timer is only a backstop: on Linux it counts whole seconds (0.5 s would
        // become 1 ms). The exchange's watchdog enforces the real limits first.
        urlRequest.timeoutInterval =
            (MSALHTTPLimits.boundedSeconds(max(limits.connectTimeout, limits.totalTimeout)) + 1).rounded(.up)
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if let body = request.body {
            urlRequest.httpBody = Data(body)
        }
        return urlRequest
    }

    /// Maps a `URLSession` failure to an ``MSALFailure`` (or `CancellationError` for a canceled transfer).
    ///
    /// On Linux, libcurl failures other than timeouts and refused or lost connections all arrive as
    /// `URLError.unknown`; a TLS failure is recognised there by libcurl's message (which names SSL,
    /// TLS or the certificate).
    static func mapError(_ error: any Error, host: String) -> any Error {
        if error is CancellationError || error is MSALFailure { return error }
        let nsError = error as NSError
        let description = [nsError.localizedDescription, (nsError.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription]
            .compactMap { $0 }.joined(separator: " ")
        let code = nsError.domain == NSURLErrorDomain ? URLError.Code(rawValue: nsError.code) : nil
        let internalCode: MSALInternalError
        switch code {
        case .cancelled?:
            return CancellationError()
        case .timedOut?:
            internalCode = .networkTimeout
        case .secureConnectionFailed?, .serverCertificateHasBadDate?, .serverCertificateUntrusted?,
            .serverCertificateHasUnknownRoot?, .serverCertificateNotYetValid?, .clientCertificateRejected?,
            .clientCertificateRequired?:
            internalCode = .tlsFailure
        default:
            let lowered = description.lowercased()
            let mentionsTLS = ["ssl", "tls", "certificate"].contains { lowered.contains($0) }
            internalCode = mentionsTLS ? .tlsFailure : .networkFailure
        }
        let what: String
        switch internalCode {
        case .networkTimeout: what = "timed out"
        case .tlsFailure: what = "failed to establish a secure connection"
        default: what = "failed"
        }
        return MSALFailure(
            .internal, internalCode: internalCode,
            message: "The request to \(host) \(what): \(OAuthErrorResponse.sanitized(description, limit: 300))",
            underlyingError: MSALSendableErrorDescription(domain: nsError.domain, code: nsError.code, description: description))
    }
}
