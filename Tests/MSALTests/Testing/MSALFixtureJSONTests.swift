import Foundation
import MSALTesting
import Testing

@Suite("MSALFixtureJSON: strict parsing and stable compact serialization")
struct MSALFixtureJSONTests {
    @Test("Member order and number spelling survive a round trip")
    func roundTrip() throws {
        let text = #"{ "z": 1.50, "a": [true, false, null, -0, 2e10, "x"], "m": {"k": {}} , "e": [] }"#
        let value = try MSALFixtureJSON(parsing: Array(text.utf8))
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"z":1.50,"a":[true,false,null,-0,2e10,"x"],"m":{"k":{}},"e":[]}"#)
        #expect(value.members?.map(\.name) == ["z", "a", "m", "e"])
        #expect(value["z"]?.numberValue == 1.5)
        #expect(value["z"]?.intValue == nil)
        #expect(value["a"]?.arrayValue?.count == 6)
        #expect(value["a"]?.arrayValue?[0].boolValue == true)
        #expect(value["a"]?.arrayValue?[2].isNull == true)
        #expect(value["a"]?.arrayValue?[5].stringValue == "x")
        #expect(value["missing"] == nil)
        #expect(value["m"]?["k"]?.typeName == "object")
    }

    @Test("Escapes are decoded and re-escaped minimally")
    func escapes() throws {
        let text = #"["\u00e9\ud83d\ude00\n\"\\\/\t\u0001", "é"]"#
        let value = try MSALFixtureJSON(parsing: Array(text.utf8))
        #expect(value.arrayValue?[0].stringValue == "é😀\n\"\\/\t\u{01}")
        #expect(value.arrayValue?[1].stringValue == "é")
        #expect(value.description == #"["é😀\n\"\\/\t\u0001","é"]"#)
    }

    @Test("A leading byte-order mark is skipped")
    func byteOrderMark() throws {
        let value = try MSALFixtureJSON(parsing: [0xEF, 0xBB, 0xBF] + Array("{\"a\":1}".utf8))
        #expect(value["a"]?.intValue == 1)
    }

    @Test(
        "Invalid JSON is rejected with invalidJSON",
        arguments: [
            ("{", "expected a member name (offset 1)"),
            (#"{"a":1} x"#, "unexpected bytes after the JSON value (offset 8)"),
            (#"{"a":1,"a":2}"#, #"the member "a" more than once"#),
            ("[01]", "expected ',' or ']' (offset 2)"),
            ("[1.]", "invalid number fraction (offset 3)"),
            ("[1e]", "invalid number exponent (offset 3)"),
            (#"["\ud800"]"#, "unpaired surrogate escape (offset 8)"),
            (#"["\udc00"]"#, "unpaired surrogate escape (offset 8)"),
            (#"["\x"]"#, "invalid escape (offset 2)"),
            ("[\"a\u{01}\"]", "control character in string (offset 3)"),
            ("[tru]", "invalid literal (offset 1)"),
            ("[1,]", "unexpected character (offset 3)"),
            (#"{"a" 1}"#, "expected ':' (offset 5)"),
            ("", "unexpected end of JSON (offset 0)"),
        ])
    func invalid(text: String, reason: String) {
        let error = #expect(throws: MSALFailure.self) { try MSALFixtureJSON(parsing: Array(text.utf8)) }
        #expect(error?.internalCode == .invalidJSON)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test("After a byte-order mark, error offsets still count the caller's bytes")
    func byteOrderMarkOffsets() {
        let error = #expect(throws: MSALFailure.self) {
            try MSALFixtureJSON(parsing: [0xEF, 0xBB, 0xBF] + Array(#"{"a":1} x"#.utf8))
        }
        #expect(error?.internalCode == .invalidJSON)
        #expect(error?.message.contains("(offset 11)") == true, "\(error?.message ?? "")")
    }

    @Test("A duplicate member's name reaches the error message escaped (terminal controls, bidi overrides)")
    func duplicateMemberNameEscaped() {
        // JSON escapes, which the reader decodes into ESC and U+202E.
        let name = #"a\u001b[2J\u202eb"#
        let error = #expect(throws: MSALFailure.self) {
            try MSALFixtureJSON(parsing: Array("{\"\(name)\": 1, \"\(name)\": 2}".utf8))
        }
        #expect(error?.internalCode == .invalidJSON)
        let message = error?.message ?? ""
        #expect(message.contains("more than once"), "\(message)")
        #expect(!message.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" }, "\(message)")
        #expect(message.contains(#"\u{1b}"#), "\(message)")
    }

    @Test("A second byte-order mark is not skipped")
    func secondByteOrderMark() {
        let error = #expect(throws: MSALFailure.self) {
            try MSALFixtureJSON(parsing: [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("{}".utf8))
        }
        #expect(error?.internalCode == .invalidJSON)
    }

    @Test("A document of several MiB is accepted; one over 16 MiB is rejected with invalidJSON")
    func size() throws {
        let large = String(repeating: "x", count: 8 * 1024 * 1024)
        let value = try MSALFixtureJSON(parsing: Array(#"{"body_text":""#.utf8) + Array(large.utf8) + Array(#""}"#.utf8))
        #expect(value["body_text"]?.stringValue?.utf8.count == large.utf8.count)
        let tooLarge = [UInt8](repeating: 0x20, count: 16 * 1024 * 1024) + Array("{}".utf8)
        let error = #expect(throws: MSALFailure.self) { try MSALFixtureJSON(parsing: tooLarge) }
        #expect(error?.internalCode == .invalidJSON)
        #expect(error?.message.contains("16777216-byte limit") == true, "\(error?.message ?? "")")
    }

    @Test("Invalid UTF-8 inside a string is rejected")
    func invalidUTF8() {
        let error = #expect(throws: MSALFailure.self) { try MSALFixtureJSON(parsing: [0x22, 0xFF, 0x22]) }
        #expect(error?.message.contains("UTF-8") == true)
    }

    @Test("Nesting deeper than 256 levels is rejected, not a stack overflow")
    func depth() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = #expect(throws: MSALFailure.self) { try MSALFixtureJSON(parsing: Array(deep.utf8)) }
        #expect(error?.message.contains("nesting") == true)
        let justOver = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        #expect(throws: MSALFailure.self) { try MSALFixtureJSON(parsing: Array(justOver.utf8)) }
        let fine = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        _ = try MSALFixtureJSON(parsing: Array(fine.utf8))
    }

    @Test("More than a million values is rejected with invalidJSON")
    func valueCount() throws {
        let many = "[" + Array(repeating: "0", count: 1_000_000).joined(separator: ",") + "]"
        let error = #expect(throws: MSALFailure.self) { try MSALFixtureJSON(parsing: Array(many.utf8)) }
        #expect(error?.internalCode == .invalidJSON)
        #expect(error?.message.contains("more than 1000000 values") == true, "\(error?.message ?? "")")
        let enough = "[" + Array(repeating: "0", count: 999_999).joined(separator: ",") + "]"
        #expect(try MSALFixtureJSON(parsing: Array(enough.utf8)).arrayValue?.count == 999_999)
    }
}
