import Logging

/// How much swift-msal logs. Raw values are MSAL for iOS's (`MSALLogLevelNothing` … `MSALLogLevelVerbose`).
///
/// A message is emitted when its level is at or below ``MSALLoggerConfig/logLevel``:
/// `.warning` emits errors and warnings, `.verbose` everything.
public enum MSALLogLevel: Int, Sendable, CaseIterable, Hashable, Comparable {
    /// Nothing is logged.
    case nothing = 0
    /// Failures only. The default.
    case error = 1
    /// Failures and unexpected situations swift-msal recovered from.
    case warning = 2
    /// Entry points of the library, with their (masked) parameters.
    case info = 3
    /// Tracing of every step.
    case verbose = 4

    /// The most detailed level (`MSALLogLevelLast`).
    public static let last = MSALLogLevel.verbose

    /// Orders levels by their raw values: `.nothing` < `.error` < … < `.verbose`.
    public static func < (lhs: MSALLogLevel, rhs: MSALLogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The swift-log level a message of this level is logged at; `nil` for ``nothing``.
    ///
    /// error → `.error`, warning → `.warning`, info → `.info`, verbose → `.debug`.
    package var swiftLogLevel: Logger.Level? {
        switch self {
        case .nothing: nil
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .verbose: .debug
        }
    }
}
