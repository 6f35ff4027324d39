/// `application/x-www-form-urlencoded` encoding (WHATWG URL standard), shared by requests and the replay matcher.
public enum MSALFormEncoding {
    /// Encodes parameters in order.
    public static func encode(_ parameters: [(String, String)]) -> String {
        parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Decodes a form or query string; `+` is a space, invalid escapes are kept as written.
    public static func decode(_ string: String) -> [(String, String)] {
        guard !string.isEmpty else { return [] }
        return string.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (unescape(pair[..<equals]), unescape(pair[pair.index(after: equals)...]))
            }
            return (unescape(pair[...]), "")
        }
    }

    /// Percent-encodes everything but `A–Z a–z 0–9 * - . _`, and spaces as `+`.
    public static func escape(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"),
                UInt8(ascii: "."), UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func unescape(_ part: Substring) -> String {
        var out: [UInt8] = []
        let bytes = Array(part.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]),
                let lo = hexValue(bytes[i + 2])
            {
                out.append(hi << 4 | lo)
                i += 2
            } else {
                out.append(byte)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
