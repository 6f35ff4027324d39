import Foundation

/// The time source swift-msal reads, replaceable in tests.
public protocol MSALClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Suspends the calling task for `seconds`; throws `CancellationError` when the task is canceled.
    func sleep(seconds: Double) async throws
}

/// The system clock.
public struct MSALSystemClock: MSALClock {
    /// Creates the system clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date { Date() }

    /// The current time in whole seconds since 1970, as `now()` rounded down gives it, read with
    /// `time(2)`: the kernel's last tick, at most one tick (a few milliseconds) behind `now()`, and
    /// no conversion through `Date` — what a cache hit compares expiry times with.
    package static func secondsNow() -> Int64 { Int64(time(nil)) }

    /// `Task.sleep`.
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1_000_000_000))
    }
}
