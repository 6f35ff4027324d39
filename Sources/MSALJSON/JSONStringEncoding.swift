import MSALSupport

/// Writes JSON string literals into a byte buffer.
///
/// Runs of bytes that need no escaping are copied in bulk, so long strings (tokens in a cache
/// document) cost little more than a `memcpy`. Escapes follow RFC 8259 §7: `"` `\` and the
/// control characters, using the short forms where they exist and `\u00XX` otherwise; DEL is
/// escaped too so a written document shows no invisible bytes. Other bytes, including UTF-8
/// sequences, are written as they are.
public enum JSONStringEncoding {
    /// Whether `byte` must be escaped inside a JSON string literal.
    @inlinable @inline(__always)
    package static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
    }

    /// Appends `"text"` with escapes.
    package static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendQuoted(utf8: $0, to: &output) }
    }

    /// Appends the UTF-8 bytes `utf8` as a quoted JSON string with escapes.
    package static func appendQuoted(utf8: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            if needsEscape(byte) {
                if runStart < index {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                }
                appendEscape(byte, to: &output)
                runStart = index + 1
            }
            index += 1
        }
        if runStart < count {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        escape(byte) { output.append($0) }
    }

    /// Emits the escape of `byte` (one that ``needsEscape(_:)``), byte by byte: the short form
    /// where RFC 8259 has one, `\u00XX` with lowercase digits otherwise. The one escape rule of
    /// every JSON writer of the package (JOSE, the token cache, recorded fixtures).
    @inlinable @inline(__always)
    package static func escape(_ byte: UInt8, _ emit: (UInt8) -> Void) {
        emit(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): emit(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): emit(UInt8(ascii: "\\"))
        case 0x0A: emit(UInt8(ascii: "n"))
        case 0x0D: emit(UInt8(ascii: "r"))
        case 0x09: emit(UInt8(ascii: "t"))
        case 0x08: emit(UInt8(ascii: "b"))
        case 0x0C: emit(UInt8(ascii: "f"))
        default:
            emit(UInt8(ascii: "u"))
            emit(UInt8(ascii: "0"))
            emit(UInt8(ascii: "0"))
            emit(Hex.digit(byte >> 4))
            emit(Hex.digit(byte & 0x0F))
        }
    }
}
