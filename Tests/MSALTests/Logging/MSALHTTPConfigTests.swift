import Foundation
import Testing

@testable import MSAL

extension LoggingTests {
    /// On instances of their own; MSALGlobalConfigTests covers the shared one.
    @Suite("MSALHTTPConfig: defaults, range checks, pipeline settings")
    struct MSALHTTPConfigTests {
        @Test("Defaults are the pipeline's and the transport limits'")
        func defaults() {
            let config = MSALHTTPConfig()
            let pipeline = HTTPPipelineConfiguration()
            #expect(config.retryCount == pipeline.retryCount)
            #expect(config.retryInterval == pipeline.retryInterval)
            #expect(config.timeoutIntervalForRequest == MSALHTTPLimits.default.connectTimeout)
            #expect(config.timeoutIntervalForResource == MSALHTTPLimits.default.totalTimeout)
            #expect(
                (config.retryCount, config.retryInterval, config.timeoutIntervalForRequest, config.timeoutIntervalForResource) == (
                    1, 0.5, 10, 30
                ))
            #expect(config.limits() == MSALHTTPLimits.default)
            let made = config.pipelineConfiguration()
            #expect(made.limits == pipeline.limits)
            #expect(made.retryCount == pipeline.retryCount && made.retryInterval == pipeline.retryInterval)
            #expect(made.maximumRetryWait == pipeline.maximumRetryWait && made.maximumRetryAfter == pipeline.maximumRetryAfter)
            #expect(made.defaultThrottle == pipeline.defaultThrottle)
        }

        @Test("Settings flow into the pipeline configuration and limits; size caps stay")
        func pipelineConfiguration() {
            let config = MSALHTTPConfig()
            config.retryCount = 0
            config.retryInterval = 0.25
            config.timeoutIntervalForRequest = 2.5
            config.timeoutIntervalForResource = 12
            let made = config.pipelineConfiguration()
            #expect(made.retryCount == 0)
            #expect(made.retryInterval == 0.25)
            #expect(made.limits.connectTimeout == 2.5)
            #expect(made.limits.totalTimeout == 12)
            #expect(made.limits.maximumResponseBodySize == MSALHTTPLimits.default.maximumResponseBodySize)
            #expect(made.limits.maximumRequestBodySize == MSALHTTPLimits.default.maximumRequestBodySize)
            #expect(config.limits() == made.limits)
        }

        @Test("Out-of-range values are replaced when set: negative counts, NaN, negative and zero timeouts, huge values")
        func rangeChecks() {
            let config = MSALHTTPConfig()
            config.retryCount = -3
            #expect(config.retryCount == 0)
            config.retryCount = 5
            #expect(config.retryCount == 5)
            #expect(config.pipelineConfiguration().retryCount == 1)

            config.retryInterval = -1
            #expect(config.retryInterval == 0.5)
            config.retryInterval = .nan
            #expect(config.retryInterval == 0.5)
            config.retryInterval = 0
            #expect(config.retryInterval == 0)
            config.retryInterval = .infinity
            #expect(config.retryInterval == MSALHTTPConfig.maximumRetryInterval)

            for bad in [0, -5, -.infinity, .nan] as [TimeInterval] {
                config.timeoutIntervalForRequest = bad
                config.timeoutIntervalForResource = bad
                #expect(config.timeoutIntervalForRequest == 10)
                #expect(config.timeoutIntervalForResource == 30)
            }
            config.timeoutIntervalForRequest = .infinity
            config.timeoutIntervalForResource = 1e300
            #expect(config.timeoutIntervalForRequest == MSALHTTPConfig.maximumTimeout)
            #expect(config.timeoutIntervalForResource == MSALHTTPConfig.maximumTimeout)
            #expect(config.pipelineConfiguration().limits.totalTimeout == 3600)
            config.timeoutIntervalForRequest = 0.05
            #expect(config.timeoutIntervalForRequest == 0.05)
        }

        @Test("Concurrent writers and readers: every read is one of the values written")
        func concurrency() async {
            let config = MSALHTTPConfig()
            let values: [TimeInterval] = [2, 4, 8, 16]
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for step in 0..<500 { config.timeoutIntervalForRequest = values[(writer + step) % 4] }
                    }
                }
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<500 {
                            let seen = config.pipelineConfiguration().limits.connectTimeout
                            #expect(values.contains(seen) || seen == 10)
                        }
                    }
                }
            }
            #expect(values.contains(config.timeoutIntervalForRequest))
        }
    }
}
