import Foundation
import MSAL
import MSALSupport

/// A clock the test moves forward; waits (device code polling) return at once and are recorded.
final class SnippetClock: MSALClock {
    private let seconds: Mutex<Double>
    private let sleeps = Mutex<[Double]>([])

    init(now: Double) {
        seconds = Mutex(now)
    }

    func now() -> Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }

    func sleep(seconds delay: Double) async throws {
        try Task.checkCancellation()
        sleeps.withLock { $0.append(delay) }
        seconds.withLock { $0 += delay }
    }

    func advance(by delta: Double) { seconds.withLock { $0 += delta } }

    /// Every wait asked for, in seconds.
    var waits: [Double] { sleeps.withLock { $0 } }
}
