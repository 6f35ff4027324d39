/// Caps applied while parsing JSON, so hostile input cannot exhaust memory or the stack.
public struct JSONLimits: Sendable {
    /// Largest document accepted, in bytes.
    @usableFromInline package var maxBytes: Int
    /// Deepest nesting of arrays and objects accepted (the root container is depth 1).
    @usableFromInline package var maxDepth: Int
    /// Most values (of any kind) accepted in one document.
    @usableFromInline package var maxValues: Int
    /// Whether an object may name the same member twice.
    @usableFromInline package var rejectDuplicateKeys: Bool

    package init(maxBytes: Int, maxDepth: Int, maxValues: Int, rejectDuplicateKeys: Bool) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        self.rejectDuplicateKeys = rejectDuplicateKeys
    }

    /// Limits for JOSE headers and JWT claim sets: 256 KiB, depth 16, duplicates rejected (RFC 8725 §3.10 spirit).
    package static let token = JSONLimits(maxBytes: 256 * 1024, maxDepth: 16, maxValues: 65_536, rejectDuplicateKeys: true)

    /// Limits for protocol documents (key sets, metadata, token responses): 4 MiB, depth 32.
    package static let document = JSONLimits(maxBytes: 4 * 1024 * 1024, maxDepth: 32, maxValues: 1_000_000, rejectDuplicateKeys: true)
}
