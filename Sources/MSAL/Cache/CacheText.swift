/// Small text helpers for cache keys and lookups.
package enum CacheText {
    /// `text` with ASCII letters lower-cased; returns `text` itself (no copy) when it has none.
    ///
    /// Cache keys and identifiers are ASCII in practice; non-ASCII bytes are left alone so a key
    /// never changes length or meaning under a locale.
    @inline(__always)
    package static func lowercased(_ text: String) -> String {
        var hasUpper = false
        for byte in text.utf8 where byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
            hasUpper = true
            break
        }
        guard hasUpper else { return text }
        return String(decoding: text.utf8.map { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The scopes of a space-separated `target`, split on any run of spaces.
    package static func scopes(_ target: String) -> [Substring] {
        target.split(separator: " ", omittingEmptySubsequences: true)
    }

    /// The lower-cased scope set of a `target`, for case-insensitive subset checks.
    package static func scopeSet(_ target: String) -> Set<String> {
        Set(scopes(target).map { lowercased(String($0)) })
    }
}
