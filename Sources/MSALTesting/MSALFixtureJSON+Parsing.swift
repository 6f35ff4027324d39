import Foundation

extension MSALFixtureJSON {
    /// Parses one JSON document (RFC 8259): strict syntax and UTF-8, no duplicate member
    /// names, at most 256 levels of nesting, a leading byte-order mark is skipped.
    ///
    /// - Throws: ``MSALError`` with internal code ``MSALInternalError/invalidJSON`` naming the byte offset.
    public init(parsing data: Data) throws {
        try self.init(parsing: [UInt8](data))
    }

    /// Parses one JSON document from bytes, with the rules of the `Data` initializer.
    public init(parsing bytes: [UInt8]) throws {
        var parser = FixtureJSONParser(bytes: bytes)
        self = try parser.parseDocument()
    }
}

/// A recursive-descent parser over bytes that keeps member order and number text.
private struct FixtureJSONParser {
    let bytes: [UInt8]
    var offset = 0
    static let maximumDepth = 256

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    mutating func parseDocument() throws -> MSALFixtureJSON {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if offset < bytes.count { throw failure("unexpected bytes after the document") }
        return value
    }

    func failure(_ reason: String) -> MSALError {
        MSALError(.internal, internalCode: .invalidJSON, message: "Invalid JSON at byte \(offset): \(reason)")
    }

    mutating func skipWhitespace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    mutating func parseValue(depth: Int) throws -> MSALFixtureJSON {
        guard offset < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: String) throws {
        let expected = Array(literal.utf8)
        guard bytes.count - offset >= expected.count, Array(bytes[offset..<offset + expected.count]) == expected else {
            throw failure("expected \(literal)")
        }
        offset += expected.count
    }

    mutating func parseObject(depth: Int) throws -> MSALFixtureJSON {
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth)") }
        offset += 1
        var members: [MSALFixtureJSON.Member] = []
        var names: Set<String> = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count else { throw failure("unexpected end of input in an object") }
            guard bytes[offset] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let nameOffset = offset
            let name = try parseString()
            guard names.insert(name).inserted else {
                offset = nameOffset
                throw failure("duplicate member \"\(name)\"")
            }
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            offset += 1
            skipWhitespace()
            members.append(MSALFixtureJSON.Member(name: name, value: try parseValue(depth: depth)))
            skipWhitespace()
            guard offset < bytes.count else { throw failure("unexpected end of input in an object") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            } else {
                throw failure("expected ',' or '}'")
            }
        }
    }

    mutating func parseArray(depth: Int) throws -> MSALFixtureJSON {
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth)") }
        offset += 1
        var elements: [MSALFixtureJSON] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard offset < bytes.count else { throw failure("unexpected end of input in an array") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            } else {
                throw failure("expected ',' or ']'")
            }
        }
    }

    mutating func parseNumber() throws -> String {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw failure("expected a digit") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < bytes.count, isDigit(bytes[offset]) { throw failure("leading zero in a number") }
        } else {
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw failure("expected a digit after '.'") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw failure("expected a digit in the exponent") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    mutating func parseString() throws -> String {
        offset += 1
        var out: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                guard let string = String(validating: out, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
                return string
            case UInt8(ascii: "\\"):
                offset += 1
                guard offset < bytes.count else { throw failure("unterminated escape") }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): out.append(contentsOf: try parseUnicodeEscape())
                default:
                    offset -= 1
                    throw failure("invalid escape")
                }
            case 0x00..<0x20:
                throw failure("unescaped control character in a string")
            default:
                out.append(byte)
                offset += 1
            }
        }
    }

    /// Reads the 4 hex digits after `\u` (and a following low surrogate) and returns UTF-8 bytes.
    mutating func parseUnicodeEscape() throws -> [UInt8] {
        let first = try readHex4()
        var scalarValue = first
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - offset >= 6, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                throw failure("unpaired surrogate")
            }
            offset += 2
            let second = try readHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("unpaired surrogate") }
            scalarValue = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw failure("unpaired surrogate")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw failure("invalid \\u escape") }
        return Array(String(Character(scalar)).utf8)
    }

    mutating func readHex4() throws -> UInt32 {
        guard bytes.count - offset >= 4 else { throw failure("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid hex digit in a \\u escape")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }
}
