import Foundation
import MSALJOSE
import MSALJSON

extension MSALFixtureJSON {
    /// The caps applied to a fixture document: 16 MiB (fixtures for size-cap tests carry bodies
    /// of several MiB), 256 levels of nesting, a million values, duplicate member names rejected.
    static let parsingLimits = JSONLimits(
        maxBytes: 16 * 1024 * 1024, maxDepth: 256, maxValues: 1_000_000,
        rejectDuplicateKeys: true)

    /// Parses one JSON document (RFC 8259): strict syntax and UTF-8, no duplicate member
    /// names, at most 256 levels of nesting and 16 MiB; a leading byte-order mark is skipped.
    ///
    /// - Throws: ``MSALFailure`` with internal code ``MSALInternalError/invalidJSON`` naming the problem
    ///   and, for syntax errors, the byte offset.
    public init(parsing data: Data) throws {
        try self.init(parsing: [UInt8](data))
    }

    /// Parses one JSON document from bytes, with the rules of the `Data` initializer.
    public init(parsing bytes: [UInt8]) throws {
        var input = bytes
        if input.starts(with: [0xEF, 0xBB, 0xBF]) {
            // JSONDocument refuses a byte-order mark; blanking it to whitespace keeps the
            // offsets in error messages those of the caller's bytes.
            input.replaceSubrange(0..<3, with: [0x20, 0x20, 0x20])
        }
        let document: JSONDocument
        do {
            // Through JOSE's error, whose message escapes the text a duplicate member's name brings.
            document = try JSONDocument.parsed(input, limits: Self.parsingLimits)
        } catch {
            throw MSALFailure(.internal, internalCode: .invalidJSON, message: "Invalid JSON: \(error.message)")
        }
        self.init(document.root)
    }

    /// Converts a value of a parsed document, keeping member order and the numbers' text.
    init(_ value: JSONValue) {
        switch value.kind {
        case .null:
            self = .null
        case .true:
            self = .bool(true)
        case .false:
            self = .bool(false)
        case .number:
            self = .number(String(decoding: value.rawBytes, as: UTF8.self))
        case .string:
            self = .string(value.string ?? "")
        case .array:
            self = .array(value.elements.map { MSALFixtureJSON($0) })
        case .object:
            self = .object(
                value.members.map { member in
                    Member(name: member.key.string ?? "", value: MSALFixtureJSON(member.value))
                })
        }
    }
}
