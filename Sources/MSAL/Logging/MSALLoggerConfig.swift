import Logging
import MSALSupport

/// Receives swift-msal's log messages: the level, the message line, and whether the line
/// shows personal data (it never shows secrets).
public typealias MSALLogCallback = @Sendable (_ level: MSALLogLevel, _ message: String?, _ containsPII: Bool) -> Void

/// Where swift-msal's log messages go, and how much they say.
///
/// Use the one shared instance, ``MSALGlobalConfig/loggerConfig``; changes apply at once to every
/// ``MSALPublicClientApplication`` in the process, from any thread.
///
/// ```swift
/// MSALGlobalConfig.loggerConfig.logLevel = .verbose
/// MSALGlobalConfig.loggerConfig.logMaskingLevel = .settingsMaskEUIIOnly
/// MSALGlobalConfig.loggerConfig.setLogCallback { level, message, containsPII in
///     if let message, !containsPII { print(message) }
/// }
/// ```
///
/// Every message at or below ``logLevel`` goes to the callback, when one is set, and to a
/// swift-log `Logger`: ``logger`` when the app sets one, otherwise
/// `Logger(label: "com.microsoft.identity.msal")` from the app's `LoggingSystem` (whose own level
/// filters it further). Each message is one line:
/// `MSAL.Swift.Linux <version> [<UTC time> - <correlation id>] <text>`.
public final class MSALLoggerConfig: Sendable {
    /// The label of the swift-log `Logger` used when ``logger`` is `nil`.
    public static let defaultLoggerLabel = "com.microsoft.identity.msal"

    private struct State {
        var logLevel: MSALLogLevel
        var logMaskingLevel: MSALLogMaskingLevel
        var callback: MSALLogCallback?
        var logger: Logger?
        /// `Logger(label: defaultLoggerLabel)`, made at the first message that needs it, so that an
        /// app bootstrapping `LoggingSystem` at launch gets its own handler.
        var defaultLogger: Logger?
    }

    /// Where one message goes: the masking to render it with, the callback and the `Logger`.
    package struct Outputs: Sendable {
        package var maskingLevel: MSALLogMaskingLevel
        package var callback: MSALLogCallback?
        package var logger: Logger
    }

    private let state: Mutex<State>

    /// The fast check of ``MSALLogger``: the log level's raw value in the low byte, and above it
    /// (`count << 8`) the number of ``MSALLogCapture`` scopes open on this configuration. A logger
    /// whose level is off and sees no capture scope returns after this one relaxed load.
    package let gate: Atomic<Int>

    /// Mask of ``gate``'s log-level byte.
    package static let gateLevelMask = 0xFF

    /// Creates a configuration. Apps use ``MSALGlobalConfig/loggerConfig``; separate instances
    /// are for tests of the logging itself.
    package init(logLevel: MSALLogLevel = .error, logMaskingLevel: MSALLogMaskingLevel = .settingsMaskAllPII) {
        state = Mutex(State(logLevel: logLevel, logMaskingLevel: logMaskingLevel))
        gate = Atomic(logLevel.rawValue)
    }

    /// The most detailed level logged. Default ``MSALLogLevel/error``; ``MSALLogLevel/nothing``
    /// turns logging off.
    ///
    /// MSAL for iOS's default is `info`, but it only ever hands messages to the app's callback.
    /// swift-msal also writes them to a swift-log `Logger` when the app set no callback, and
    /// swift-log's default handler prints to standard error: with `info`, every program that has
    /// not configured logging would print each request's progress on its terminal. Set `.info`
    /// for MSAL for iOS's level.
    public var logLevel: MSALLogLevel {
        get { state.withLock { $0.logLevel } }
        set {
            state.withLock { state in
                // The capture count shares the gate and changes concurrently, so the level byte is
                // moved by the difference rather than stored; level writes are serialized by the lock.
                let delta = newValue.rawValue - state.logLevel.rawValue
                state.logLevel = newValue
                gate.wrappingAdd(delta, ordering: .relaxed)
            }
        }
    }

    /// How much personal data messages show. Default ``MSALLogMaskingLevel/settingsMaskAllPII``.
    public var logMaskingLevel: MSALLogMaskingLevel {
        get { state.withLock { $0.logMaskingLevel } }
        set { state.withLock { $0.logMaskingLevel = newValue } }
    }

    /// Whether messages may show personal data: `true` is ``MSALLogMaskingLevel/settingsMaskSecretsOnly``,
    /// `false` ``MSALLogMaskingLevel/settingsMaskAllPII``.
    @available(*, deprecated, message: "Use logMaskingLevel instead")
    public var piiEnabled: Bool {
        get { logMaskingLevel != .settingsMaskAllPII }
        set { logMaskingLevel = newValue ? .settingsMaskSecretsOnly : .settingsMaskAllPII }
    }

    /// The swift-log `Logger` messages go to; `nil` (the default) uses
    /// `Logger(label: "com.microsoft.identity.msal")` from the app's `LoggingSystem`.
    ///
    /// The logger's own `logLevel` filters further: a message goes out only when both
    /// ``logLevel`` and the logger allow it. MSAL levels map to swift-log's as
    /// error → `.error`, warning → `.warning`, info → `.info`, verbose → `.debug`, with the
    /// correlation id in the metadata key `correlation_id`.
    public var logger: Logger? {
        get { state.withLock { $0.logger } }
        set { state.withLock { $0.logger = newValue } }
    }

    /// Sets the block that receives every message at or below ``logLevel``; `nil` removes it.
    ///
    /// The block is called on the thread that logs, outside any swift-msal lock; keep it short.
    /// Messages never contain secrets; `containsPII` says whether one shows personal data that
    /// ``logMaskingLevel`` let through, so a block can drop those before writing to a shared log.
    public func setLogCallback(_ callback: MSALLogCallback?) {
        state.withLock { $0.callback = callback }
    }

    /// The block set with ``setLogCallback(_:)``, if any.
    public func callback() -> MSALLogCallback? {
        state.withLock { $0.callback }
    }

    /// Where a message of `level` goes, or `nil` when it goes nowhere: above ``logLevel``, or no
    /// callback and a `Logger` whose level filters it out.
    package func outputs(for level: MSALLogLevel) -> Outputs? {
        guard let swiftLogLevel = level.swiftLogLevel else { return nil }
        let snapshot = state.withLock { state -> (Outputs?, needsDefaultLogger: Bool) in
            guard level <= state.logLevel else { return (nil, false) }
            guard let logger = state.logger ?? state.defaultLogger else { return (nil, true) }
            return (Outputs(maskingLevel: state.logMaskingLevel, callback: state.callback, logger: logger), false)
        }
        var outputs = snapshot.0
        if snapshot.needsDefaultLogger {
            // Made outside the lock: LoggingSystem runs the app's handler factory.
            let made = Logger(label: Self.defaultLoggerLabel)
            outputs = state.withLock { state in
                if state.defaultLogger == nil { state.defaultLogger = made }
                guard level <= state.logLevel, let logger = state.logger ?? state.defaultLogger else { return nil }
                return Outputs(maskingLevel: state.logMaskingLevel, callback: state.callback, logger: logger)
            }
        }
        guard let outputs else { return nil }
        if outputs.callback == nil, outputs.logger.logLevel > swiftLogLevel { return nil }
        return outputs
    }

    /// Opens one ``MSALLogCapture`` scope (see ``gate``).
    package func openCaptureScope() {
        gate.wrappingAdd(Self.gateLevelMask + 1, ordering: .relaxed)
    }

    /// Closes a scope opened with ``openCaptureScope()``.
    package func closeCaptureScope() {
        gate.wrappingSubtract(Self.gateLevelMask + 1, ordering: .relaxed)
    }
}
