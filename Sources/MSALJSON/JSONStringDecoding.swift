import MSALSupport

/// Turns the raw bytes between a JSON string's quotes into UTF-8, resolving escapes.
/// The input has already been validated by the parser.
package enum JSONStringDecoding {
    /// Resolves the escapes of JSON string content already validated by a reader (this one, or the
    /// token cache's), as UTF-8.
    package static func unescape(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        raw.withUnsafeBufferPointer { unescape($0) }
    }

    package static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
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

    private static func hex4(_ raw: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in offset..<(offset + 4) {
            value = value << 4 | UInt32(Hex.value(of: raw[index]) ?? 0)
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
