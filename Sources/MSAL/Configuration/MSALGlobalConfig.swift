import MSALSupport

/// Settings that apply to every ``MSALPublicClientApplication`` in the process, as in MSAL for iOS.
///
/// ```swift
/// MSALGlobalConfig.loggerConfig.logLevel = .info
/// MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = 20
/// ```
public enum MSALGlobalConfig {
    // The two instances below are the library's only process-wide mutable state, and on purpose:
    // MSAL for iOS's API is a process-wide configuration (`MSALGlobalConfig.loggerConfig`,
    // `.httpConfig`) that apps set once at launch and expect every application object to obey.
    // The constants are immutable references; what changes is inside each object, behind a Mutex
    // (and, for the log level, an atomic), so reads and writes are safe from any thread.

    /// Logging: level, masking of personal data, callback and swift-log `Logger`.
    public static let loggerConfig = MSALLoggerConfig()

    /// HTTP: retries and timeouts of requests to the identity provider.
    public static let httpConfig = MSALHTTPConfig()
}
