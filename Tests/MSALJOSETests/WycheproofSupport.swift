import Foundation
import MSALSupport
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

    /// Decodes lowercase or uppercase hex (MSALSupport's decoder).
    static func hex(_ text: String) throws -> [UInt8] {
        guard let bytes = Hex.decode(text) else { throw FormatError(description: "not hex: \(text.prefix(16))") }
        return bytes
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
