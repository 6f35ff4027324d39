import Foundation
import MSALSupport

/// Retries and timeouts of swift-msal's requests to the identity provider.
///
/// Use the one shared instance, ``MSALGlobalConfig/httpConfig``; changes apply to requests
/// started afterwards by every ``MSALPublicClientApplication`` in the process. Times are in
/// seconds. A value out of range is replaced when set (the property then reads the value in use):
/// a negative, NaN or zero timeout by its default, a longer one by the one-hour maximum.
public final class MSALHTTPConfig: Sendable {
    /// Longest accepted ``timeoutIntervalForRequest`` and ``timeoutIntervalForResource``, in seconds.
    public static let maximumTimeout: TimeInterval = 3600
    /// Longest accepted ``retryInterval``, in seconds.
    public static let maximumRetryInterval: TimeInterval = 60

    private struct State {
        var retryCount: Int
        var retryInterval: TimeInterval
        var timeoutIntervalForRequest: TimeInterval
        var timeoutIntervalForResource: TimeInterval
    }

    private static let defaults = HTTPPipelineConfiguration()

    private let state: Mutex<State>

    /// Creates a configuration with the defaults. Apps use ``MSALGlobalConfig/httpConfig``.
    package init() {
        let defaults = Self.defaults
        state = Mutex(
            State(
                retryCount: defaults.retryCount,
                retryInterval: defaults.retryInterval,
                timeoutIntervalForRequest: defaults.limits.connectTimeout,
                timeoutIntervalForResource: defaults.limits.totalTimeout))
    }

    /// Retries of a request after a network failure, a timeout or a 5xx response. Default 1.
    ///
    /// Only idempotent requests are retried, and at most once: 0 turns retries off and any larger
    /// value means one retry. Negative values are stored as 0.
    public var retryCount: Int {
        get { state.withLock { $0.retryCount } }
        set { state.withLock { $0.retryCount = max(0, newValue) } }
    }

    /// Seconds to wait before a retry. Default 0.5 s, as MSAL for iOS; a longer `Retry-After` from
    /// the server wins.
    ///
    /// Negative or NaN values are replaced by the default; values above ``maximumRetryInterval`` by it.
    public var retryInterval: TimeInterval {
        get { state.withLock { $0.retryInterval } }
        set {
            let value = Self.clamped(newValue, default: Self.defaults.retryInterval, maximum: Self.maximumRetryInterval, allowsZero: true)
            state.withLock { $0.retryInterval = value }
        }
    }

    /// Seconds to wait for the connection and then for each next piece of the response, as
    /// `URLSessionConfiguration.timeoutIntervalForRequest`. Default 10 s
    /// (``MSALHTTPLimits/connectTimeout``).
    ///
    /// MSAL for iOS's default is 300 s, `URLSession`'s idle interval for an app whose user sees a
    /// spinner. swift-msal's callers are also services and command-line tools, where a request to a
    /// stalled endpoint that holds a worker or a terminal for five minutes is an outage of its own,
    /// so the default is 10 s; set 300 for MSAL for iOS's behaviour.
    public var timeoutIntervalForRequest: TimeInterval {
        get { state.withLock { $0.timeoutIntervalForRequest } }
        set {
            let value = Self.clamped(
                newValue, default: Self.defaults.limits.connectTimeout, maximum: Self.maximumTimeout, allowsZero: false)
            state.withLock { $0.timeoutIntervalForRequest = value }
        }
    }

    /// Seconds a whole request may take, however fast its bytes arrive, as
    /// `URLSessionConfiguration.timeoutIntervalForResource`. Default 30 s
    /// (``MSALHTTPLimits/totalTimeout``).
    public var timeoutIntervalForResource: TimeInterval {
        get { state.withLock { $0.timeoutIntervalForResource } }
        set {
            let value = Self.clamped(newValue, default: Self.defaults.limits.totalTimeout, maximum: Self.maximumTimeout, allowsZero: false)
            state.withLock { $0.timeoutIntervalForResource = value }
        }
    }

    /// The transport limits: the default size caps with these timeouts.
    package func limits() -> MSALHTTPLimits { pipelineConfiguration().limits }

    /// The ``HTTPPipeline`` settings for a request started now: the pipeline defaults with these
    /// retries and timeouts (read together, so a concurrent change is seen whole or not at all).
    package func pipelineConfiguration() -> HTTPPipelineConfiguration {
        let state = state.withLock { $0 }
        var configuration = Self.defaults
        configuration.retryCount = min(state.retryCount, 1)
        configuration.retryInterval = state.retryInterval
        configuration.limits.connectTimeout = state.timeoutIntervalForRequest
        configuration.limits.totalTimeout = state.timeoutIntervalForResource
        return configuration
    }

    private static func clamped(
        _ value: TimeInterval, default defaultValue: TimeInterval, maximum: TimeInterval, allowsZero: Bool
    ) -> TimeInterval {
        if value.isNaN || value < 0 || (value == 0 && !allowsZero) { return defaultValue }
        return min(value, maximum)
    }
}
