import Foundation
import Testing

@testable import MSAL

/// Fixtures of `Fixtures/Cache/` and helpers to compare cache JSON.
enum CacheFixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Cache
        .deletingLastPathComponent()  // MSALTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures/Cache")

    static func names(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            .filter { $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(name)))
    }

    static func json(_ folder: String, _ name: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes(folder, name))) as? [String: Any])
    }

    /// Parses bytes with Foundation (the independent reader the tests compare against).
    static func foundationJSON(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? [String: Any])
    }

    /// Known sections.
    static let sections: Set<String> = ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"]
    static let numericFields: Set<String> = [
        "cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on", "last_modification_time", "family_id",
    ]

    /// The content a faithful reader-writer must keep, in the form swift-msal writes it: known
    /// sections' keys lower-cased (a lower-case key beats a legacy spelling of it), numbers in
    /// time fields as integer strings, a list `target` joined with spaces. Everything else as is.
    static func normalized(_ document: [String: Any]) -> [String: Any] {
        var result: [String: Any] = [:]
        for (name, value) in document {
            guard sections.contains(name), let entries = value as? [String: Any] else {
                result[name] = value
                continue
            }
            var section: [String: Any] = [:]
            for key in entries.keys.sorted(by: { ($0 == $0.lowercased() ? 1 : 0, $0) < ($1 == $1.lowercased() ? 1 : 0, $1) }) {
                // Legacy spellings first, so the lower-case key (last) wins.
                let value = entries[key]!
                guard var entry = value as? [String: Any] else {
                    section[key.lowercased()] = value
                    continue
                }
                for (field, fieldValue) in entry {
                    if numericFields.contains(field), let number = fieldValue as? NSNumber, !(fieldValue is Bool) {
                        entry[field] = String(Int64(number.doubleValue.rounded(.down)))
                    } else if field == "target", let list = fieldValue as? [String] {
                        entry[field] = list.joined(separator: " ")
                    }
                }
                section[key.lowercased()] = entry
            }
            result[name] = section
        }
        for name in sections where result[name] == nil { result[name] = [String: Any]() }
        return result
    }

    /// Deep equality of Foundation JSON values.
    static func equal(_ lhs: Any, _ rhs: Any) -> Bool {
        switch (lhs, rhs) {
        case (let left as [String: Any], let right as [String: Any]):
            return left.count == right.count && left.allSatisfy { key, value in right[key].map { equal(value, $0) } ?? false }
        case (let left as [Any], let right as [Any]):
            return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1) }
        case (let left as String, let right as String):
            return left == right
        case (let left as NSNumber, let right as NSNumber):
            return left == right
        case (is NSNull, is NSNull):
            return true
        default:
            return false
        }
    }

    /// A JWT whose payload is `claims` (header and signature are not checked by the cache).
    static func unsignedJWT(_ claims: [String: Any]) throws -> String {
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return "someheader." + base64URL(payload) + ".somesignature"
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func clientInfo(uid: String, utid: String) -> String {
        base64URL(Data(#"{"uid":"\#(uid)","utid":"\#(utid)"}"#.utf8))
    }
}

extension TokenCacheContents {
    /// Loads a fixture document.
    static func fixture(_ name: String) throws -> TokenCacheContents {
        TokenCacheContents(document: try TokenCacheDocument(parsing: CacheFixtures.bytes("documents", name)))
    }
}
