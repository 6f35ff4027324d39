import Foundation
import MSALSupport

extension SingleFlightCache where Failure == MSALFailure {
    /// A cache of at most `capacity` entries, timed by `clock`.
    package convenience init(capacity: Int = 256, clock: any MSALClock) {
        self.init(capacity: capacity, now: { clock.now() })
    }
}
