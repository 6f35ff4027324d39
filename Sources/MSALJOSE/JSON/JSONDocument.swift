import MSALSupport

/// A parsed JSON document: the original bytes plus a flat "tape" of value
/// entries that point into them.
///
/// Parsing validates the whole document (RFC 8259 grammar, strict UTF-8,
/// no trailing bytes, the caps of ``JSONLimits``) in one pass without creating
/// any `String`, dictionary or array per value; strings and numbers are
/// materialized only when a caller asks for them. This keeps decoding a JWT
/// header and claim set to a few hundred nanoseconds. Foundation's
/// `JSONSerialization`/`JSONDecoder` measured 3–10× slower on these inputs;
/// see `docs/performance.md`.
package struct JSONDocument: Sendable {
    /// The kinds of JSON value.
    package enum Kind: UInt8, Sendable {
        case object, array, string, number, `true`, `false`, null
    }

    package struct Entry: Sendable {
        /// Value kind.
        var kind: Kind
        /// For strings: contains a backslash escape. For numbers: has a fraction or exponent.
        var flag: Bool
        /// Offset of the first byte (for strings: after the opening quote).
        var start: Int32
        /// Offset after the last byte (for strings: of the closing quote).
        var end: Int32
        /// Tape index of the next sibling (the entry after this value and all of its descendants).
        var next: Int32
        /// For containers: the number of elements or members.
        var count: Int32
    }

    /// The document's bytes.
    package let bytes: [UInt8]
    /// The values in document order; entry 0 is the root.
    package let tape: [Entry]

    /// Parses `bytes` as one JSON value.
    ///
    /// - Throws: ``JOSEError`` with ``JOSEError/Code/invalidJSON``, ``JOSEError/Code/duplicateMember``
    ///   or ``JOSEError/Code/limitExceeded``.
    package init(parsing bytes: [UInt8], limits: JSONLimits) throws(JOSEError) {
        guard bytes.count <= limits.maxBytes else {
            throw JOSEError(.limitExceeded, "JSON document of \(bytes.count) bytes exceeds the \(limits.maxBytes)-byte limit")
        }
        guard bytes.count < Int(Int32.max) else {
            throw JOSEError(.limitExceeded, "JSON document is too large")
        }
        self.bytes = bytes
        self.tape = try bytes.withUnsafeBufferPointer { (buffer) throws(JOSEError) -> [Entry] in
            var parser = JSONParser(buffer: buffer, limits: limits)
            return try parser.parseDocument()
        }
    }

    /// The root value.
    package var root: JSONValue {
        JSONValue(document: self, index: 0)
    }
}

/// One pass over the bytes that fills the tape.
private struct JSONParser {
    let buffer: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var position = 0
    var tape: [JSONDocument.Entry] = []

    init(buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.buffer = buffer
        self.limits = limits
        tape.reserveCapacity(min(64, buffer.count / 4 + 1))
    }

    mutating func parseDocument() throws(JOSEError) -> [JSONDocument.Entry] {
        skipWhitespace()
        if position + 2 < buffer.count, buffer[position] == 0xEF, buffer[position + 1] == 0xBB, buffer[position + 2] == 0xBF {
            throw fail("a byte-order mark is not allowed")
        }
        try parseValue(depth: 0)
        skipWhitespace()
        guard position == buffer.count else {
            throw fail("unexpected bytes after the JSON value")
        }
        return tape
    }

    func fail(_ message: String) -> JOSEError {
        JOSEError(.invalidJSON, "\(message) (offset \(position))")
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < buffer.count {
            switch buffer[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func append(_ kind: JSONDocument.Kind, flag: Bool, start: Int, end: Int) throws(JOSEError) {
        guard tape.count < limits.maxValues else {
            throw JOSEError(.limitExceeded, "JSON document has more than \(limits.maxValues) values")
        }
        let index = Int32(tape.count)
        tape.append(.init(kind: kind, flag: flag, start: Int32(start), end: Int32(end), next: index + 1, count: 0))
    }

    mutating func parseValue(depth: Int) throws(JOSEError) {
        guard position < buffer.count else {
            throw fail("unexpected end of JSON")
        }
        switch buffer[position] {
        case UInt8(ascii: "{"):
            try parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            try parseString()
        case UInt8(ascii: "t"):
            try parseLiteral("true", .true)
        case UInt8(ascii: "f"):
            try parseLiteral("false", .false)
        case UInt8(ascii: "n"):
            try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try parseNumber()
        default:
            throw fail("unexpected character")
        }
    }

    mutating func parseLiteral(_ literal: StaticString, _ kind: JSONDocument.Kind) throws(JOSEError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= buffer.count else {
            throw fail("unexpected end of JSON")
        }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where buffer[position + offset] != expected[offset] {
            throw fail("invalid literal")
        }
        try append(kind, flag: false, start: position, end: position + count)
        position += count
    }

    mutating func parseNumber() throws(JOSEError) {
        let start = position
        switch JSONGrammar.numberEnd(in: buffer, at: start) {
        case .success(let number):
            position = number.end
            try append(.number, flag: !number.isInteger, start: start, end: position)
        case .failure(let failure):
            position = failure.position
            throw fail(failure.violation.message)
        }
    }

    mutating func parseString() throws(JOSEError) {
        position += 1  // opening quote
        let start = position
        var hasEscapes = false
        while true {
            guard position < buffer.count else {
                throw fail("unterminated string")
            }
            let byte = buffer[position]
            if byte == UInt8(ascii: "\"") {
                break
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try skipEscape()
            } else if byte < 0x20 {
                throw fail("control character in string")
            } else if byte < 0x80 {
                position += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        try append(.string, flag: hasEscapes, start: start, end: position)
        position += 1  // closing quote
    }

    mutating func skipEscape() throws(JOSEError) {
        switch JSONGrammar.escapeLength(in: buffer, at: position) {
        case .success(let length): position += length
        case .failure(let failure):
            position = failure.position
            throw fail(failure.violation.message)
        }
    }

    /// Validates one multi-byte UTF-8 sequence (``JSONGrammar/utf8SequenceLength(in:at:)``).
    mutating func skipUTF8Sequence() throws(JOSEError) {
        switch JSONGrammar.utf8SequenceLength(in: buffer, at: position) {
        case .success(let length): position += length
        case .failure(let failure):
            position = failure.position
            throw fail(failure.violation.message)
        }
    }

    mutating func parseArray(depth: Int) throws(JOSEError) {
        guard depth <= limits.maxDepth else {
            throw JOSEError(.limitExceeded, "JSON nesting deeper than \(limits.maxDepth)")
        }
        let index = tape.count
        try append(.array, flag: false, start: position, end: position)
        position += 1
        var count: Int32 = 0
        skipWhitespace()
        if position < buffer.count, buffer[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                try parseValue(depth: depth)
                count += 1
                skipWhitespace()
                guard position < buffer.count else { throw fail("unterminated array") }
                if buffer[position] == UInt8(ascii: ",") {
                    position += 1
                } else if buffer[position] == UInt8(ascii: "]") {
                    position += 1
                    break
                } else {
                    throw fail("expected ',' or ']'")
                }
            }
        }
        tape[index].end = Int32(position)
        tape[index].next = Int32(tape.count)
        tape[index].count = count
    }

    mutating func parseObject(depth: Int) throws(JOSEError) {
        guard depth <= limits.maxDepth else {
            throw JOSEError(.limitExceeded, "JSON nesting deeper than \(limits.maxDepth)")
        }
        let index = tape.count
        try append(.object, flag: false, start: position, end: position)
        position += 1
        var count: Int32 = 0
        skipWhitespace()
        if position < buffer.count, buffer[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                guard position < buffer.count, buffer[position] == UInt8(ascii: "\"") else {
                    throw fail("expected a member name")
                }
                try parseString()
                skipWhitespace()
                guard position < buffer.count, buffer[position] == UInt8(ascii: ":") else {
                    throw fail("expected ':'")
                }
                position += 1
                skipWhitespace()
                try parseValue(depth: depth)
                count += 1
                skipWhitespace()
                guard position < buffer.count else { throw fail("unterminated object") }
                if buffer[position] == UInt8(ascii: ",") {
                    position += 1
                } else if buffer[position] == UInt8(ascii: "}") {
                    position += 1
                    break
                } else {
                    throw fail("expected ',' or '}'")
                }
            }
        }
        tape[index].end = Int32(position)
        tape[index].next = Int32(tape.count)
        tape[index].count = count
        if limits.rejectDuplicateKeys, count > 1 {
            try checkDuplicateKeys(objectIndex: index)
        }
    }

    /// Rejects an object that names a member twice. Pairwise for small objects,
    /// hashed for large ones so the check stays linear.
    func checkDuplicateKeys(objectIndex: Int) throws(JOSEError) {
        var keyIndices: [Int] = []
        keyIndices.reserveCapacity(Int(tape[objectIndex].count))
        var cursor = objectIndex + 1
        let end = Int(tape[objectIndex].next)
        while cursor < end {
            keyIndices.append(cursor)
            cursor = Int(tape[cursor + 1].next)
        }
        if keyIndices.count <= 16 {
            for i in 0..<keyIndices.count {
                for j in (i + 1)..<keyIndices.count where keysEqual(keyIndices[i], keyIndices[j]) {
                    throw duplicate(keyIndices[j])
                }
            }
            return
        }
        var seen = Set<[UInt8]>(minimumCapacity: keyIndices.count)
        for key in keyIndices where !seen.insert(decodedKey(key)).inserted {
            throw duplicate(key)
        }
    }

    func duplicate(_ keyIndex: Int) -> JOSEError {
        let name = String(decoding: decodedKey(keyIndex).prefix(64), as: UTF8.self)
        return JOSEError(.duplicateMember, "JSON object has the member \"\(name)\" more than once")
    }

    func keysEqual(_ a: Int, _ b: Int) -> Bool {
        let ea = tape[a]
        let eb = tape[b]
        if !ea.flag, !eb.flag {
            let length = Int(ea.end - ea.start)
            guard length == Int(eb.end - eb.start) else { return false }
            return memcmp(buffer.baseAddress! + Int(ea.start), buffer.baseAddress! + Int(eb.start), length) == 0
        }
        return decodedKey(a) == decodedKey(b)
    }

    func decodedKey(_ index: Int) -> [UInt8] {
        let entry = tape[index]
        let raw = UnsafeBufferPointer(rebasing: buffer[Int(entry.start)..<Int(entry.end)])
        return entry.flag ? JSONStringDecoding.unescape(raw) : Array(raw)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
