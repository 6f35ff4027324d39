import Foundation
import Testing

@testable import MSALCommandLine

/// `msal`'s expiry times are formatted without a date formatter (which loads ICU's calendar data
/// into a one-shot process): the text must stay what `ISO8601DateFormatter` printed.
@Suite("msal's UTC timestamps")
struct CommandOutputTimestampTests {
    /// From 1583 on: before the Gregorian calendar's adoption (October 1582) the formatter, as ICU
    /// does, switches to the Julian calendar, while `gmtime_r` keeps the proleptic Gregorian calendar
    /// ISO 8601 specifies (no token expires then).
    @Test("The same text as ISO8601DateFormatter from year 1583 to 9999, leap days and fractions included")
    func matchesFormatter() {
        let formatter = ISO8601DateFormatter()
        var seconds: [Double] = [
            0, 1, -1, 59, 86_399, 951_782_400, 951_868_799, 4_102_444_800, 1_700_000_000.75, -0.5,
            -12_212_553_600, 253_402_300_799,
        ]
        // About 3,000 instants spread over years 1583 to 9999, an odd number of seconds apart so every field varies.
        var value: Int64 = -12_212_553_600
        while value <= 253_402_300_799 {
            seconds.append(Double(value))
            value += 78_883_851
        }
        for value in seconds {
            #expect(CommandOutput.utcTimestamp(value) == formatter.string(from: Date(timeIntervalSince1970: value)), "\(value)")
        }
    }

    @Test("An expiry is its seconds and its UTC time; none, or one past the limits, is a dash")
    func epochDescription() {
        #expect(CommandOutput.epochDescription(4_102_444_800) == "4102444800 (2100-01-01T00:00:00Z)")
        #expect(CommandOutput.epochDescription(nil) == "-")
        #expect(CommandOutput.epochDescription(.infinity) == "-")
        #expect(CommandOutput.epochDescription(.nan) == "-")
        #expect(CommandOutput.epochDescription(1e13) == "-")
    }
}
