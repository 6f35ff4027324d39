import Testing

@testable import MSALJSON

/// The grammar rules the JSON scanner applies for every reader (`JSONDocument` and the token
/// cache's schema mapping): each returns what it accepted or the violation reported.
@Suite("JSON grammar the scanner applies")
struct JSONGrammarTests {
    static func escape(_ text: String) -> Result<Int, JSONGrammar.Violation> {
        Array(text.utf8).withUnsafeBufferPointer { JSONGrammar.escapeLength(in: $0, at: 0) }.mapError(\.violation)
    }

    static func utf8(_ bytes: [UInt8]) -> Result<Int, JSONGrammar.Violation> {
        bytes.withUnsafeBufferPointer { JSONGrammar.utf8SequenceLength(in: $0, at: 0) }.mapError(\.violation)
    }

    static func number(_ text: String) -> Result<(end: Int, isInteger: Bool), JSONGrammar.Violation> {
        Array(text.utf8).withUnsafeBufferPointer { JSONGrammar.numberEnd(in: $0, at: 0) }.mapError(\.violation)
    }

    @Test("Escapes: the eight single ones, \\u, surrogate pairs; everything else is named")
    func escapes() throws {
        for single in [#"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#] {
            #expect(try Self.escape(single).get() == 2)
        }
        #expect(try Self.escape(#"\u00e9x"#).get() == 6)
        #expect(try Self.escape(#"\uD83D\uDE00"#).get() == 12)
        #expect(Self.escape(#"\"#) == .failure(.unterminatedEscape))
        #expect(Self.escape(#"\x"#) == .failure(.invalidEscape))
        #expect(Self.escape(#"\u00"#) == .failure(.truncatedUnicodeEscape))
        #expect(Self.escape(#"\u00g0"#) == .failure(.invalidUnicodeEscape))
        #expect(Self.escape(#"\uDE00"#) == .failure(.unpairedSurrogate))
        #expect(Self.escape(#"\uD83Dx"#) == .failure(.unpairedSurrogate))
        #expect(Self.escape(#"\uD83D\u0041"#) == .failure(.unpairedSurrogate))
        #expect(Self.escape(#"\uD83D\uDE"#) == .failure(.truncatedUnicodeEscape))
        #expect(Self.escape(#"\uD83D\uZZZZ"#) == .failure(.invalidUnicodeEscape))
    }

    @Test("UTF-8: lengths 2 to 4; overlongs, surrogates, above U+10FFFF and truncation refused")
    func utf8Sequences() throws {
        #expect(try Self.utf8([0xC3, 0xA9]).get() == 2)
        #expect(try Self.utf8([0xE2, 0x82, 0xAC]).get() == 3)
        #expect(try Self.utf8([0xF0, 0x9F, 0x98, 0x80]).get() == 4)
        #expect(Self.utf8([0xC0, 0xAF]) == .failure(.invalidUTF8))  // overlong
        #expect(Self.utf8([0xE0, 0x80, 0xAF]) == .failure(.invalidUTF8))  // overlong
        #expect(Self.utf8([0xED, 0xA0, 0x80]) == .failure(.invalidUTF8))  // surrogate
        #expect(Self.utf8([0xF4, 0x90, 0x80, 0x80]) == .failure(.invalidUTF8))  // above U+10FFFF
        #expect(Self.utf8([0xE2, 0x28, 0xA1]) == .failure(.invalidUTF8))
        #expect(Self.utf8([0xE2, 0x82, 0x28]) == .failure(.invalidUTF8))
        #expect(Self.utf8([0xF0, 0x9F, 0x98]) == .failure(.truncatedUTF8))
        #expect(Self.utf8([0x80]) == .failure(.invalidUTF8))
    }

    @Test("Numbers: RFC 8259's grammar, and whether the number is an integer")
    func numbers() throws {
        for (text, end, isInteger) in [
            ("0", 1, true), ("-12,", 3, true), ("1.5]", 3, false), ("1e9", 3, false), ("-0.25E-3}", 8, false), ("01", 1, true),
        ] as [(String, Int, Bool)] {
            let result = try Self.number(text).get()
            #expect(result.end == end, "\(text)")
            #expect(result.isInteger == isInteger, "\(text)")
        }
        #expect(throws: JSONGrammar.Violation.invalidNumber) { try Self.number("-").get() }
        #expect(throws: JSONGrammar.Violation.invalidNumber) { try Self.number("+1").get() }
        #expect(throws: JSONGrammar.Violation.invalidFraction) { try Self.number("1.").get() }
        #expect(throws: JSONGrammar.Violation.invalidExponent) { try Self.number("1e+").get() }
    }

    @Test("Where each violation is reported: the readers' error offsets")
    func positions() {
        func at(_ text: String, _ rule: (UnsafeBufferPointer<UInt8>) -> JSONGrammar.Failure?) -> Int? {
            Array(text.utf8).withUnsafeBufferPointer { rule($0)?.position }
        }
        func escape(_ text: String) -> Int? {
            at(text) { if case .failure(let failure) = JSONGrammar.escapeLength(in: $0, at: 0) { failure } else { nil } }
        }
        func number(_ text: String) -> Int? {
            at(text) { if case .failure(let failure) = JSONGrammar.numberEnd(in: $0, at: 0) { failure } else { nil } }
        }
        #expect(escape(#"\x"#) == 0)
        #expect(escape(#"\u00g0"#) == 0)
        #expect(escape(#"\uDC00"#) == 6)  // after the escape a surrogate rule rejects
        #expect(escape(#"\uD800x"#) == 6)
        #expect(escape(#"\uD800\u00"#) == 6)
        #expect(number("1.") == 2)  // where the digit was expected
        #expect(number("1e+") == 3)
        #expect(number("-x") == 1)
    }
}
