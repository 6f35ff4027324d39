/// When to ask again after a failed attempt: a value that decides, without I/O, what
/// ``HTTPPipeline`` and the managed-identity flow do after each failure. The caller sends, sleeps
/// and reads `Retry-After`; the schedule only answers "again, after this long" or "stop", and counts.
///
/// Two rules:
/// - ``Rule/pipeline(idempotent:retries:interval:maximumRetryWait:)``: at most one retry (MSAL for
///   Python and .NET retry once), of an idempotent request only, after a timeout, a network
///   failure or a 5xx whose `Retry-After` is at most `maximumRetryWait`; never after a 429.
/// - ``Rule/managedIdentity(imds:maximumRetryWait:)``: the sources' own policy, as MSAL.NET's: IMDS
///   three times after 1, 2 and 4 s, or seven times every 10 s when the first failure is a 410
///   (IMDS restarting); the other sources three times after 1 s. A longer `Retry-After` of at
///   most `maximumRetryWait` is waited for instead; a longer one stops.
package struct RetrySchedule: Sendable, Equatable {
    /// How an attempt failed.
    package enum Failure: Sendable, Equatable {
        /// An HTTP answer with `status`, and its `Retry-After` in seconds when it had a usable one.
        case status(Int, retryAfter: Double?)
        /// No answer within the deadline.
        case timeout
        /// The connection failed otherwise (refused, reset, TLS).
        case networkFailure
    }

    /// What to do after a failure.
    package enum Action: Sendable, Equatable {
        /// Send the request again after `seconds`.
        case retry(afterSeconds: Double)
        /// Give up: the failure is the answer.
        case stop
    }

    /// Which policy decides.
    package enum Rule: Sendable, Equatable {
        /// ``HTTPPipeline``'s: `retries` (0 or 1; more is 1) retries of an idempotent request after
        /// `interval` seconds, or the `Retry-After` of a 5xx when longer and at most `maximumRetryWait`.
        case pipeline(idempotent: Bool, retries: Int, interval: Double, maximumRetryWait: Double)
        /// A managed-identity source's (IMDS when `imds`).
        case managedIdentity(imds: Bool, maximumRetryWait: Double)
    }

    /// How many retries, and at which fixed delay (`nil`: 1, 2, 4… seconds).
    private struct Budget: Sendable, Equatable {
        var retries: Int
        var fixedDelay: Double?
    }

    /// The rule.
    package let rule: Rule
    /// The retries decided so far.
    package private(set) var retries = 0
    /// A managed-identity source's budget, chosen by its first failure.
    private var budget: Budget?

    /// A schedule of `rule`, before any attempt.
    package init(_ rule: Rule) {
        self.rule = rule
    }

    /// Whether `failure` is one the rule asks again for at all; a failure that is not is handed
    /// back to the caller as it is (for a managed-identity source, an answer such as 400 or 401).
    package func isRetryable(_ failure: Failure) -> Bool {
        switch (rule, failure) {
        case (.pipeline, .timeout), (.pipeline, .networkFailure): true
        case (.pipeline, .status(let status, _)): (500..<600).contains(status)
        case (.managedIdentity, .timeout): true
        case (.managedIdentity, .networkFailure): false
        case (.managedIdentity(let imds, _), .status(let status, _)):
            imds ? [404, 408, 410, 429].contains(status) || (500..<600).contains(status) : [404, 408, 429, 500, 503, 504].contains(status)
        }
    }

    /// The action after `failure`, counting the retry it decides.
    package mutating func next(after failure: Failure) -> Action {
        guard isRetryable(failure) else { return .stop }
        let retryAfter: Double?
        if case .status(_, let seconds) = failure { retryAfter = seconds } else { retryAfter = nil }
        switch rule {
        case .pipeline(let idempotent, let allowed, let interval, let maximumRetryWait):
            guard idempotent, retries < min(allowed, 1), (retryAfter ?? 0) <= maximumRetryWait else { return .stop }
            retries += 1
            return .retry(afterSeconds: max(interval, retryAfter ?? 0))
        case .managedIdentity(let imds, let maximumRetryWait):
            let chosen: Budget
            if let budget {
                chosen = budget
            } else if imds, case .status(410, _) = failure {
                chosen = Budget(retries: 7, fixedDelay: 10)
            } else {
                chosen = Budget(retries: 3, fixedDelay: imds ? nil : 1)
            }
            budget = chosen
            guard retries < chosen.retries, (retryAfter ?? 0) <= maximumRetryWait else { return .stop }
            let delay = max(chosen.fixedDelay ?? Double(1 << retries), retryAfter ?? 0)
            retries += 1
            return .retry(afterSeconds: delay)
        }
    }
}
