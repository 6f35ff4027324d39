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
    package enum Form: UInt8, Sendable {
        /// No escape and nothing the writer escapes: the bytes are the UTF-8 and can be written as they are.
        case clean
        /// No escape, but a byte the writer escapes (DEL): the bytes are the UTF-8; writing re-encodes them.
        case unescapedNeedsEncoding
        /// Has backslash escapes: decode to get the UTF-8.
        case escaped
    }

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

    /// Resolves the escapes of validated JSON string content.
    package static func unescape(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            let escaped = raw[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, index)
                index += 4
                if scalar >= 0xD800, scalar < 0xDC00 {
                    // The reader accepted only a high surrogate followed by `\u` and a low one.
                    let low = hex4(raw, index + 2)
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &output)
            default: output.append(escaped)  // " \ /
            }
        }
        return output
    }

    private static func hex4(_ raw: ArraySlice<UInt8>, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in offset..<(offset + 4) {
            value = value << 4 | UInt32(CacheDocumentReader.hexValue(raw[index]) ?? 0)
        }
        return value
    }

    private static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}

/// A string value that may still be a slice of a document: materialized on first use by the
/// caller. What an account keeps of an ID token, so listing accounts copies no token.
package struct CacheString: Sendable {
    private enum Storage: Sendable {
        case string(String)
        case slice(CacheSlice, CacheSource)
    }

    private let storage: Storage

    package init(_ string: String) {
        storage = .string(string)
    }

    package init(slice: CacheSlice, source: CacheSource) {
        storage = .slice(slice, source)
    }

    /// The string.
    package var string: String {
        switch storage {
        case .string(let value): value
        case .slice(let slice, let source): slice.string(in: source)
        }
    }
}
