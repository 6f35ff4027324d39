import MSALSupport

/// The RFC 8259 rules ``JSONScanner`` applies byte for byte, for every reader built on it
/// (`JSONDocument` for JOSE and protocol responses, the token cache's schema mapping). Each rule
/// returns the length of what it
/// accepted, or the violation, which each reader turns into its own error; the readers keep only
/// their fast paths (plain ASCII, whitespace runs) and what they build.
public enum JSONGrammar {
    /// Why bytes are not JSON.
    public enum Violation: Error, Equatable, Sendable {
        case unterminatedEscape
        case invalidEscape
        case truncatedUnicodeEscape
        case invalidUnicodeEscape
        case unpairedSurrogate
        case invalidUTF8
        case truncatedUTF8
        case invalidNumber
        case invalidFraction
        case invalidExponent

        /// The message the readers report.
        @usableFromInline package var message: String {
            switch self {
            case .unterminatedEscape: "unterminated escape"
            case .invalidEscape: "invalid escape"
            case .truncatedUnicodeEscape: "truncated \\u escape"
            case .invalidUnicodeEscape: "invalid \\u escape"
            case .unpairedSurrogate: "unpaired surrogate escape"
            case .invalidUTF8: "invalid UTF-8"
            case .truncatedUTF8: "truncated UTF-8"
            case .invalidNumber: "invalid number"
            case .invalidFraction: "invalid number fraction"
            case .invalidExponent: "invalid number exponent"
            }
        }
    }

    /// A violation and where the reader reports it (an absolute offset into the bytes).
    public struct Failure: Error, Equatable, Sendable {
        /// What is wrong.
        @usableFromInline package var violation: Violation
        /// Where: the escape's backslash, or just after a `\\u` escape that a surrogate rule
        /// rejects; a UTF-8 sequence's lead byte; where a number's digit was expected.
        @usableFromInline package var position: Int

        /// `violation` at `position`.
        @inlinable
        package init(_ violation: Violation, at position: Int) {
            self.violation = violation
            self.position = position
        }
    }

    /// The length of the escape whose backslash is at `position` (2, 6, or 12 for a surrogate pair).
    @inlinable
    package static func escapeLength(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Result<Int, Failure> {
        guard position + 1 < bytes.count else { return .failure(Failure(.unterminatedEscape, at: position)) }
        switch bytes[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return .success(2)
        case UInt8(ascii: "u"):
            guard position + 6 <= bytes.count else { return .failure(Failure(.truncatedUnicodeEscape, at: position)) }
            guard let unit = Hex.value(ofDigitsIn: bytes, at: position + 2, count: 4) else {
                return .failure(Failure(.invalidUnicodeEscape, at: position))
            }
            let next = position + 6
            if unit >= 0xDC00, unit < 0xE000 { return .failure(Failure(.unpairedSurrogate, at: next)) }
            guard unit >= 0xD800, unit < 0xDC00 else { return .success(6) }
            guard next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                return .failure(Failure(.unpairedSurrogate, at: next))
            }
            guard next + 6 <= bytes.count else { return .failure(Failure(.truncatedUnicodeEscape, at: next)) }
            guard let low = Hex.value(ofDigitsIn: bytes, at: next + 2, count: 4) else {
                return .failure(Failure(.invalidUnicodeEscape, at: next))
            }
            guard low >= 0xDC00, low < 0xE000 else { return .failure(Failure(.unpairedSurrogate, at: next)) }
            return .success(12)
        default:
            return .failure(Failure(.invalidEscape, at: position))
        }
    }

    /// The length of the multi-byte UTF-8 sequence whose lead byte is at `position`: no overlongs,
    /// no surrogates, at most U+10FFFF.
    @inlinable
    package static func utf8SequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Result<Int, Failure> {
        let length: Int
        var lowerBound: UInt8 = 0x80
        var upperBound: UInt8 = 0xBF
        switch bytes[position] {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowerBound = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upperBound = 0x9F
        case 0xF0: length = 4; lowerBound = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upperBound = 0x8F
        default: return .failure(Failure(.invalidUTF8, at: position))
        }
        guard position + length <= bytes.count else { return .failure(Failure(.truncatedUTF8, at: position)) }
        let second = bytes[position + 1]
        guard second >= lowerBound, second <= upperBound else { return .failure(Failure(.invalidUTF8, at: position)) }
        for offset in 2..<max(2, length) where bytes[position + offset] & 0xC0 != 0x80 {
            return .failure(Failure(.invalidUTF8, at: position))
        }
        return .success(length)
    }

    /// The end of the number starting at `position` (`-`, integer part without leading zeros,
    /// fraction, exponent), and whether it is an integer.
    @inlinable
    package static func numberEnd(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Result<(end: Int, isInteger: Bool), Failure> {
        var position = start
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { return .failure(Failure(.invalidNumber, at: position)) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if isDigit(bytes[position]) {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        } else {
            return .failure(Failure(.invalidNumber, at: position))
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { return .failure(Failure(.invalidFraction, at: position)) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { return .failure(Failure(.invalidExponent, at: position)) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        return .success((position, isInteger))
    }

    /// Whether `byte` is an ASCII digit.
    @inlinable @inline(__always)
    package static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
