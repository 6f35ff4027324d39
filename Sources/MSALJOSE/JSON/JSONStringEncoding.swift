/// Writes JSON string literals into a byte buffer.
///
/// Runs of bytes that need no escaping are copied in bulk, so long strings (tokens in a cache
/// document) cost little more than a `memcpy`. Escapes follow RFC 8259 §7: `"` `\` and the
/// control characters, using the short forms where they exist and `\u00XX` otherwise; DEL is
/// escaped too so a written document shows no invisible bytes. Other bytes, including UTF-8
/// sequences, are written as they are.
package enum JSONStringEncoding {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether `byte` must be escaped inside a JSON string literal.
    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
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
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        default:
            output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }
    }
}
