/// Captures the log messages of one task tree without touching ``MSALGlobalConfig``, for tests
/// that run in parallel:
///
/// ```swift
/// let sink = MSALLogSink(level: .verbose, maskingLevel: .settingsMaskAllPII)
/// try await MSALLogCapture.withSink(sink) {
///     _ = try await application.acquireTokenSilent(with: parameters)
/// }
/// #expect(sink.records.contains { $0.text.contains("refresh") })
/// ```
///
/// Inside the scope, every ``MSALLogger`` of the task and its child tasks also delivers to the
/// sink, at the sink's level and masking; what goes to the global callback and `Logger` is
/// unchanged. Detached tasks and other threads are outside the scope.
package enum MSALLogCapture {
    /// The sink of the current task tree, if any.
    @TaskLocal package static var sink: MSALLogSink?

    /// Runs `operation` with `sink` collecting its log messages.
    package static func withSink<R>(
        _ sink: MSALLogSink,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        let config = MSALGlobalConfig.loggerConfig
        config.openCaptureScope()
        defer { config.closeCaptureScope() }
        return try await $sink.withValue(sink, operation: operation)
    }

    /// Runs the synchronous `operation` with `sink` collecting its log messages.
    package static func withSink<R>(_ sink: MSALLogSink, operation: () throws -> R) rethrows -> R {
        let config = MSALGlobalConfig.loggerConfig
        config.openCaptureScope()
        defer { config.closeCaptureScope() }
        return try $sink.withValue(sink, operation: operation)
    }
}
