import Foundation
import Logging
import Testing

@testable import MSAL

extension LoggingTests {
    // NOTE: the tests in this suite change MSALGlobalConfig, which is process-wide. They are
    // serialized, restore every setting they touch before returning, and recognise their own
    // messages by a fresh correlation id (other suites may log through the global configuration at
    // the same time). They never change a setting in a way that would alter another suite's
    // requests. Tests of logging itself belong in MSALLoggerTests, on a configuration of their own
    // or under an MSALLogCapture sink, not here.
    @Suite("MSALGlobalConfig: process-wide logger and HTTP settings", .serialized)
    struct MSALGlobalConfigTests {
        /// Runs `body` and puts every logger setting back as it was.
        static func restoringLoggerConfig(_ body: (MSALLoggerConfig) async throws -> Void) async rethrows {
            let config = MSALGlobalConfig.loggerConfig
            let level = config.logLevel, masking = config.logMaskingLevel
            let callback = config.callback(), logger = config.logger
            defer {
                config.logLevel = level
                config.logMaskingLevel = masking
                config.setLogCallback(callback)
                config.logger = logger
            }
            try await body(config)
        }

        @Test("loggerConfig and httpConfig are single shared instances with MSAL for iOS defaults")
        func singletons() {
            #expect(MSALGlobalConfig.loggerConfig === MSALGlobalConfig.loggerConfig)
            #expect(MSALGlobalConfig.httpConfig === MSALGlobalConfig.httpConfig)
            #expect(MSALGlobalConfig.loggerConfig.logLevel == .error)
            #expect(MSALGlobalConfig.loggerConfig.logMaskingLevel == .settingsMaskAllPII)
            #expect(MSALGlobalConfig.loggerConfig.callback() == nil)
            #expect(MSALGlobalConfig.loggerConfig.logger == nil)
            #expect(MSALGlobalConfig.httpConfig.retryCount == 1)
        }

        @Test("Settings made through MSALGlobalConfig reach loggers created anywhere, on any task")
        func processWideLogging() async {
            let recorder = CallbackRecorder()
            let events = CapturedLogEvents()
            let id = UUID()
            await Self.restoringLoggerConfig { config in
                config.logLevel = .verbose
                config.logMaskingLevel = .settingsMaskEUIIOnly
                config.setLogCallback(recorder.callback)
                config.logger = Logger(label: "global-test") { _ in CapturingLogHandler(events: events) }

                await Task.detached {
                    MSALLogger().verbose("detached account \(oii: "uid.utid") user \(euii: "carol")", correlationID: id)
                }.value
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { MSALLogger().info("grouped", correlationID: id) }
                }
            }
            MSALLogger().verbose("after restore", correlationID: id)

            let mine = recorder.all.filter { $0.message?.contains(id.uuidString.lowercased()) == true }
            #expect(mine.map(\.level) == [.verbose, .info])
            #expect(mine.first?.message?.hasSuffix("detached account uid.utid user Masked(not-null)") == true)
            #expect(mine.map(\.containsPII) == [true, false])
            let myEvents = events.all.filter { $0.metadata[MSALLogger.correlationIDMetadataKey] == id.uuidString.lowercased() }
            #expect(myEvents.map(\.level) == [.debug, .info])
            #expect(MSALGlobalConfig.loggerConfig.logLevel == .error)
            #expect(MSALGlobalConfig.loggerConfig.callback() == nil)
        }

        @Test("The default MSALLogger follows the global level: off at .nothing, on again at .info")
        func globalLevelGate() async {
            let recorder = CallbackRecorder()
            let id = UUID()
            await Self.restoringLoggerConfig { config in
                config.logger = Logger(label: "silent") { _ in SwiftLogNoOpLogHandler() }
                config.setLogCallback(recorder.callback)
                config.logLevel = .nothing
                MSALLogger().error("while off", correlationID: id)
                config.logLevel = .info
                #expect(MSALLogger().isEnabled(.info))
                MSALLogger().info("while on", correlationID: id)
                MSALLogger().verbose("too detailed", correlationID: id)
            }
            let mine = recorder.all.compactMap(\.message).filter { $0.contains(id.uuidString.lowercased()) }
            #expect(mine.count == 1)
            #expect(mine.first?.hasSuffix("] while on") == true)
        }

        @Test("httpConfig changes are seen by every reader, and feed the pipeline settings")
        func processWideHTTP() {
            // Only the total timeout moves, by half a second, so no other suite's requests change.
            let http = MSALGlobalConfig.httpConfig
            let original = http.timeoutIntervalForResource
            defer { http.timeoutIntervalForResource = original }
            http.timeoutIntervalForResource = original + 0.5
            #expect(MSALGlobalConfig.httpConfig.timeoutIntervalForResource == original + 0.5)
            #expect(MSALGlobalConfig.httpConfig.pipelineConfiguration().limits.totalTimeout == original + 0.5)
            #expect(MSALGlobalConfig.httpConfig.limits().totalTimeout == original + 0.5)
        }
    }
}
