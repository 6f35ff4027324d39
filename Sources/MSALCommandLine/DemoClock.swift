import Foundation
import MSAL
import MSALEmulator

/// The demo app's clock, tied to the emulator's: the SDK reads the emulator's time, so moving the
/// emulator's clock (``MSALEmulator/advanceClock(by:)``) expires tokens on both sides at once, and
/// a wait the SDK asks for (a retry interval, `Retry-After`) moves that clock instead of sleeping.
struct DemoClock: MSALClock {
    let emulator: MSALEmulator

    func now() -> Date { emulator.now }

    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        if seconds > 0 { emulator.advanceClock(by: seconds) }
        await Task.yield()
    }
}
