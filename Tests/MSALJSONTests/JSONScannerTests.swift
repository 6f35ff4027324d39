import Testing

@testable import MSALJSON

/// The scanner's wide string and whitespace paths (8, 16 and 32 bytes at a time) against a plain
/// byte-by-byte reading of the same rules, with the byte that matters at every offset around the
/// load widths.
@Suite("JSON scanner: wide paths agree with a byte-by-byte reading")
struct JSONScannerTests {
    /// What a byte-by-byte reader makes of the string whose opening quote is at 0.
    enum Expected: Equatable {
        case string(end: Int, form: JSONStringForm)
        case failure(String, offset: Int)
    }

    static func reference(_ bytes: [UInt8]) -> Expected {
        var position = 1
        var form = JSONStringForm.clean
        return bytes.withUnsafeBufferPointer { buffer in
            while position < buffer.count {
                let byte = buffer[position]
                switch byte {
                case UInt8(ascii: "\""):
                    return .string(end: position, form: form)
                case UInt8(ascii: "\\"):
                    form = .escaped
                    switch JSONGrammar.escapeLength(in: buffer, at: position) {
                    case .success(let length): position += length
                    case .failure(let failure): return .failure(failure.violation.message, offset: failure.position)
                    }
                case 0..<0x20:
                    return .failure("control character in string", offset: position)
                case 0x7F:
                    if form == .clean { form = .unescapedNeedsEncoding }
                    position += 1
                case 0x80...:
                    switch JSONGrammar.utf8SequenceLength(in: buffer, at: position) {
                    case .success(let length): position += length
                    case .failure(let failure): return .failure(failure.violation.message, offset: failure.position)
                    }
                default:
                    position += 1
                }
            }
            return .failure("unterminated string", offset: position)
        }
    }

    static func scanned(_ bytes: [UInt8]) -> Expected {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer, limits: .document)
            do throws(JSONScanner.Failure) {
                let token = try scanner.scanString()
                #expect(token.start == 1)
                #expect(scanner.position == token.end + 1)
                return .string(end: token.end, form: token.form)
            } catch {
                guard case .invalid(let message, let offset) = error else { return .failure("\(error)", offset: -1) }
                return .failure(message, offset: offset)
            }
        }
    }

    /// The bytes that stop a fast scan, each as it appears inside a string.
    static let specials: [(name: String, bytes: [UInt8])] = [
        ("quote", [0x22]),
        ("escape", Array(#"\n"#.utf8)),
        ("unicode escape", Array(#"\u00e9"#.utf8)),
        ("surrogate pair", Array(#"\uD83D\uDE00"#.utf8)),
        ("lone surrogate", Array(#"\uDE00"#.utf8)),
        ("bad escape", Array(#"\q"#.utf8)),
        ("control", [0x01]),
        ("tab", [0x09]),
        ("DEL", [0x7F]),
        ("two-byte UTF-8", [0xC3, 0xA9]),
        ("four-byte UTF-8", [0xF0, 0x9F, 0x98, 0x80]),
        ("overlong", [0xC0, 0xAF]),
        ("truncated UTF-8", [0xE2, 0x82]),
        ("stray continuation", [0x80]),
    ]

    @Test("One special byte at every offset from 0 to 70, in strings that end just after it or much later")
    func specialAtEveryOffset() {
        for special in Self.specials {
            for offset in 0...70 {
                for tail in [0, 1, 7, 8, 9, 31, 33, 64] {
                    var bytes: [UInt8] = [UInt8(ascii: "\"")]
                    bytes += (0..<offset).map { UInt8(ascii: "a") + UInt8($0 % 26) }
                    bytes += special.bytes
                    bytes += Array(repeating: UInt8(ascii: "z"), count: tail)
                    for closed in [bytes + [UInt8(ascii: "\"")], bytes] {
                        #expect(
                            Self.scanned(closed) == Self.reference(closed),
                            "\(special.name) at \(offset), \(tail) bytes after, closed: \(closed.last == 0x22)")
                    }
                }
            }
        }
    }

    @Test("Plain strings of every length from 0 to 100 end at their closing quote, clean")
    func plainLengths() {
        for length in 0...100 {
            let bytes = [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "x"), count: length) + [UInt8(ascii: "\"")]
            #expect(Self.scanned(bytes) == .string(end: length + 1, form: .clean), "length \(length)")
            let unterminated = Array(bytes.dropLast())
            #expect(Self.scanned(unterminated) == .failure("unterminated string", offset: length + 1), "length \(length)")
        }
    }

    @Test("Whitespace runs of every length from 0 to 40 are skipped to the next byte, spaces mixed with tabs and newlines")
    func whitespaceRuns() {
        for length in 0...40 {
            for pattern in [[UInt8(0x20)], [0x20, 0x20, 0x0A], [0x09, 0x20, 0x0D, 0x20, 0x20]] {
                let run = (0..<length).map { pattern[$0 % pattern.count] }
                let bytes = run + [UInt8(ascii: "1")]
                bytes.withUnsafeBufferPointer { buffer in
                    var scanner = JSONScanner(bytes: buffer, limits: .document)
                    scanner.skipWhitespace()
                    #expect(scanner.position == length, "length \(length), pattern \(pattern)")
                }
            }
        }
    }

    @Test("Values are counted once each, names included, against maxValues")
    func valueCounting() throws {
        let limits = JSONLimits(maxBytes: 1 << 20, maxDepth: 8, maxValues: 5, rejectDuplicateKeys: false)
        // {"a":[1,true]} is 5 values: the object, the name, the array, 1, true.
        #expect(throws: Never.self) { try JSONDocument(parsing: Array(#"{"a":[1,true]}"#.utf8), limits: limits) }
        #expect(throws: JSONError(.limitExceeded, "JSON document has more than 5 values")) {
            try JSONDocument(parsing: Array(#"{"a":[1,true,null]}"#.utf8), limits: limits)
        }
    }

    @Test("Error offsets are relative to where scanning began")
    func offsetsFromStart() {
        let bytes = Array("xxx[1,]".utf8)
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer, start: 3, limits: .document)
            #expect(throws: JSONScanner.Failure.invalid("unexpected character", offset: 3)) {
                try scanner.beginDocument()
                try scanner.skipValue(depth: 0)
            }
        }
    }
}
