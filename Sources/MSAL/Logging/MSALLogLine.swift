import Foundation

/// The line every log message is emitted as:
/// `MSAL.Swift.Linux <version> [<UTC time> - <correlation id>] <text>`, for example
/// `MSAL.Swift.Linux 0.1.0 [2025-03-01T09:41:07.512Z - 6f0e2a4b-3c8e-4d2a-9e51-6e8f3c1d2b7a] Token request to login.microsoftonline.com`.
///
/// Without a correlation id the bracket reads `[<UTC time> - none]`.
package enum MSALLogLine {
    /// The SDK name and version that start every line.
    package static let prefix = "MSAL.Swift.Linux \(MSALVersion)"

    /// The line for `text`, logged at `date` for `correlationID`.
    package static func line(text: String, correlationID: UUID?, date: Date) -> String {
        "\(prefix) [\(timestamp(date)) - \(correlationID?.msalLogText ?? "none")] \(text)"
    }

    /// `date` in UTC with milliseconds, as `2025-03-01T09:41:07.512Z`.
    package static func timestamp(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, abs(interval) < 1e14 else { return "\(interval)" }
        // Nearest millisecond, split with floor division so times before 1970 work too.
        let totalMilliseconds = Int64((interval * 1000).rounded())
        var (seconds, milliseconds) = totalMilliseconds.quotientAndRemainder(dividingBy: 1000)
        if milliseconds < 0 {
            seconds -= 1
            milliseconds += 1000
        }
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "\(interval)" }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(Int(milliseconds), 3))Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
