/// Percent-decoding of `application/x-www-form-urlencoded` text (query strings and form bodies):
/// the one decoder the package's modules share.
///
/// **The leniency rule, the same everywhere:** a `%` must be followed by two hexadecimal digits,
/// and the decoded bytes must be valid UTF-8; anything else is refused (`nil`), never guessed at
/// or kept half-decoded. `+` is a space. Callers decide what a refusal means: the loopback
/// listener rejects the redirect, the emulator answers 400, and `MSALFormEncoding.decode` keeps
/// that one component exactly as written.
package enum PercentEncoding {
    /// `text` with `+` as a space and `%XX` escapes decoded, or `nil` for a bad escape or decoded
    /// bytes that are not UTF-8.
    package static func decodeFormComponent(_ text: some StringProtocol) -> String? {
        decodeFormComponent(bytes: text.utf8)
    }

    /// The UTF-8 bytes `bytes` with `+` as a space and `%XX` escapes decoded, or `nil` for a bad
    /// escape or decoded bytes that are not UTF-8.
    package static func decodeFormComponent(bytes: some Collection<UInt8>) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(validating: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(Hex.value(of:)),
                    let low = iterator.next().flatMap(Hex.value(of:))
                else { return nil }
                out.append(high << 4 | low)
            default:
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// `text` percent-encoded for a form or query: `A–Z a–z 0–9` and the bytes of `unescaped` stay,
    /// a space becomes `+` when `spaceAsPlus` (the WHATWG form rule) or `%20` otherwise, and every
    /// other byte becomes `%XX` with uppercase digits.
    package static func encode(_ text: some StringProtocol, unescaped: StaticString, spaceAsPlus: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        unescaped.withUTF8Buffer { keep in
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    out.append(byte)
                case UInt8(ascii: " ") where spaceAsPlus:
                    out.append(UInt8(ascii: "+"))
                case _ where keep.contains(byte):
                    out.append(byte)
                default:
                    out.append(UInt8(ascii: "%"))
                    out.append(Hex.uppercaseDigit(byte >> 4))
                    out.append(Hex.uppercaseDigit(byte & 0x0F))
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
