import Foundation

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
package enum RetryAfter {
    /// Seconds to wait from `now`, clamped to `0...maximum`; `nil` when the header is absent or unreadable.
    package static func seconds(_ value: String?, now: Date, maximum: Double) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty, value.utf8.count <= 64 else { return nil }
        if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let seconds = Double(value) else { return maximum }
            return min(seconds, maximum)
        }
        if value.hasPrefix("-"), Double(value) != nil { return 0 }
        guard let date = httpDate(value) else { return nil }
        return min(max(date.timeIntervalSince(now), 0), maximum)
    }

    /// IMF-fixdate, RFC 850 or asctime.
    package static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
