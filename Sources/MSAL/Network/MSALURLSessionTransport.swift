import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``MSALHTTPTransport``: FoundationNetworking's `URLSession`, configured for an
/// identity provider: ephemeral (no cookies, no URL cache, no credential storage), redirects never
/// followed, the response body capped while it streams, and a total deadline that a server
/// trickling bytes cannot stretch.
public final class MSALURLSessionTransport: MSALHTTPTransport {
    private let session: URLSession
    private let delegate: SessionDelegate

    /// Creates a transport with its own session.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegate = SessionDelegate()
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends one request; see ``MSALHTTPTransport/send(_:limits:)``.
    public func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        if let body = request.body, body.count > limits.maximumRequestBodySize {
            throw MSALError(
                .internal, internalCode: .bodyTooLarge,
                message: "The request body (\(body.count) bytes) exceeds the \(limits.maximumRequestBodySize)-byte cap.")
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = limits.connectTimeout
        urlRequest.httpShouldHandleCookies = false
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let task = session.dataTask(with: urlRequest)
        let host = request.url.host ?? "the server"
        let deadline = Task { [weak task] in
            try await Task.sleep(nanoseconds: UInt64(max(limits.totalTimeout, 0.001) * 1_000_000_000))
            self.delegate.fail(taskID: task?.taskIdentifier ?? -1, with: MSALError(
                .internal, internalCode: .networkTimeout,
                message: "The request to \(host) did not complete within \(limits.totalTimeout) s."))
            task?.cancel()
        }
        defer { deadline.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.register(taskID: task.taskIdentifier, limit: limits.maximumResponseBodySize, host: host, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Collects each task's response and resumes its continuation exactly once.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var continuation: CheckedContinuation<MSALHTTPResponse, any Error>
        var limit: Int
        var host: String
        var response: HTTPURLResponse?
        var body: [UInt8] = []
        var failure: MSALError?
    }

    private let pending = Mutex<[Int: Pending]>([:])

    func register(taskID: Int, limit: Int, host: String, continuation: CheckedContinuation<MSALHTTPResponse, any Error>) {
        pending.withLock { $0[taskID] = Pending(continuation: continuation, limit: limit, host: host) }
    }

    /// Records the error the task will end with (deadline, size cap); the completion callback reports it.
    func fail(taskID: Int, with error: MSALError) {
        pending.withLock { state in
            if state[taskID]?.failure == nil { state[taskID]?.failure = error }
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let allow: Bool = pending.withLock { state in
            guard var entry = state[dataTask.taskIdentifier] else { return false }
            entry.response = http
            if let http, let length = http.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init), length > entry.limit {
                entry.failure = Self.tooLarge(entry)
                state[dataTask.taskIdentifier] = entry
                return false
            }
            state[dataTask.taskIdentifier] = entry
            return true
        }
        completionHandler(allow ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let exceeded: Bool = pending.withLock { state in
            guard var entry = state[dataTask.taskIdentifier], entry.failure == nil else { return false }
            if entry.body.count + data.count > entry.limit {
                entry.failure = Self.tooLarge(entry)
                entry.body = []
                state[dataTask.taskIdentifier] = entry
                return true
            }
            entry.body.append(contentsOf: data)
            state[dataTask.taskIdentifier] = entry
            return false
        }
        if exceeded { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = entry.failure {
            entry.continuation.resume(throwing: failure)
        } else if let error {
            entry.continuation.resume(throwing: Self.map(error, host: entry.host))
        } else if let response = entry.response ?? (task.response as? HTTPURLResponse) {
            var headers = MSALHTTPHeaders()
            for (name, value) in response.allHeaderFields {
                headers.add(name: String(describing: name), value: String(describing: value))
            }
            entry.continuation.resume(returning: MSALHTTPResponse(statusCode: response.statusCode, headers: headers, body: entry.body))
        } else {
            entry.continuation.resume(throwing: MSALError(.internal, internalCode: .networkFailure, message: "\(entry.host) sent no HTTP response."))
        }
    }

    private static func tooLarge(_ entry: Pending) -> MSALError {
        MSALError(.internal, internalCode: .bodyTooLarge, message: "The response from \(entry.host) exceeds the \(entry.limit)-byte cap.")
    }

    private static func map(_ error: any Error, host: String) -> MSALError {
        let nsError = error as NSError
        let code = URLError.Code(rawValue: nsError.code)
        let internalCode: MSALInternalError
        let what: String
        switch code {
        case .timedOut:
            (internalCode, what) = (.networkTimeout, "timed out")
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            (internalCode, what) = (.tlsFailure, "failed TLS")
        case .cancelled:
            (internalCode, what) = (.networkFailure, "was canceled")
        default:
            (internalCode, what) = (.networkFailure, "failed")
        }
        let sendable = MSALSendableErrorDescription(domain: nsError.domain, code: nsError.code, description: nsError.localizedDescription)
        return MSALError(.internal, internalCode: internalCode, message: "The request to \(host) \(what): \(nsError.localizedDescription)", underlyingError: sendable)
    }
}

/// A Foundation networking error reduced to Sendable values.
public struct MSALSendableErrorDescription: Error, Sendable, CustomStringConvertible {
    /// The error domain, such as `NSURLErrorDomain`.
    public var domain: String
    /// The error code.
    public var code: Int
    /// The localized description.
    public var description: String
}
