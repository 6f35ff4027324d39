import Foundation
import Logging

/// What swift-msal's own code logs through. Cheap to copy (one reference).
///
/// ```swift
/// let log = MSALLogger()
/// log.info("Silent request for \(public: scopes), account \(oii: account.identifier)", correlationID: correlationID)
/// log.error("Token request failed: \(error: error)", correlationID: correlationID)
/// ```
///
/// The message is an autoclosure: it is built only when its level is enabled, so a disabled
/// message costs one relaxed atomic load and no allocation. It then goes, rendered at the
/// configuration's masking level and redacted (see ``MSALLogMessage``), to the callback and the
/// swift-log `Logger` of ``MSALLoggerConfig``, and to the ``MSALLogSink`` of the current task
/// tree when a test captures one (``MSALLogCapture``).
package struct MSALLogger: Sendable {
    /// The configuration: ``MSALGlobalConfig/loggerConfig`` unless a test gives its own.
    package let config: MSALLoggerConfig

    /// The `source` swift-log receives.
    package static let source = "MSAL"
    /// The swift-log metadata key of the correlation id.
    package static let correlationIDMetadataKey = "correlation_id"

    /// A logger of `config`.
    package init(config: MSALLoggerConfig = MSALGlobalConfig.loggerConfig) {
        self.config = config
    }

    /// Whether a message of `level` may go anywhere: at or below the configured level, or a
    /// capture scope open. `false` means it certainly goes nowhere.
    package func isEnabled(_ level: MSALLogLevel) -> Bool {
        let gate = config.gate.load(ordering: .relaxed)
        if level.rawValue <= gate & MSALLoggerConfig.gateLevelMask || gate > MSALLoggerConfig.gateLevelMask {
            return level != .nothing
        }
        let global = MSALGlobalConfig.loggerConfig
        // Capture scopes are counted on the global configuration; a test's own configuration checks there too.
        return config !== global && global.gate.load(ordering: .relaxed) > MSALLoggerConfig.gateLevelMask && level != .nothing
    }

    /// Logs a failure.
    package func error(
        _ message: @autoclosure () -> MSALLogMessage, correlationID: UUID?,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard isEnabled(.error) else { return }
        emit(.error, message, correlationID: correlationID, file: file, function: function, line: line)
    }

    /// Logs an unexpected situation swift-msal recovered from.
    package func warning(
        _ message: @autoclosure () -> MSALLogMessage, correlationID: UUID?,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard isEnabled(.warning) else { return }
        emit(.warning, message, correlationID: correlationID, file: file, function: function, line: line)
    }

    /// Logs an entry point of the library.
    package func info(
        _ message: @autoclosure () -> MSALLogMessage, correlationID: UUID?,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard isEnabled(.info) else { return }
        emit(.info, message, correlationID: correlationID, file: file, function: function, line: line)
    }

    /// Logs a step.
    package func verbose(
        _ message: @autoclosure () -> MSALLogMessage, correlationID: UUID?,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard isEnabled(.verbose) else { return }
        emit(.verbose, message, correlationID: correlationID, file: file, function: function, line: line)
    }

    /// Logs at `level`.
    package func log(
        _ level: MSALLogLevel, _ message: @autoclosure () -> MSALLogMessage, correlationID: UUID?,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard isEnabled(level) else { return }
        emit(level, message, correlationID: correlationID, file: file, function: function, line: line)
    }

    private func emit(
        _ level: MSALLogLevel, _ message: () -> MSALLogMessage, correlationID: UUID?,
        file: String, function: String, line: UInt
    ) {
        let sink = MSALLogCapture.sink.flatMap { level <= $0.level ? $0 : nil }
        let outputs = config.outputs(for: level)
        guard sink != nil || outputs != nil else { return }

        let message = message()
        let date = Date()
        var rendered: (masking: MSALLogMaskingLevel, text: String, containsPII: Bool, line: String)?
        func render(_ masking: MSALLogMaskingLevel) -> (text: String, containsPII: Bool, line: String) {
            if let rendered, rendered.masking == masking { return (rendered.text, rendered.containsPII, rendered.line) }
            let (text, containsPII) = message.rendered(maskingLevel: masking)
            let logLine = MSALLogLine.line(text: text, correlationID: correlationID, date: date)
            rendered = (masking, text, containsPII, logLine)
            return (text, containsPII, logLine)
        }

        if let outputs {
            let (_, containsPII, logLine) = render(outputs.maskingLevel)
            outputs.callback?(level, logLine, containsPII)
            if let swiftLogLevel = level.swiftLogLevel {
                let metadata: Logger.Metadata? = correlationID.map { [Self.correlationIDMetadataKey: .string($0.msalLogText)] }
                outputs.logger.log(
                    level: swiftLogLevel, "\(logLine)", metadata: metadata, source: Self.source,
                    file: file, function: function, line: line)
            }
        }
        if let sink {
            let (text, containsPII, logLine) = render(sink.maskingLevel)
            sink.append(
                MSALLogRecord(
                    level: level, text: text, line: logLine, containsPII: containsPII, correlationID: correlationID, date: date))
        }
    }
}
