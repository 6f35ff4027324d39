import Testing

@testable import MSALJSON

@Suite("JSON member lookup")
struct JSONLookupTests {
    @Test("Finds plain, escaped and empty names; skips nested members; misses cleanly")
    func lookups() throws {
        let text = #"{"a":1,"b\u0063":2,"":3,"nested":{"x":5,"y":[1,{"z":6}]},"caf\u00e9":7,"after":"v"}"#
        let document = try JSONDocument(parsing: Array(text.utf8), limits: .token)
        let root = document.root
        #expect(root["a"]?.int64 == 1)
        #expect(root["bc"]?.int64 == 2)
        #expect(root[""]?.int64 == 3)
        #expect(root["nested"]?["y"]?.count == 2)
        #expect(root["café"]?.int64 == 7)
        #expect(root["cafe\u{301}"] == nil)  // names compare byte-exactly after unescaping, never by canonical equivalence
        #expect(root["after"]?.string == "v")
        #expect(root["x"] == nil)
        #expect(root["z"] == nil)
        #expect(root["b"] == nil)
        #expect(root["a"]?["a"] == nil)  // not an object
    }
}
