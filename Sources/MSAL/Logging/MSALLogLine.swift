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
        var seconds = time_t(interval.rounded(.down))
        var milliseconds = Int(((interval - interval.rounded(.down)) * 1000).rounded(.down))
        if milliseconds > 999 { milliseconds = 999 }
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "\(interval)" }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(milliseconds, 3))Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
