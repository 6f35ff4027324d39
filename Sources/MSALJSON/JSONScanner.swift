import MSALSupport

/// The one JSON reader of the package: a cursor over validated-as-it-goes bytes that both
/// ``JSONDocument`` (JOSE, protocol responses) and the token cache's schema mapping drive.
///
/// It applies RFC 8259 byte for byte (``JSONGrammar``), strict UTF-8, and the caps of
/// ``JSONLimits`` it can see on its own (values and depth); each reader decides what to build from
/// what it is handed (a string's bounds, a number's kind). Strings are scanned 32 bytes at a time
/// while they are plain (tokens), and short ones 8 at a time; runs of indentation 8 at a time.
///
/// Every read is at an offset checked against `count` first (multi-byte loads check
/// `position + width <= count`), so no read leaves the buffer. The buffer must outlive the scanner.
public struct JSONScanner {
    /// Why scanning stopped.
    public enum Failure: Error, Sendable, Equatable {
        /// Not JSON: what was wrong and where (relative to the scanner's start).
        case invalid(String, offset: Int)
        /// Over one of the limits.
        case limit(String)
        /// An object names a member twice (reported by a reader that checks; the scanner does not).
        case duplicateMember(String)
    }

    /// A string's content: the bytes between its quotes, already validated.
    public struct StringToken: Sendable, Equatable {
        /// Offset of the first byte after the opening quote.
        @usableFromInline package var start: Int
        /// Offset of the closing quote.
        @usableFromInline package var end: Int
        /// How the bytes relate to the string's UTF-8.
        @usableFromInline package var form: JSONStringForm

        /// The token of `start..<end` in `form`.
        @inlinable
        package init(start: Int, end: Int, form: JSONStringForm) {
            self.start = start
            self.end = end
            self.form = form
        }
    }

    /// The bytes.
    @usableFromInline package let bytes: UnsafeBufferPointer<UInt8>
    /// `bytes.count`.
    @usableFromInline package let count: Int
    /// The caps applied.
    @usableFromInline package let limits: JSONLimits
    /// Where the scanner is.
    @usableFromInline package var position: Int
    /// Values (member names included) seen so far, against `limits.maxValues`.
    @usableFromInline package var values = 0
    /// Where scanning began: error offsets are relative to it.
    @usableFromInline package let origin: Int

    /// A scanner over `bytes` from `start`.
    @inlinable
    package init(bytes: UnsafeBufferPointer<UInt8>, start: Int = 0, limits: JSONLimits) {
        self.bytes = bytes
        self.count = bytes.count
        self.limits = limits
        self.position = start
        self.origin = start
    }

    // MARK: Document

    /// Skips leading whitespace and refuses a byte-order mark.
    @inlinable
    package mutating func beginDocument() throws(Failure) {
        skipWhitespace()
        if position + 2 < count, bytes[position] == 0xEF, bytes[position + 1] == 0xBB, bytes[position + 2] == 0xBF {
            throw fail("a byte-order mark is not allowed")
        }
        guard position < count else { throw fail("unexpected end of JSON") }
    }

    /// Skips trailing whitespace and refuses anything else.
    @inlinable
    package mutating func endDocument() throws(Failure) {
        skipWhitespace()
        guard position == count else { throw fail("unexpected bytes after the JSON value") }
    }

    /// The byte at `position`, which must be inside the buffer (every caller has checked or
    /// been told so by ``memberName()``, ``beginDocument()`` or ``nextElementStart()``).
    @inlinable
    package var current: UInt8 { bytes[position] }

    // MARK: Containers

    /// Counts the container whose bracket is at `position` and checks its depth (the root
    /// container is depth 1), moves past the bracket, and says whether it has anything in it
    /// (when empty, it also moves past the closing bracket).
    @inlinable @inline(__always)
    package mutating func enterContainer(depth: Int) throws(Failure) -> Bool {
        guard depth <= limits.maxDepth else { throw .limit("JSON nesting deeper than \(limits.maxDepth)") }
        try countValue()
        let closing = bytes[position] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        position += 1
        skipWhitespace()
        if position < count, bytes[position] == closing {
            position += 1
            return false
        }
        return true
    }

    /// Reads a member's name and its colon, leaving `position` at the first byte of the value.
    @inlinable @inline(__always)
    package mutating func memberName() throws(Failure) -> StringToken {
        skipWhitespace()
        guard position < count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
        let name = try scanString()
        skipWhitespace()
        guard position < count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
        position += 1
        skipWhitespace()
        guard position < count else { throw fail("unexpected end of JSON") }
        return name
    }

    /// After a member's value: `true` at a comma (another member follows), `false` at the
    /// object's closing brace; moves past either.
    @inlinable @inline(__always)
    package mutating func nextMember() throws(Failure) -> Bool {
        try next(closing: UInt8(ascii: "}"), unterminated: "unterminated object", expected: "expected ',' or '}'")
    }

    /// Moves to the first byte of an array element.
    @inlinable
    package mutating func nextElementStart() throws(Failure) {
        skipWhitespace()
        guard position < count else { throw fail("unexpected end of JSON") }
    }

    /// After an element: `true` at a comma, `false` at the array's closing bracket; moves past either.
    @inlinable
    package mutating func nextElement() throws(Failure) -> Bool {
        try next(closing: UInt8(ascii: "]"), unterminated: "unterminated array", expected: "expected ',' or ']'")
    }

    @inlinable @inline(__always)
    mutating func next(closing: UInt8, unterminated: StaticString, expected: StaticString) throws(Failure) -> Bool {
        skipWhitespace()
        guard position < count else { throw fail("\(unterminated)") }
        if bytes[position] == UInt8(ascii: ",") {
            position += 1
            return true
        }
        guard bytes[position] == closing else { throw fail("\(expected)") }
        position += 1
        return false
    }

    // MARK: Values

    /// Counts one value against `limits.maxValues`.
    @inlinable @inline(__always)
    package mutating func countValue() throws(Failure) {
        values += 1
        guard values <= limits.maxValues else { throw .limit("JSON document has more than \(limits.maxValues) values") }
    }

    /// Validates any value at `position`, inside a container of depth `depth` (0 for the root),
    /// and moves past it.
    package mutating func skipValue(depth: Int) throws(Failure) {
        switch bytes[position] {
        case UInt8(ascii: "{"):
            guard try enterContainer(depth: depth + 1) else { return }
            repeat {
                _ = try memberName()
                try skipValue(depth: depth + 1)
            } while try nextMember()
        case UInt8(ascii: "["):
            guard try enterContainer(depth: depth + 1) else { return }
            repeat {
                try nextElementStart()
                try skipValue(depth: depth + 1)
            } while try nextElement()
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "t"):
            try scanLiteral("true")
        case UInt8(ascii: "f"):
            try scanLiteral("false")
        case UInt8(ascii: "n"):
            try scanLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber()
        default:
            throw fail("unexpected character")
        }
    }

    /// Counts and checks the literal at `position` and moves past it.
    @inlinable
    package mutating func scanLiteral(_ literal: StaticString) throws(Failure) {
        try countValue()
        let length = literal.utf8CodeUnitCount
        guard position + length <= count else { throw fail("unexpected end of JSON") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        for offset in 0..<length where bytes[position + offset] != expected[offset] {
            throw fail("invalid literal")
        }
        position += length
    }

    /// Counts and checks the number at `position`, moves past it, and says whether it is an integer
    /// (no fraction, no exponent).
    @inlinable
    package mutating func scanNumber() throws(Failure) -> Bool {
        try countValue()
        switch JSONGrammar.numberEnd(in: bytes, at: position) {
        case .success(let number):
            position = number.end
            return number.isInteger
        case .failure(let failure):
            position = failure.position
            throw fail(failure.violation.message)
        }
    }

    // MARK: Strings

    /// Counts and validates the string whose opening quote is at `position`, and moves past its
    /// closing quote.
    @inlinable @inline(__always)
    package mutating func scanString() throws(Failure) -> StringToken {
        try countValue()
        position += 1
        let stringStart = position
        var form = JSONStringForm.clean
        // Safe: `baseAddress` is non-nil because the opening quote was read from the buffer.
        let base = bytes.baseAddress!
        // Names and short values end within sixteen bytes: look there eight at a time first
        // (`position + 16 <= count` bounds both loads).
        if position &+ 16 <= count {
            let first = Self.stopMask(UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)))
            if first != 0 {
                position += first.trailingZeroBitCount >> 3
            } else {
                let second = Self.stopMask(UInt64(littleEndian: UnsafeRawPointer(base + position + 8).loadUnaligned(as: UInt64.self)))
                position += second != 0 ? 8 + second.trailingZeroBitCount >> 3 : 16
            }
            if position < count, base[position] == UInt8(ascii: "\"") {
                let stringEnd = position
                position += 1
                return StringToken(start: stringStart, end: stringEnd, form: form)
            }
        }
        while true {
            skipPlainBytes()
            guard position < count else { throw fail("unterminated string") }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                break
            } else if byte == UInt8(ascii: "\\") {
                form = .escaped
                switch JSONGrammar.escapeLength(in: bytes, at: position) {
                case .success(let length): position += length
                case .failure(let failure):
                    position = failure.position
                    throw fail(failure.violation.message)
                }
            } else if byte < 0x20 {
                throw fail("control character in string")
            } else if byte < 0x7F {
                position += 1
            } else if byte == 0x7F {
                if form == .clean { form = .unescapedNeedsEncoding }
                position += 1
            } else {
                switch JSONGrammar.utf8SequenceLength(in: bytes, at: position) {
                case .success(let length): position += length
                case .failure(let failure):
                    position = failure.position
                    throw fail(failure.violation.message)
                }
            }
        }
        let stringEnd = position
        position += 1
        return StringToken(start: stringStart, end: stringEnd, form: form)
    }

    /// Moves past printable ASCII other than `"` and `\\`: 32 bytes at a time while they are all
    /// plain (the bulk of a token), then 8 at a time to the byte to stop at.
    @inlinable @inline(__always)
    mutating func skipPlainBytes() {
        guard let base = bytes.baseAddress else { return }
        let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
        let backslash = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        let space = SIMD16<UInt8>(repeating: 0x20)
        let outside = SIMD16<UInt8>(repeating: 0x5F)
        // `position + 32 <= count` bounds both loads.
        while position &+ 32 <= count {
            let raw = UnsafeRawPointer(base + position)
            let low = raw.loadUnaligned(as: SIMD16<UInt8>.self)
            let high = raw.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
            // Everything outside 0x20...0x7E, shifted down by 0x20, lands at 0x5F or above.
            let stop =
                (low .== quote) .| (low .== backslash) .| ((low &- space) .>= outside)
                .| (high .== quote) .| (high .== backslash) .| ((high &- space) .>= outside)
            // `any(stop)` without the generic reduction: the mask's lanes are 0 or all ones.
            // Sound: a 16-lane byte mask is 16 bytes, and any 16 bytes are two valid UInt64s.
            let lanes = unsafeBitCast(stop, to: SIMD2<UInt64>.self)
            if lanes[0] | lanes[1] != 0 { break }
            position += 32
        }
        // `position + 8 <= count` bounds the load.
        while position &+ 8 <= count {
            let mask = Self.stopMask(UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)))
            if mask != 0 {
                position += mask.trailingZeroBitCount >> 3
                return
            }
            position += 8
        }
    }

    /// A mask with the high bit set in every byte of `word` that a string scan must stop at: `"`,
    /// `\\`, a control character, DEL or a non-ASCII byte; zero when there is none.
    ///
    /// Each test works on the low seven bits of every byte, where adding at most 0x7F cannot carry
    /// into the next byte, so every byte is judged on its own (no false positives): `t + 0x01`
    /// reaches the high bit only for 0x7F, `t + 0x60` for 0x20 and above, `(t ^ c) + 0x7F` for
    /// anything but `c`.
    @inlinable @inline(__always)
    static func stopMask(_ word: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let low7 = word & low
        let delete = low7 &+ 0x0101_0101_0101_0101
        let printable = low7 &+ 0x6060_6060_6060_6060
        let notQuote = (low7 ^ 0x2222_2222_2222_2222) &+ low
        let notBackslash = (low7 ^ 0x5C5C_5C5C_5C5C_5C5C) &+ low
        return (word | delete | ~(printable & notQuote & notBackslash)) & 0x8080_8080_8080_8080
    }

    // MARK: Whitespace and errors

    /// Moves past whitespace; runs of spaces (indentation) eight at a time.
    @inlinable @inline(__always)
    package mutating func skipWhitespace() {
        while position < count {
            switch bytes[position] {
            case 0x20:
                // `position + 8 <= count` bounds the load; `baseAddress` is non-nil since `count` > `position`.
                while position &+ 8 <= count {
                    let others = UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self) ^ 0x2020_2020_2020_2020
                    if others != 0 {
                        position += UInt64(littleEndian: others).trailingZeroBitCount >> 3
                        break
                    }
                    position += 8
                }
                if position < count, bytes[position] == 0x20 { position += 1 }
            case 0x09, 0x0A, 0x0D:
                position += 1
            default:
                return
            }
        }
    }

    /// `message` at the current position.
    @inlinable
    package func fail(_ message: String) -> Failure {
        .invalid(message, offset: position - origin)
    }
}
