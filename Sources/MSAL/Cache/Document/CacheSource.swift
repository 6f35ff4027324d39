import MSALJSON

/// The bytes of a cache document as it was read, shared by every entry read from it.
///
/// Entries keep their string members as ``CacheSlice``s of these bytes until someone asks for a
/// value, so reading a 64 MB document creates no `String` per member and writing it back copies
/// unchanged members as they are. Immutable, hence `Sendable`.
package final class CacheSource: Sendable {
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }
}

/// A JSON string inside a ``CacheSource``: the bytes between its quotes, already validated by the
/// reader (RFC 8259 escapes, UTF-8).
package struct CacheSlice: Sendable, Hashable {
    /// How the bytes between the quotes relate to the string's UTF-8.
    package typealias Form = JSONStringForm

    package var start: Int32
    package var end: Int32
    package var form: Form

    package init(start: Int, end: Int, form: Form) {
        self.start = Int32(start)
        self.end = Int32(end)
        self.form = form
    }

    package init(start: Int32, end: Int32, form: Form) {
        self.start = start
        self.end = end
        self.form = form
    }

    /// The slice of a string the reader scanned.
    package init(_ token: JSONScanner.StringToken) {
        self.init(start: token.start, end: token.end, form: token.form)
    }

    package var range: Range<Int> { Int(start)..<Int(end) }

    /// The UTF-8 of the string.
    package func utf8(in source: CacheSource) -> [UInt8] {
        form == .escaped ? CacheSlice.unescape(source.bytes[range]) : Array(source.bytes[range])
    }

    /// The string.
    package func string(in source: CacheSource) -> String {
        if form == .escaped { return String(decoding: CacheSlice.unescape(source.bytes[range]), as: UTF8.self) }
        return String(decoding: source.bytes[range], as: UTF8.self)
    }

    /// Resolves the escapes of validated JSON string content (the JSON reader's decoder: the cache
    /// reader accepts exactly the escapes `JSONDocument` does).
    package static func unescape(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        JSONStringDecoding.unescape(raw)
    }
}
