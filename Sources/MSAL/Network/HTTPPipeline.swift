import Foundation

/// Settings of the ``HTTPPipeline``.
package struct HTTPPipelineConfiguration: Sendable {
    /// Caps and timeouts passed to the transport.
    package var limits: MSALHTTPLimits = .default
    /// Retries of an idempotent request after a 5xx, a timeout or a network failure (0 or 1).
    package var retryCount = 1
    /// Seconds to wait before the retry.
    package var retryInterval: Double = 0.5
    /// A 5xx whose `Retry-After` is longer than this is not retried but throttled.
    package var maximumRetryWait: Double = 5
    /// Longest `Retry-After` honoured, in seconds (longer values are clamped; MSAL for Python: 3600).
    package var maximumRetryAfter: Double = 3600
    /// How long a 429 or 5xx without a usable `Retry-After` throttles repeats, in seconds (MSAL.NET: 60).
    package var defaultThrottle: Double = 60

    package init() {}
}

/// What every identity-platform request goes through: telemetry and correlation headers,
/// size caps, one retry of idempotent requests, and the throttling cache.
package struct HTTPPipeline: Sendable {
    package let transport: any MSALHTTPTransport
    package let clock: any MSALClock
    package let configuration: HTTPPipelineConfiguration
    package let throttling: ThrottlingCache

    package init(
        transport: any MSALHTTPTransport,
        clock: any MSALClock = MSALSystemClock(),
        configuration: HTTPPipelineConfiguration = HTTPPipelineConfiguration(),
        throttling: ThrottlingCache = ThrottlingCache()
    ) {
        self.transport = transport
        self.clock = clock
        self.configuration = configuration
        self.throttling = throttling
    }

    /// The telemetry headers of protocol.md.
    package static let telemetryHeaders: [(String, String)] = [
        ("x-client-SKU", "MSAL.Swift.Linux"),
        ("x-client-Ver", MSALVersion),
        ("x-client-OS", operatingSystemRelease()),
        ("x-ms-lib-capability", "retry-after, h429"),
        ("return-client-request-id", "true"),
    ]

    /// Sends `request` with the telemetry headers and `correlationID`.
    ///
    /// Returns 2xx and 4xx responses other than 429 for the caller to interpret. Throws an
    /// ``MSALFailure``: network failures, a 3xx (``MSALInternalError/unexpectedRedirect``; never
    /// followed), 429 and 5xx (``MSALError/internal``, as MSAL for iOS reports them, after the retry; internal code
    /// ``MSALInternalError/throttled`` for a 429 or a `Retry-After`), and repeats of a
    /// throttled request (the stored error with ``MSALFailure/isThrottlingCacheHit``), which never reach the transport.
    ///
    /// `eachAttempt` adds what must be made afresh for every attempt, the retry included (a DPoP
    /// proof, whose `jti` a server refuses to see twice).
    package func send(
        _ request: MSALHTTPRequest, correlationID: UUID, eachAttempt: (@Sendable (inout MSALHTTPRequest) throws(MSALFailure) -> Void)? = nil
    ) async throws -> MSALHTTPResponse {
        var request = request
        if request.sendsMicrosoftHeaders {
            for (name, value) in Self.telemetryHeaders where !request.headers.contains(name) {
                request.headers.add(name: name, value: value)
            }
            request.headers.replaceOrAdd(name: "client-request-id", value: correlationID.uuidString.lowercased())
        }
        let host = request.url.host ?? "the server"

        if var throttled = throttling.throttledError(for: request, now: clock.now()) {
            throttled.isThrottlingCacheHit = true
            throttled.correlationID = correlationID
            throttled.message = "Throttled: the server asked not to repeat this request yet. " + throttled.message
            throw throttled
        }
        if let body = request.body, body.count > configuration.limits.maximumRequestBodySize {
            throw MSALFailure(
                .internal, internalCode: .bodyTooLarge,
                message: "The request body (\(body.count) bytes) exceeds the \(configuration.limits.maximumRequestBodySize)-byte cap.",
                correlationID: correlationID)
        }

        var schedule = RetrySchedule(
            .pipeline(
                idempotent: request.isIdempotent, retries: configuration.retryCount, interval: configuration.retryInterval,
                maximumRetryWait: configuration.maximumRetryWait))
        while true {
            let response: MSALHTTPResponse
            var attempt = request
            if let eachAttempt {
                do throws(MSALFailure) {
                    try eachAttempt(&attempt)
                } catch {
                    throw error.correlated(correlationID)
                }
            }
            do {
                response = try await transport.send(attempt, limits: configuration.limits)
            } catch {
                if error is CancellationError { throw error }
                var failure = Self.networkError(error, host: host, correlationID: correlationID)
                let kind: RetrySchedule.Failure? =
                    switch failure.internalCode {
                    case .networkTimeout: .timeout
                    case .networkFailure: .networkFailure
                    default: nil
                    }
                if let kind, !Task.isCancelled, case .retry(let seconds) = schedule.next(after: kind) {
                    try await clock.sleep(seconds: seconds)
                    continue
                }
                failure.correlationID = correlationID
                throw failure
            }

            switch response.statusCode {
            case 300..<400:
                var error = MSALFailure(
                    response: response, code: .internal, internalCode: .unexpectedRedirect,
                    context: "The request to \(host) was redirected (not followed);", correlationID: correlationID)
                error.message += response.headers["Location"].map { " Location: \(OAuthErrorResponse.sanitized($0, limit: 200))" } ?? ""
                throw error
            case 429, 500..<600:
                let now = clock.now()
                let retryAfter = RetryAfter.seconds(response.headers["Retry-After"], now: now, maximum: configuration.maximumRetryAfter)
                if case .retry(let seconds) = schedule.next(after: .status(response.statusCode, retryAfter: retryAfter)) {
                    try await clock.sleep(seconds: seconds)
                    continue
                }
                // 429, or a 5xx that names a time to come back: the server throttled the client.
                let throttled = response.statusCode == 429 || retryAfter != nil
                let error = MSALFailure(
                    response: response, code: .internal, internalCode: throttled ? .throttled : .internalErrorUnhandledResponse,
                    context: "The request to \(host)", correlationID: correlationID)
                let wait = retryAfter ?? configuration.defaultThrottle
                if wait > 0 {
                    throttling.record(request, error: error, until: clock.now().addingTimeInterval(wait))
                }
                throw error
            default:
                return response
            }
        }
    }

    private static func networkError(_ error: any Error, host: String, correlationID: UUID) -> MSALFailure {
        if let error = error as? MSALFailure { return error }
        return MSALFailure(
            .internal, internalCode: .networkFailure, message: "The request to \(host) failed: \(error)",
            correlationID: correlationID,
            underlyingError: MSALSendableErrorDescription(domain: "\(type(of: error))", code: 0, description: "\(error)"))
    }

    /// The kernel release, as `uname -r` prints it.
    private static func operatingSystemRelease() -> String {
        var name = utsname()
        guard uname(&name) == 0 else { return "Linux" }
        let release = withUnsafeBytes(of: &name.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return release.isEmpty ? "Linux" : "Linux " + release
    }
}
