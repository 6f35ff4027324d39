import Testing

@testable import MSAL

/// `RetrySchedule` alone, without sockets or clocks: the pipeline's one retry and the
/// managed-identity sources' policies, as sequences of failures and the actions they get.
@Suite("Retry schedule: the pipeline's and managed identity's retry decisions as values")
struct RetryScheduleTests {
    typealias Failure = RetrySchedule.Failure
    typealias Action = RetrySchedule.Action

    /// The actions a new schedule of `rule` takes after each of `failures`, in order.
    static func actions(_ rule: RetrySchedule.Rule, _ failures: [Failure]) -> [Action] {
        var schedule = RetrySchedule(rule)
        return failures.map { schedule.next(after: $0) }
    }

    static let pipeline = RetrySchedule.Rule.pipeline(idempotent: true, retries: 1, interval: 0.5, maximumRetryWait: 5)

    @Test("Pipeline: one retry after a timeout, a network failure or a 5xx, then stop")
    func pipelineOneRetry() {
        for first: Failure in [.timeout, .networkFailure, .status(500, retryAfter: nil), .status(503, retryAfter: nil)] {
            #expect(Self.actions(Self.pipeline, [first, first]) == [.retry(afterSeconds: 0.5), .stop], "\(first)")
        }
        // The one retry is shared: a timeout after a retried 5xx stops.
        #expect(Self.actions(Self.pipeline, [.status(502, retryAfter: nil), .timeout]) == [.retry(afterSeconds: 0.5), .stop])
    }

    @Test("Pipeline: a 5xx's Retry-After up to the longest wait is waited for; longer, and any 429, stop at once")
    func pipelineRetryAfter() {
        #expect(Self.actions(Self.pipeline, [.status(503, retryAfter: 3)]) == [.retry(afterSeconds: 3)])
        #expect(Self.actions(Self.pipeline, [.status(503, retryAfter: 0.1)]) == [.retry(afterSeconds: 0.5)])
        #expect(Self.actions(Self.pipeline, [.status(503, retryAfter: 5.5)]) == [.stop])
        #expect(Self.actions(Self.pipeline, [.status(429, retryAfter: nil)]) == [.stop])
        #expect(Self.actions(Self.pipeline, [.status(429, retryAfter: 1)]) == [.stop])
        #expect(Self.actions(Self.pipeline, [.status(400, retryAfter: nil)]) == [.stop])
    }

    @Test("Pipeline: a request that is not idempotent, or a pipeline with no retries, is never sent again")
    func pipelineNoRetry() {
        let post = RetrySchedule.Rule.pipeline(idempotent: false, retries: 1, interval: 0.5, maximumRetryWait: 5)
        let none = RetrySchedule.Rule.pipeline(idempotent: true, retries: 0, interval: 0.5, maximumRetryWait: 5)
        let many = RetrySchedule.Rule.pipeline(idempotent: true, retries: 9, interval: 0.5, maximumRetryWait: 5)
        for failure: Failure in [.timeout, .networkFailure, .status(500, retryAfter: nil)] {
            #expect(Self.actions(post, [failure]) == [.stop])
            #expect(Self.actions(none, [failure]) == [.stop])
            #expect(Self.actions(many, [failure, failure]) == [.retry(afterSeconds: 0.5), .stop], "at most one retry")
        }
    }

    @Test("IMDS: three retries after 1, 2 and 4 s for its retryable statuses and timeouts; others are answers")
    func imds() {
        let rule = RetrySchedule.Rule.managedIdentity(imds: true, maximumRetryWait: 60)
        for status in [404, 408, 429, 500, 502, 599] {
            let failure = Failure.status(status, retryAfter: nil)
            #expect(
                Self.actions(rule, [failure, failure, failure, failure])
                    == [.retry(afterSeconds: 1), .retry(afterSeconds: 2), .retry(afterSeconds: 4), .stop], "\(status)")
        }
        #expect(Self.actions(rule, [.timeout, .timeout]) == [.retry(afterSeconds: 1), .retry(afterSeconds: 2)])
        let schedule = RetrySchedule(rule)
        for status in [400, 401, 403, 200] {
            #expect(!schedule.isRetryable(.status(status, retryAfter: nil)), "\(status)")
        }
        #expect(!schedule.isRetryable(.networkFailure))
        #expect(Self.actions(rule, [.networkFailure]) == [.stop])
    }

    @Test("IMDS restarting: a first 410 gives seven retries every 10 s; a 410 after another failure keeps that budget")
    func imdsGone() {
        let rule = RetrySchedule.Rule.managedIdentity(imds: true, maximumRetryWait: 60)
        let gone = Failure.status(410, retryAfter: nil)
        #expect(Self.actions(rule, Array(repeating: gone, count: 8)) == Array(repeating: .retry(afterSeconds: 10), count: 7) + [.stop])
        #expect(
            Self.actions(rule, [.status(500, retryAfter: nil), gone, gone, gone])
                == [.retry(afterSeconds: 1), .retry(afterSeconds: 2), .retry(afterSeconds: 4), .stop])
    }

    @Test("Other sources: three retries after 1 s for 404, 408, 429, 500, 503, 504; a Retry-After up to 60 s is waited for, longer stops")
    func otherSources() {
        let rule = RetrySchedule.Rule.managedIdentity(imds: false, maximumRetryWait: 60)
        for status in [404, 408, 429, 500, 503, 504] {
            let failure = Failure.status(status, retryAfter: nil)
            #expect(
                Self.actions(rule, [failure, failure, failure, failure])
                    == [.retry(afterSeconds: 1), .retry(afterSeconds: 1), .retry(afterSeconds: 1), .stop], "\(status)")
        }
        let schedule = RetrySchedule(rule)
        for status in [410, 501, 502, 400] {
            #expect(!schedule.isRetryable(.status(status, retryAfter: nil)), "\(status)")
        }
        #expect(Self.actions(rule, [.status(503, retryAfter: 30)]) == [.retry(afterSeconds: 30)])
        #expect(Self.actions(rule, [.status(503, retryAfter: 61)]) == [.stop])
        var counted = RetrySchedule(rule)
        _ = counted.next(after: .timeout)
        _ = counted.next(after: .status(400, retryAfter: nil))
        #expect(counted.retries == 1, "a failure that is not retried is not counted")
    }
}
