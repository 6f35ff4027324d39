import Foundation

/// Settings of the ``HTTPPipeline``.
package struct HTTPPipelineConfiguration: Sendable {
    /// Caps and timeouts passed to the transport.
    package var limits: MSALHTTPLimits = .default
    /// Retries of an idempotent request after a 5xx or a timeout (0 or 1).
    package var retryCount = 1
    /// Seconds to wait before the retry.
    package var retryInterval: Double = 1
    /// Longest `Retry-After` honoured, in seconds (longer values are clamped).
    package var maximumRetryAfter: Double = 3600
    /// How long a 5xx without `Retry-After` throttles repeats, in seconds.
    package var defaultServerErrorThrottle: Double = 60

    package init() {}
}

/// What every identity-platform request goes through: telemetry and correlation headers,
/// size caps, one retry of idempotent requests, and the throttling cache.
package struct HTTPPipeline: Sendable {
    package let transport: any MSALHTTPTransport
    package let clock: any MSALClock
    package let configuration: HTTPPipelineConfiguration

    package init(
        transport: any MSALHTTPTransport,
        clock: any MSALClock = MSALSystemClock(),
        configuration: HTTPPipelineConfiguration = HTTPPipelineConfiguration()
    ) {
        self.transport = transport
        self.clock = clock
        self.configuration = configuration
    }

    /// Sends `request` with the telemetry headers and `correlationID`.
    ///
    /// Returns every response the caller must interpret (2xx, 3xx, 4xx other than 429).
    /// Throws an ``MSALError``: network failures, 429 and 5xx (after the retry), and throttled repeats.
    package func send(_ request: MSALHTTPRequest, correlationID: UUID) async throws -> MSALHTTPResponse {
        var request = request
        request.headers.replaceOrAdd(name: "client-request-id", value: correlationID.uuidString.lowercased())
        do {
            return try await transport.send(request, limits: configuration.limits)
        } catch let error as MSALError {
            throw error
        } catch {
            throw MSALError(.internal, internalCode: .networkFailure, message: "The request to \(request.url.host ?? "the server") failed: \(error)", correlationID: correlationID)
        }
    }
}
