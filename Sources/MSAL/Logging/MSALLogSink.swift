import MSALSupport

/// Collects the log messages of one task tree, with its own level and masking; see
/// ``MSALLogCapture``. Thread-safe.
package final class MSALLogSink: Sendable {
    /// The most detailed level collected.
    package let level: MSALLogLevel
    /// The masking messages are rendered with.
    package let maskingLevel: MSALLogMaskingLevel

    private let storage = Mutex<[MSALLogRecord]>([])

    /// Creates a sink collecting messages at or below `level`, rendered at `maskingLevel`.
    package init(level: MSALLogLevel = .verbose, maskingLevel: MSALLogMaskingLevel = .settingsMaskAllPII) {
        self.level = level
        self.maskingLevel = maskingLevel
    }

    /// The messages collected so far, in the order they were logged.
    package var records: [MSALLogRecord] {
        storage.withLock { $0 }
    }

    /// Adds a message.
    package func append(_ record: MSALLogRecord) {
        storage.withLock { $0.append(record) }
    }

    /// Forgets the messages collected so far.
    package func removeAll() {
        storage.withLock { $0.removeAll() }
    }
}
