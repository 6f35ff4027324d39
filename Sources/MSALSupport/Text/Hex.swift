/// Hexadecimal digits: the one decoder and encoder the package's modules share.
///
/// Decoding accepts `0-9`, `a-f` and `A-F` and nothing else (no spaces, no `0x` prefix, no odd
/// length); the digits written are lowercase (``digit(_:)``), or uppercase for percent-encoding.
public enum Hex {
    /// The value of one hexadecimal digit, or `nil` for any other byte.
    @inlinable @inline(__always)
    package static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }

    /// Whether `byte` is a hexadecimal digit.
    @inlinable @inline(__always)
    package static func isDigit(_ byte: UInt8) -> Bool {
        value(of: byte) != nil
    }

    /// The bytes that `text` spells as pairs of hexadecimal digits, or `nil` when it has an odd
    /// number of digits or any other character.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// The value of the `count` hexadecimal digits of `bytes` at `offset` (a JSON `\uXXXX`
    /// escape has four), or `nil` when there are fewer or one is not a digit.
    @inlinable
    package static func value(
        ofDigitsIn bytes: UnsafeBufferPointer<UInt8>, at offset: Int, count: Int
    ) -> UInt32? {
        guard offset >= 0, count <= 8, offset <= bytes.count - count else { return nil }
        var result: UInt32 = 0
        for index in offset..<(offset + count) {
            guard let digit = value(of: bytes[index]) else { return nil }
            result = result << 4 | UInt32(digit)
        }
        return result
    }

    /// The lowercase digit for `nibble` (0–15).
    @inlinable @inline(__always)
    package static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }

    /// The uppercase digit for `nibble` (0–15), as percent-encoding writes it (RFC 3986 §2.1).
    @inlinable @inline(__always)
    package static func uppercaseDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ nibble &- 10
    }

    /// `bytes` as lowercase hexadecimal digits, two per byte.
    package static func lowercase(_ bytes: [UInt8]) -> String {
        var digits: [UInt8] = []
        digits.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            digits.append(digit(byte >> 4))
            digits.append(digit(byte & 0x0F))
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
