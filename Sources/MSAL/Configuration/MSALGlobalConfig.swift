import MSALSupport

/// Settings that apply to every ``MSALPublicClientApplication`` in the process, as in MSAL for iOS.
///
/// ```swift
/// MSALGlobalConfig.loggerConfig.logLevel = .info
/// MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = 20
/// MSALGlobalConfig.telemetryConfig.telemetryCallback = { event in print(event["msal.api_id"] ?? "") }
/// ```
public enum MSALGlobalConfig {
    // The three instances below are the library's only process-wide mutable state, and on purpose:
    // MSAL for iOS's API is a process-wide configuration (`MSALGlobalConfig.loggerConfig`,
    // `.httpConfig`, `.telemetryConfig`) that apps set once at launch and expect every application
    // object to obey. The constants are immutable references; what changes is inside each object,
    // behind a Mutex (and, for the log level and whether a telemetry callback is set, an atomic, so
    // that a token call with logging or telemetry off pays one relaxed load), so reads and writes
    // are safe from any thread.

    /// Logging: level, masking of personal data, callback and swift-log `Logger`.
    public static let loggerConfig = MSALLoggerConfig()

    /// HTTP: retries and timeouts of requests to the identity provider.
    public static let httpConfig = MSALHTTPConfig()

    /// Telemetry: the callback that receives one event per token call, and what events may contain.
    public static let telemetryConfig = MSALTelemetryConfig()
}
