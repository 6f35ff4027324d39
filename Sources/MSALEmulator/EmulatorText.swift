import Foundation
import MSALSupport

/// Small text checks and encodings the emulator's endpoints share.
enum EmulatorText {
    /// Tenant path segments that are not a hosted tenant's id or domain.
    static let reservedTenants: Set<String> = ["common", "organizations", "consumers"]

    /// `8-4-4-4-12` hexadecimal digits.
    static func isGUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !Hex.isDigit(byte) {
                return false
            }
        }
        return true
    }

    /// Dot-separated labels of letters, digits and hyphens.
    static func isDomain(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
        }
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }

    /// RFC 3986 unreserved characters.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values.
    static func html(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` without control characters and shortened to `limit` characters, for echoing
    /// request values in errors and logs.
    static func sanitized(_ text: String, limit: Int = 200) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        return cleaned.count > limit ? String(cleaned.prefix(limit)) + "…" : cleaned
    }

    /// `text` fit to stand inside a quoted string of an HTTP header (RFC 9110 §5.6.4), such as a
    /// challenge's `error_description`: ``sanitized(_:limit:)``, with `"` as `'` and `\` as `/`.
    static func headerQuoted(_ text: String) -> String {
        sanitized(text).replacingOccurrences(of: "\"", with: "'").replacingOccurrences(of: "\\", with: "/")
    }

    /// Percent-encodes everything but unreserved characters (a space becomes `%20`).
    static func percentEncoded(_ text: String) -> String {
        PercentEncoding.encode(text, unescaped: "-._~", spaceAsPlus: false)
    }

    /// `name=value&…`, percent-encoded.
    static func formEncoded(_ pairs: [(String, String)]) -> String {
        pairs.map { percentEncoded($0.0) + "=" + percentEncoded($0.1) }.joined(separator: "&")
    }

    /// A `client-request-id` fit to echo: a UUID-like string of hex digits and hyphens.
    static func correlationID(_ header: String?) -> String? {
        guard let header, !header.isEmpty, header.utf8.count <= 64,
            header.utf8.allSatisfy({ Hex.isDigit($0) || $0 == UInt8(ascii: "-") })
        else { return nil }
        return header.lowercased()
    }

    /// The AAD `timestamp` format, `2022-02-19 00:12:38Z`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { String(value).leftPadded(to: 2) }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
