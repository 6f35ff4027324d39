import Foundation
import Logging
import MSALSupport
import Testing

@testable import MSAL

extension LoggingTests {
    /// These tests use configurations of their own (`IsolatedLogging`) or a task-local
    /// `MSALLogCapture` sink, never `MSALGlobalConfig`, so they run in parallel with every other suite.
    @Suite("MSALLogger: levels, callback, swift-log, line format, laziness, capture, concurrency")
    struct MSALLoggerTests {
        static let correlation = UUID(uuidString: "6F0E2A4B-3C8E-4D2A-9E51-6E8F3C1D2B7A")!

        static func logAllLevels(_ logger: MSALLogger, correlationID: UUID? = correlation) {
            logger.error("e \(1)", correlationID: correlationID)
            logger.warning("w \(2)", correlationID: correlationID)
            logger.info("i \(3)", correlationID: correlationID)
            logger.verbose("v \(4)", correlationID: correlationID)
        }

        @Test("Each level emits itself and the levels below it; .nothing emits nothing", arguments: MSALLogLevel.allCases)
        func levelFiltering(level: MSALLogLevel) {
            let logging = IsolatedLogging(level: level)
            Self.logAllLevels(logging.logger)
            let expected = MSALLogLevel.allCases.filter { $0 != .nothing && $0 <= level }
            #expect(logging.recorder.all.map(\.level) == expected)
            #expect(logging.events.all.map(\.level) == expected.compactMap(\.swiftLogLevel))
            #expect(
                logging.recorder.all.map { $0.message?.split(separator: "] ").last.map(String.init) }
                    == expected.map { "\(["", "e", "w", "i", "v"][$0.rawValue]) \($0.rawValue)" })
        }

        @Test("Changing logLevel takes effect for the next message")
        func levelChange() {
            let logging = IsolatedLogging(level: .error)
            logging.logger.info("first", correlationID: nil)
            logging.config.logLevel = .info
            #expect(logging.config.logLevel == .info)
            logging.logger.info("second", correlationID: nil)
            logging.config.logLevel = .nothing
            logging.logger.error("third", correlationID: nil)
            #expect(logging.recorder.all.compactMap(\.message).map { $0.hasSuffix("] second") } == [true])
        }

        @Test("Line format: SDK and version, UTC time with milliseconds, correlation id, text; callback and swift-log get the same line")
        func lineFormat() throws {
            let logging = IsolatedLogging(level: .info)
            logging.logger.info(
                "Token request to \(host: URL(string: "https://login.microsoftonline.com/common"))", correlationID: Self.correlation)
            logging.logger.info("No request", correlationID: nil)

            let lines = logging.recorder.all.compactMap(\.message)
            try #require(lines.count == 2)
            let match = try #require(
                lines[0].wholeMatch(of: /MSAL\.Swift\.Linux (\S+) \[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) - ([0-9a-f-]{36})\] (.*)/))
            #expect(match.1 == MSALVersion)
            #expect(match.3 == "6f0e2a4b-3c8e-4d2a-9e51-6e8f3c1d2b7a")
            #expect(match.4 == "Token request to login.microsoftonline.com")
            #expect(lines[1].wholeMatch(of: /MSAL\.Swift\.Linux \S+ \[\S+ - none\] No request/) != nil)

            let events = logging.events.all
            #expect(events.map(\.message) == lines)
            #expect(events[0].metadata == [MSALLogger.correlationIDMetadataKey: "6f0e2a4b-3c8e-4d2a-9e51-6e8f3c1d2b7a"])
            #expect(events[1].metadata == [:])
            #expect(events.allSatisfy { $0.source == MSALLogger.source })
        }

        @Test("Timestamps are UTC, rounded to the millisecond, and handle leap days and times before 1970")
        func timestamps() {
            #expect(MSALLogLine.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
            #expect(MSALLogLine.timestamp(Date(timeIntervalSince1970: 1_740_822_067.512)) == "2025-03-01T09:41:07.512Z")
            #expect(MSALLogLine.timestamp(Date(timeIntervalSince1970: 951_868_799.9996)) == "2000-03-01T00:00:00.000Z")
            #expect(MSALLogLine.timestamp(Date(timeIntervalSince1970: 951_868_799.25)) == "2000-02-29T23:59:59.250Z")
            #expect(MSALLogLine.timestamp(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        }

        @Test("The Logger's own level filters further; the callback still gets every message MSAL's level allows")
        func swiftLogLevelRespected() {
            let logging = IsolatedLogging(level: .verbose, swiftLogLevel: .info)
            Self.logAllLevels(logging.logger)
            #expect(logging.recorder.all.map(\.level) == [.error, .warning, .info, .verbose])
            #expect(logging.events.all.map(\.level) == [.error, .warning, .info])
        }

        @Test("Masking level of the configuration applies to both outputs, with containsPII")
        func maskingThroughConfig() {
            let logging = IsolatedLogging(level: .info, masking: .settingsMaskEUIIOnly)
            logging.logger.info("user \(euii: "alice@contoso.com") account \(oii: "uid.utid")", correlationID: nil)
            logging.config.logMaskingLevel = .settingsMaskAllPII
            logging.logger.info("user \(euii: "alice@contoso.com") account \(oii: "uid.utid")", correlationID: nil)
            logging.config.logMaskingLevel = .settingsMaskSecretsOnly
            logging.logger.info("user \(euii: "alice@contoso.com") account \(oii: "uid.utid")", correlationID: nil)

            let calls = logging.recorder.all
            #expect(calls.count == 3)
            #expect(calls.map { $0.message?.hasSuffix("user Masked(not-null) account uid.utid") } == [true, false, false])
            #expect(calls.map { $0.message?.hasSuffix("user Masked(not-null) account Masked(not-null)") } == [false, true, false])
            #expect(calls.map { $0.message?.hasSuffix("user alice@contoso.com account uid.utid") } == [false, false, true])
            #expect(calls.map(\.containsPII) == [true, false, true])
            #expect(logging.events.all.map(\.message) == calls.map(\.message))
        }

        @Test("piiEnabled (deprecated) maps onto the masking level")
        @available(*, deprecated)
        func piiEnabled() {
            let config = MSALLoggerConfig()
            #expect(!config.piiEnabled)
            config.piiEnabled = true
            #expect(config.logMaskingLevel == .settingsMaskSecretsOnly)
            config.logMaskingLevel = .settingsMaskEUIIOnly
            #expect(config.piiEnabled)
            config.piiEnabled = false
            #expect(config.logMaskingLevel == .settingsMaskAllPII)
        }

        @Test("Callback and logger can be read back and removed")
        func callbackAndLoggerAccessors() {
            let logging = IsolatedLogging(level: .error)
            #expect(logging.config.callback() != nil)
            #expect(logging.config.logger?.label == "test")
            logging.config.setLogCallback(nil)
            #expect(logging.config.callback() == nil)
            logging.logger.error("to swift-log only", correlationID: nil)
            #expect(logging.recorder.all.isEmpty)
            #expect(logging.events.all.count == 1)
        }

        @Test("A fresh configuration: error level, all PII masked, no callback, default Logger label")
        func defaults() {
            let config = MSALLoggerConfig()
            #expect(config.logLevel == .error)
            #expect(config.logMaskingLevel == .settingsMaskAllPII)
            #expect(config.callback() == nil)
            #expect(config.logger == nil)
            #expect(MSALLoggerConfig.defaultLoggerLabel == "com.microsoft.identity.msal")
        }

        // MARK: - Laziness

        final class Counter: Sendable {
            private let value = Mutex(0)
            var count: Int { value.withLock { $0 } }
            func message(_ text: String = "built") -> MSALLogMessage {
                value.withLock { $0 += 1 }
                return "\(public: text)"
            }
        }

        @Test("A disabled message is never built; an enabled one is built once for all outputs")
        func lazyEvaluation() async {
            let counter = Counter()
            let logging = IsolatedLogging(level: .warning)
            logging.logger.info(counter.message(), correlationID: nil)
            logging.logger.verbose(counter.message(), correlationID: nil)
            #expect(counter.count == 0)

            // Callback, swift-log and a capture sink with a different masking: still one build.
            let sink = MSALLogSink(level: .verbose, maskingLevel: .settingsMaskSecretsOnly)
            MSALLogCapture.withSink(sink) {
                logging.logger.warning(counter.message(), correlationID: nil)
            }
            #expect(counter.count == 1)
            #expect(logging.recorder.all.count == 1)
            #expect(logging.events.all.count == 1)
            #expect(sink.records.count == 1)
        }

        @Test("A message nobody would receive is not built: no callback and a Logger filtering its level")
        func lazyWhenNoOutputWantsIt() {
            let counter = Counter()
            let logging = IsolatedLogging(level: .verbose, swiftLogLevel: .error)
            logging.config.setLogCallback(nil)
            logging.logger.verbose(counter.message(), correlationID: nil)
            logging.logger.info(counter.message(), correlationID: nil)
            #expect(counter.count == 0)
            logging.logger.error(counter.message(), correlationID: nil)
            #expect(counter.count == 1)
            #expect(logging.events.all.count == 1)
        }

        // MARK: - Task-local capture

        @Test("A capture sink gets its task tree's messages at its own level and masking, global settings untouched")
        func captureSink() async throws {
            let sink = MSALLogSink(level: .info, maskingLevel: .settingsMaskEUIIOnly)
            let id = UUID()
            await MSALLogCapture.withSink(sink) {
                let logger = MSALLogger()
                logger.info("account \(oii: "uid.utid") user \(euii: "bob")", correlationID: id)
                logger.verbose("too detailed", correlationID: id)
                async let child: Void = logger.warning("from a child task", correlationID: id)
                await child
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { logger.warning("from a task group", correlationID: id) }
                }
                await Task.detached { logger.warning("from a detached task", correlationID: id) }.value
            }
            MSALLogger().warning("after the scope", correlationID: id)

            let records = sink.records
            #expect(records.map(\.text) == ["account uid.utid user Masked(not-null)", "from a child task", "from a task group"])
            #expect(records.map(\.level) == [.info, .warning, .warning])
            #expect(records.map(\.containsPII) == [true, false, false])
            #expect(records.allSatisfy { $0.correlationID == id && $0.line.hasSuffix("] " + $0.text) })
            #expect(records[0].line.contains("- \(id.uuidString.lowercased())]"))
        }

        @Test("Concurrent capture scopes see only their own messages")
        func captureIsolation() async {
            let sinks = (0..<8).map { _ in MSALLogSink(level: .verbose) }
            await withTaskGroup(of: Void.self) { group in
                for (index, sink) in sinks.enumerated() {
                    group.addTask {
                        await MSALLogCapture.withSink(sink) {
                            for step in 0..<50 {
                                MSALLogger().verbose("scope \(index) step \(step)", correlationID: nil)
                                await Task.yield()
                            }
                        }
                    }
                }
            }
            for (index, sink) in sinks.enumerated() {
                #expect(sink.records.map(\.text) == (0..<50).map { "scope \(index) step \($0)" })
            }
        }

        @Test("A capture scope also collects from loggers of other configurations, even with their level off")
        func captureAcrossConfigurations() {
            let logging = IsolatedLogging(level: .nothing)
            let sink = MSALLogSink(level: .verbose)
            MSALLogCapture.withSink(sink) {
                logging.logger.verbose("captured", correlationID: nil)
            }
            #expect(sink.records.map(\.text) == ["captured"])
            #expect(logging.recorder.all.isEmpty)
            sink.removeAll()
            #expect(sink.records.isEmpty)
        }

        // MARK: - Concurrency

        @Test("Many tasks log while another changes level and masking: every delivery is whole and allowed")
        func concurrentLoggingAndConfiguration() async {
            let logging = IsolatedLogging(level: .verbose)
            let logger = logging.logger
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for step in 0..<400 {
                            let level = MSALLogLevel.allCases[1 + (worker + step) % 4]
                            logger.log(level, "worker \(worker) step \(step) user \(euii: "u\(worker)")", correlationID: nil)
                        }
                    }
                }
                group.addTask {
                    for round in 0..<400 {
                        logging.config.logLevel = MSALLogLevel.allCases[round % 5]
                        logging.config.logMaskingLevel = MSALLogMaskingLevel.allCases[round % 3]
                        await Task.yield()
                    }
                }
            }
            let calls = logging.recorder.all
            #expect(calls.count <= 8 * 400)
            for call in calls {
                let message = call.message ?? ""
                let whole = message.wholeMatch(of: /MSAL\.Swift\.Linux \S+ \[\S+ - none\] worker (\d) step (\d+) user (\S+)/)
                #expect(whole != nil, "\(message)")
                if let whole {
                    #expect(call.containsPII == (whole.3 != "Masked(not-null)"))
                    #expect(call.level == MSALLogLevel.allCases[1 + (Int(whole.1)! + Int(whole.2)!) % 4])
                }
            }
            #expect(logging.events.all.count == calls.count)

            logging.config.logLevel = .nothing
            let before = logging.recorder.all.count
            logger.error("after", correlationID: nil)
            #expect(logging.recorder.all.count == before)
            logging.config.logLevel = .error
            logger.error("after", correlationID: nil)
            #expect(logging.recorder.all.count == before + 1)
        }

        @Test("The level gate keeps the level and the count of open capture scopes apart")
        func gateLayout() {
            let config = MSALLoggerConfig(logLevel: .warning)
            #expect(config.gate.load(ordering: .relaxed) == 2)
            for _ in 0..<3 { config.openCaptureScope() }
            config.logLevel = .verbose
            #expect(config.gate.load(ordering: .relaxed) == 3 << 8 | 4)
            config.logLevel = .nothing
            #expect(config.gate.load(ordering: .relaxed) == 3 << 8)
            // With scopes open a logger must look further (its task may hold a sink).
            #expect(MSALLogger(config: config).isEnabled(.error))
            for _ in 0..<3 { config.closeCaptureScope() }
            config.logLevel = .info
            #expect(config.gate.load(ordering: .relaxed) == 3)
        }

        @Test("The level gate stays exact while capture scopes open and close concurrently with level changes")
        func gateArithmetic() async {
            let config = MSALLoggerConfig(logLevel: .warning)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<1_000 {
                            config.openCaptureScope()
                            await Task.yield()
                            config.closeCaptureScope()
                        }
                    }
                }
                group.addTask {
                    for round in 0..<1_000 {
                        config.logLevel = MSALLogLevel.allCases[round % 5]
                        await Task.yield()
                    }
                    config.logLevel = .info
                }
            }
            #expect(config.gate.load(ordering: .relaxed) == MSALLogLevel.info.rawValue)
            #expect(MSALLogger(config: config).isEnabled(.info))
            #expect(!MSALLogger(config: config).isEnabled(.nothing))
            // (Whether .verbose is "enabled" depends on capture scopes other tests may have open.)
        }
    }
}
