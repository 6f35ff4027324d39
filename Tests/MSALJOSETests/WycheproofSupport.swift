import Foundation
import Testing

@testable import MSALJOSE

/// Reads Wycheproof vector files (Fixtures/Wycheproof) with Foundation's JSONSerialization,
/// independently of the project's own JSON reader.
enum Wycheproof {
    /// One test case with the group it belongs to.
    struct Vector {
        let group: [String: Any]
        let test: [String: Any]

        var tcId: Int { test["tcId"] as? Int ?? -1 }
        var comment: String { test["comment"] as? String ?? "" }
        /// `valid`, `invalid` or `acceptable`.
        var result: String { test["result"] as? String ?? "" }
        var flags: [String] { test["flags"] as? [String] ?? [] }

        /// How a failing expectation names this vector.
        var label: String {
            "tcId \(tcId) (\(result), \"\(comment)\"\(flags.isEmpty ? "" : ", flags \(flags.joined(separator: ","))"))"
        }
    }

    /// A whole vector file.
    struct File {
        let numberOfTests: Int
        let groups: [[String: Any]]

        /// Every test case, in file order.
        var vectors: [Vector] {
            groups.flatMap { group in
                (group["tests"] as? [[String: Any]] ?? []).map { Vector(group: group, test: $0) }
            }
        }
    }

    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    static func load(_ name: String) throws -> File {
        let object = try JSONSerialization.jsonObject(with: FixtureLoader.data("Wycheproof/\(name)"))
        guard let root = object as? [String: Any],
            let count = root["numberOfTests"] as? Int,
            let groups = root["testGroups"] as? [[String: Any]]
        else {
            throw FormatError(description: "\(name) is not a Wycheproof vector file")
        }
        return File(numberOfTests: count, groups: groups)
    }

    /// Serializes a JSON object (a JWK, a JWK set, a JWS in JSON serialization) back to bytes.
    static func jsonBytes(_ object: Any) throws -> [UInt8] {
        [UInt8](try JSONSerialization.data(withJSONObject: object))
    }

    /// Decodes lowercase or uppercase hex.
    static func hex(_ text: String) throws -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { throw FormatError(description: "odd-length hex") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else {
                throw FormatError(description: "bad hex digit")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Lenient base64url decoding with Foundation (padding added, no strictness),
    /// used only to look inside test tokens; never to judge them.
    static func base64URLDecodeLeniently(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    /// The `alg` of a compact JWS header, read leniently with Foundation; `nil` when unreadable.
    static func headerAlgorithm(of jws: String) -> String? {
        guard let segment = jws.split(separator: ".", omittingEmptySubsequences: false).first,
            let data = base64URLDecodeLeniently(String(segment)),
            let header = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return header["alg"] as? String
    }
}
