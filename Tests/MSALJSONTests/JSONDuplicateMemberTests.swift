import Foundation
import Testing

@testable import MSALJSON

/// Objects that name a member twice are refused, small ones (compared pairwise) and large ones
/// (names hashed, then compared), whatever escapes spell the names; the message names the first
/// member, in document order, that repeats an earlier one.
@Suite("JSON objects with a member named twice")
struct JSONDuplicateMemberTests {
    /// An object of `names` in order, each with a number.
    static func object(_ names: [String]) -> [UInt8] {
        Array(("{" + names.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",") + "}").utf8)
    }

    static func refusal(_ names: [String]) -> String? {
        do {
            _ = try JSONDocument(parsing: object(names), limits: .token)
            return nil
        } catch {
            #expect(error.code == .duplicateMember)
            return error.message
        }
    }

    @Test("Sizes on both sides of the pairwise limit: distinct names pass, any repeat is found")
    func sizes() {
        for count in [3, 15, 16, 17, 30, 64, 65, 200] {
            let names = (0..<count).map { "claim_\($0)" }
            #expect(Self.refusal(names) == nil, "\(count) distinct names")
            for (first, second) in [(0, count - 1), (count / 2, count / 2 + 1), (count - 2, count - 1)] {
                var repeated = names
                repeated[second] = names[first]
                #expect(Self.refusal(repeated)?.contains(#""claim_\#(first)""#) == true, "\(count): \(first) at \(second)")
            }
        }
    }

    @Test("Escaped spellings of one name are the same name; prefixes and case are not")
    func escapes() {
        let filler = (0..<20).map { "f\($0)" }
        #expect(Self.refusal(filler + ["ab", #"a\u0062"#]) != nil)
        #expect(Self.refusal([#"\u0061b"#] + filler + ["ab"]) != nil)
        #expect(Self.refusal(filler + [#"\u00e9"#, "é"]) != nil)
        #expect(Self.refusal(filler + ["a", "ab", "abc", "A", "AB", "", " "]) == nil)
        #expect(Self.refusal(["a", "ab", #"a\u0062"#]) != nil, "small objects compare decoded names too")
    }

    @Test("With several repeats, the message names the first member that repeats an earlier one")
    func firstRepeat() {
        var names = (0..<40).map { "n\($0)" }
        names[30] = "n2"  // the earlier name, but the later repeat
        names[25] = "n9"  // the first repeat in document order
        #expect(Self.refusal(names)?.contains(#""n9""#) == true)
        // Nested objects are checked on their own: the same name in two objects is no repeat.
        let nested = "{" + (0..<20).map { #""o\#($0)":{"x":1,"y":2}"# }.joined(separator: ",") + "}"
        #expect(throws: Never.self) { try JSONDocument(parsing: Array(nested.utf8), limits: .token) }
    }

    @Test("Objects of 17 to 64 names (found by fingerprint): names of up to seven bytes, longer names sharing a fingerprint")
    func fingerprints() {
        let short = ["", "a", "ab", "abc", "abcdefg", "b", "ba", "abcdeg", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9"]
        #expect(Self.refusal(short) == nil)
        for name in short {
            #expect(Self.refusal(short + [name])?.contains(#""\#(name)""#) == true, "\(name) repeated")
        }
        // The same length and first seven bytes: one fingerprint, told apart by the full comparison.
        let shared = (0..<64).map { "prefix_" + String(format: "%03d", $0) }
        #expect(Self.refusal(shared) == nil)
        var repeated = shared
        repeated[63] = shared[5]
        #expect(Self.refusal(repeated)?.contains(#""prefix_005""#) == true)
        // Seven and eight bytes with the same first seven: different fingerprints (the length is in it).
        #expect(Self.refusal(short.dropLast(2) + ["abcdefg1", "abcdefg2"]) == nil)
        // A length past 255 does not wrap onto a short name's (263 would be 7 in a byte), whichever comes first.
        let long = "abcdefg" + String(repeating: "z", count: 256)
        #expect(Self.refusal(short + [long]) == nil)
        #expect(Self.refusal([long] + short) == nil)
        #expect(Self.refusal([long] + short + [long])?.contains(#""abcdefgzzz"#) == true)
        // First repeat in document order, when the table's probing meets a later repeat first.
        var names = (0..<40).map { "claim\($0 % 7)_\($0)" }
        names[30] = names[2]
        names[20] = names[11]
        #expect(Self.refusal(names)?.contains(#""\#(names[11])""#) == true)
    }
}
