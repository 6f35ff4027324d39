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
            ("{", "end of input"),
            (#"{"a":1} x"#, "after the document"),
            (#"{"a":1,"a":2}"#, "duplicate member \"a\""),
            ("[01]", "leading zero"),
            ("[1.]", "after '.'"),
            ("[1e]", "exponent"),
            (#"["\ud800"]"#, "unpaired surrogate"),
            (#"["\udc00"]"#, "unpaired surrogate"),
            (#"["\x"]"#, "invalid escape"),
            ("[\"a\u{01}\"]", "control character"),
            ("[tru]", "expected true"),
            ("[1,]", "unexpected character"),
            (#"{"a" 1}"#, "expected ':'"),
            ("", "end of input"),
        ])
    func invalid(text: String, reason: String) {
        let error = #expect(throws: MSALError.self) { try MSALFixtureJSON(parsing: Array(text.utf8)) }
        #expect(error?.internalCode == .invalidJSON)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test("Invalid UTF-8 inside a string is rejected")
    func invalidUTF8() {
        let error = #expect(throws: MSALError.self) { try MSALFixtureJSON(parsing: [0x22, 0xFF, 0x22]) }
        #expect(error?.message.contains("UTF-8") == true)
    }

    @Test("Nesting deeper than 256 levels is rejected, not a stack overflow")
    func depth() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = #expect(throws: MSALError.self) { try MSALFixtureJSON(parsing: Array(deep.utf8)) }
        #expect(error?.message.contains("nesting") == true)
        let fine = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        _ = try MSALFixtureJSON(parsing: Array(fine.utf8))
    }
}
