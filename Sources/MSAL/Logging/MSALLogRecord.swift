import Foundation

/// One emitted log message, as a ``MSALLogSink`` keeps it.
package struct MSALLogRecord: Sendable, Hashable {
    /// The level it was logged at.
    package var level: MSALLogLevel
    /// The message text alone, masked and redacted.
    package var text: String
    /// The whole line: SDK and version, time, correlation id and text (what the callback gets).
    package var line: String
    /// Whether ``text`` shows personal data.
    package var containsPII: Bool
    /// The correlation id it was logged with.
    package var correlationID: UUID?
    /// When it was logged.
    package var date: Date

    /// Creates a record.
    package init(level: MSALLogLevel, text: String, line: String, containsPII: Bool, correlationID: UUID?, date: Date) {
        self.level = level
        self.text = text
        self.line = line
        self.containsPII = containsPII
        self.correlationID = correlationID
        self.date = date
    }
}
