import Foundation
import MSALSupport

/// The state of one request sent by ``MSALCurlTransport`` (or `MSALURLSessionTransport` in the opt-in `MSALURLSession` module): the response
/// collected so far, the activity time the timeouts are measured from, and how to resume the caller
/// waiting on it.
///
/// Whatever happens first — the transfer completing, the body cap, a timeout, the caller's task being
/// canceled — finishes the exchange exactly once; later events are ignored.
package final class TransportExchange: Sendable {
    private struct State {
        var resume: (@Sendable (Result<MSALHTTPResponse, any Error>) -> Void)?
        var outcome: Result<MSALHTTPResponse, any Error>?
        var statusCode: Int?
        var headers = MSALHTTPHeaders()
        var body: [UInt8] = []
        var lastActivity: ContinuousClock.Instant
    }

    package let limits: MSALHTTPLimits
    package let host: String
    private let start: ContinuousClock.Instant
    private let state: Mutex<State>

    package init(limits: MSALHTTPLimits, host: String) {
        self.limits = limits
        self.host = host
        let now = ContinuousClock.now
        self.start = now
        self.state = Mutex(State(lastActivity: now))
    }

    /// Whether the exchange has finished.
    package var isFinished: Bool {
        state.withLock { $0.outcome != nil }
    }

    /// Registers how to resume the caller (its continuation's `resume(with:)`; a closure, so that no
    /// continuation type, which ThreadSanitizer builds shadow per module, is part of this package API).
    /// Returns `false` (and resumes at once) when the exchange already finished, for example because the
    /// caller was canceled before the transfer started.
    package func install(_ resume: @escaping @Sendable (Result<MSALHTTPResponse, any Error>) -> Void) -> Bool {
        let finished: Result<MSALHTTPResponse, any Error>? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.resume = resume
            return nil
        }
        if let finished {
            resume(finished)
            return false
        }
        return true
    }

    /// Ends the exchange with `outcome` unless it already ended. Returns whether this call ended it.
    @discardableResult
    package func finish(_ outcome: Result<MSALHTTPResponse, any Error>) -> Bool {
        let (ended, resume): (Bool, (@Sendable (Result<MSALHTTPResponse, any Error>) -> Void)?) = state.withLock { state in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.resume = nil }
            return (true, state.resume)
        }
        resume?(outcome)
        return ended
    }

    /// Records the response head. Returns an error when its `Content-Length` is invalid (repeated with
    /// different values, not a plain number, overflowing: the body's framing is ambiguous, and neither
    /// libcurl nor corelibs Foundation refuses it) or declares a body over the cap.
    package func receive(statusCode: Int, headers: MSALHTTPHeaders) -> MSALFailure? {
        state.withLock { state in
            state.lastActivity = .now
            state.statusCode = statusCode
            state.headers = headers
        }
        switch headers.declaredContentLength() {
        case .success(let declared?) where declared > Int64(limits.maximumResponseBodySize):
            return tooLarge("declares a \(declared)-byte body")
        case .success:
            return nil
        case .failure(let invalid):
            return MSALFailure(
                .internal, internalCode: .networkFailure,
                message: "The response from \(host) has an invalid Content-Length (\(invalid.values))")
        }
    }

    /// Appends body bytes. Returns an error as soon as the body is over the cap.
    package func append(_ data: Data) -> MSALFailure? {
        data.withUnsafeBytes { append($0) }
    }

    /// Appends body bytes. Returns an error as soon as the body is over the cap.
    package func append(_ bytes: UnsafeRawBufferPointer) -> MSALFailure? {
        let size: Int? = state.withLock { state in
            state.lastActivity = .now
            let size = state.body.count + bytes.count
            guard size <= limits.maximumResponseBodySize else { return size }
            state.body.append(contentsOf: bytes)
            return nil
        }
        return size.map { tooLarge("sent a body of at least \($0) bytes") }
    }

    /// Records activity (a header line arriving) for the idle timeout.
    package func touch() {
        state.withLock { $0.lastActivity = .now }
    }

    /// The timeout error when a deadline has passed at `now`, or the next instant to check again;
    /// `nil` once finished.
    package func checkDeadlines(now: ContinuousClock.Instant) -> Result<ContinuousClock.Instant, MSALFailure>? {
        let lastActivity: ContinuousClock.Instant? = state.withLock { $0.outcome == nil ? $0.lastActivity : nil }
        guard let lastActivity else { return nil }
        let total = start.advanced(by: limits.totalDuration)
        let idle = lastActivity.advanced(by: limits.idleDuration)
        if now >= total {
            return .failure(
                MSALFailure(
                    .internal, internalCode: .networkTimeout,
                    message: "The request to \(host) did not complete within the total timeout of \(limits.totalTimeout) s"))
        }
        if now >= idle {
            return .failure(
                MSALFailure(
                    .internal, internalCode: .networkTimeout,
                    message: "The request to \(host) received nothing for \(limits.connectTimeout) s (connect/idle timeout)"))
        }
        return .success(min(total, idle))
    }

    /// Ends the exchange with the response collected so far (`fallbackStatus` and `fallbackHeaders`
    /// when no head was recorded), or with ``MSALInternalError/networkFailure`` when there is none.
    package func finishWithCollectedResponse(fallbackStatus: Int? = nil, fallbackHeaders: MSALHTTPHeaders = [:]) {
        let response = state.withLock { state -> MSALHTTPResponse? in
            guard let status = state.statusCode ?? fallbackStatus else { return nil }
            return MSALHTTPResponse(
                statusCode: status, headers: state.statusCode == nil ? fallbackHeaders : state.headers, body: state.body)
        }
        if let response {
            finish(.success(response))
        } else {
            finish(
                .failure(
                    MSALFailure(
                        .internal, internalCode: .networkFailure,
                        message: "The request to \(host) completed without an HTTP response")))
        }
    }

    /// Finishes the exchange with a timeout and calls `cancel` when a deadline passes.
    ///
    /// The checks run on a Dispatch timer, not on the Swift concurrency pool: a deadline must fire
    /// even when every cooperative thread is busy (an app blocking them, a cache lock wait).
    package func watchDeadlines(cancel: @escaping @Sendable () -> Void) {
        switch checkDeadlines(now: .now) {
        case nil:
            return
        case .failure(let timeout):
            if finish(.failure(timeout)) { cancel() }
        case .success(let next):
            let delay = ContinuousClock.now.duration(to: next)
            let (seconds, attoseconds) = delay.components
            let nanoseconds = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)) + 1_000_000
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                self.watchDeadlines(cancel: cancel)
            }
        }
    }

    private func tooLarge(_ detail: String) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .bodyTooLarge,
            message: "The response from \(host) \(detail), over the \(limits.maximumResponseBodySize)-byte limit")
    }
}
