/// The one rule for text that someone else chose (a provider's error description, a token's
/// header or claims, a redirect's parameters, a cache file's values) on its way into an error
/// message, a log line or the terminal: characters that could move the cursor, recolour or clear a
/// terminal, forge a line, or reorder what the reader sees are escaped as `\u{…}`, and the length
/// is capped.
///
/// Escaped: C0 controls (tab and line feed too, unless `keepingLineBreaks`), DEL, C1 controls,
/// line and paragraph separators, and every format character (Unicode category Cf: bidirectional
/// marks and overrides such as U+202E and U+061C, zero-width characters, U+FEFF). Everything else is
/// kept as it is.
package enum UntrustedText {
    /// `text` with unsafe characters escaped, cut at `limit` Unicode scalars (then `…` follows).
    package static func escaped(_ text: String, limit: Int = 512, keepingLineBreaks: Bool = false) -> String {
        // The common case, printable ASCII within the limit, is returned as it is.
        if text.utf8.count <= limit, text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || (keepingLineBreaks && $0 == 0x0A) }) {
            return text
        }
        var out = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < limit else {
                out.append("\u{2026}")
                break
            }
            count += 1
            if isUnsafe(scalar), !(keepingLineBreaks && scalar == "\n") {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `scalar` is one the rule escapes.
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
            return true
        case 0x20...0x7E:
            return false
        default:
            return scalar.properties.generalCategory == .format
        }
    }
}
