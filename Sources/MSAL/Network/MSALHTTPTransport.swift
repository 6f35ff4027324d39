import Foundation

/// Sends HTTP requests for swift-msal.
///
/// The default is ``MSALCurlTransport``; `MSALURLSessionTransport`, in the opt-in `MSALURLSession` product,
/// is the alternative on Foundation's `URLSession`. Replace it to route requests through your own HTTP client, or with
/// `MSALReplayTransport` from `MSALTesting` to replay recorded traffic.
///
/// A transport sends exactly one request per call: it must not retry, follow redirects, or
/// add headers of its own; swift-msal does that above it. It returns every HTTP response,
/// whatever its status, and throws only when no response was received. Throw an
/// ``MSALFailure`` with internal code ``MSALInternalError/networkFailure``,
/// ``MSALInternalError/networkTimeout``, ``MSALInternalError/tlsFailure`` or
/// ``MSALInternalError/bodyTooLarge`` when you can; any other error is wrapped as a network failure.
public protocol MSALHTTPTransport: Sendable {
    /// Sends `request` and returns the response.
    ///
    /// - Parameters:
    ///   - request: The request to send, exactly once: no retries, no redirects followed.
    ///   - limits: The caps the response must respect; stop reading and throw
    ///     ``MSALInternalError/bodyTooLarge`` when the body exceeds ``MSALHTTPLimits/maximumResponseBodySize``.
    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse
}

/// Size caps and timeouts for one request.
public struct MSALHTTPLimits: Sendable, Hashable {
    /// The largest response body accepted, in bytes. Default 1 MiB.
    public var maximumResponseBodySize: Int
    /// The largest request body sent, in bytes. Default 256 KiB.
    public var maximumRequestBodySize: Int
    /// Seconds to wait for a connection and, once connected, for each next byte. Default 10 s.
    public var connectTimeout: Double
    /// Seconds the whole exchange may take, however fast bytes arrive. Default 30 s.
    public var totalTimeout: Double

    /// Creates limits.
    public init(
        maximumResponseBodySize: Int = 1 << 20,
        maximumRequestBodySize: Int = 256 << 10,
        connectTimeout: Double = 10,
        totalTimeout: Double = 30
    ) {
        self.maximumResponseBodySize = maximumResponseBodySize
        self.maximumRequestBodySize = maximumRequestBodySize
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
    }

    /// The defaults.
    public static let `default` = MSALHTTPLimits()
}
