// Compiled only with the package trait TestEntryPoints, which FuzzTesting enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
import MSALJSON

/// Entry points for the libFuzzer targets of `FuzzTesting/` (a separate package, which cannot see
/// `package` symbols). Not API: import with `@_spi(Fuzzing) import MSALJOSE`.
///
/// Thin calls into the JSON reader and writer the rest of the SDK is built on; the invariants live
/// in the targets.
@_spi(Fuzzing) public enum JOSEFuzzingSupport {
    /// A parsed JSON document, as the fuzz targets look at it.
    public struct ParsedJSON: Sendable {
        /// The document written back compactly by `JSONWriter`.
        public var compact: [UInt8]
        /// For an object root, its members' names and the kind of each value (`object`, `array`,
        /// `string`, `number`, `true`, `false`, `null`), in document order; `nil` for another root.
        public var rootMembers: [(name: String, kind: String)]?
    }

    /// Parses `bytes` with the given caps (`JSONDocument`) and writes the result back.
    ///
    /// - Throws: ``JOSEError`` (`invalidJSON` or `limitExceeded`).
    public static func parseJSON(_ bytes: [UInt8], maxDepth: Int, rejectDuplicateKeys: Bool) throws(JOSEError) -> ParsedJSON {
        let limits = JSONLimits(maxBytes: 512 << 20, maxDepth: maxDepth, maxValues: 64_000_000, rejectDuplicateKeys: rejectDuplicateKeys)
        let document = try JSONDocument.parsed(bytes, limits: limits)
        let members =
            document.root.kind == .object ? document.root.members.map { (name: $0.key.string ?? "", kind: "\($0.value.kind)") } : nil
        return ParsedJSON(compact: JSONWriter.write(JSON(document.root)), rootMembers: members)
    }
}
#endif
