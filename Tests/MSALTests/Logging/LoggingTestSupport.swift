import Foundation
import Logging
import MSALSupport

@testable import MSAL

/// Namespace of the logging and global-configuration suites, so `swift test --filter Logging`
/// selects them all.
enum LoggingTests {}

/// What a swift-log handler received.
struct CapturedLogEvent: Sendable, Equatable {
    var level: Logger.Level
    var message: String
    var metadata: [String: String]
    var source: String
}

/// Thread-safe list shared by the copies of a ``CapturingLogHandler``.
final class CapturedLogEvents: Sendable {
    private let events = Mutex<[CapturedLogEvent]>([])
    var all: [CapturedLogEvent] { events.withLock { $0 } }
    func append(_ event: CapturedLogEvent) { events.withLock { $0.append(event) } }
}

/// A swift-log `LogHandler` that keeps every event it is given.
struct CapturingLogHandler: LogHandler {
    let events: CapturedLogEvents
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    init(events: CapturedLogEvents, logLevel: Logger.Level = .trace) {
        self.events = events
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        events.append(
            CapturedLogEvent(
                level: event.level, message: event.message.description,
                metadata: merged.mapValues { "\($0)" }, source: event.source))
    }
}

/// What a log callback received.
struct CallbackMessage: Sendable, Equatable {
    var level: MSALLogLevel
    var message: String?
    var containsPII: Bool
}

/// Thread-safe recorder of log callback calls.
final class CallbackRecorder: Sendable {
    private let messages = Mutex<[CallbackMessage]>([])
    var all: [CallbackMessage] { messages.withLock { $0 } }

    var callback: MSALLogCallback {
        { [self] level, message, containsPII in
            messages.withLock { $0.append(CallbackMessage(level: level, message: message, containsPII: containsPII)) }
        }
    }
}

/// A configuration of its own (not the global one) whose messages go to a recorder and a
/// capturing swift-log handler, so tests of it run in parallel with everything else.
struct IsolatedLogging {
    let config: MSALLoggerConfig
    let recorder = CallbackRecorder()
    let events = CapturedLogEvents()
    var logger: MSALLogger { MSALLogger(config: config) }

    init(level: MSALLogLevel, masking: MSALLogMaskingLevel = .settingsMaskAllPII, swiftLogLevel: Logger.Level = .trace) {
        config = MSALLoggerConfig(logLevel: level, logMaskingLevel: masking)
        config.setLogCallback(recorder.callback)
        let events = events
        config.logger = Logger(label: "test") { _ in CapturingLogHandler(events: events, logLevel: swiftLogLevel) }
    }
}
