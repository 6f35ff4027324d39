/// Base64url (RFC 4648 §5) over bytes, strict by default.
///
/// Decoding rejects the standard-alphabet characters `+` and `/`, whitespace,
/// impossible lengths (a remainder of one character) and non-zero unused bits
/// in the last character, so every accepted input has exactly one encoding.
///
/// Padding policy: RFC 7515 forbids `=` padding in JWS segments, but some real
/// Entra v1 ID tokens carry it in the payload segment. With
/// ``PaddingPolicy/acceptCanonical`` the decoder accepts trailing `=`
/// characters only when they are exactly the padding that standard base64
/// would add (one or two, making the length a multiple of four). A signature
/// is computed over the segment characters as sent, so tolerating padding
/// cannot make a forged token verify.
public enum Base64URL {
    /// Whether trailing `=` padding is tolerated while decoding.
    public enum PaddingPolicy: Sendable {
        /// Any `=` is an error.
        case reject
        /// Exactly canonical padding (to a multiple of four characters) is accepted; anything else is an error.
        case acceptCanonical
    }

    /// Decodes base64url text.
    ///
    /// - Throws: ``JOSEError/Code/invalidBase64URL`` naming the first problem.
    public static func decode(_ text: String, padding: PaddingPolicy = .reject) throws(JOSEError) -> [UInt8] {
        var text = text
        return try text.withUTF8Bytes { (utf8) throws(JOSEError) -> [UInt8] in
            try decode(utf8, padding: padding)
        }
    }

    /// Decodes base64url bytes (ASCII).
    ///
    /// - Throws: ``JOSEError/Code/invalidBase64URL`` naming the first problem.
    public static func decode(bytes: some Collection<UInt8>, padding: PaddingPolicy = .reject) throws(JOSEError) -> [UInt8] {
        let direct: Result<[UInt8], JOSEError>? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(JOSEError) {
                return .success(try decode(buffer, padding: padding))
            } catch {
                return .failure(error)
            }
        }
        if let direct {
            return try direct.get()
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { (buffer) throws(JOSEError) -> [UInt8] in
            try decode(buffer, padding: padding)
        }
    }

    /// Decodes base64url bytes from a buffer.
    package static func decode(_ input: UnsafeBufferPointer<UInt8>, padding: PaddingPolicy) throws(JOSEError) -> [UInt8] {
        var length = input.count
        if length > 0, input[length - 1] == UInt8(ascii: "=") {
            guard padding == .acceptCanonical else {
                throw JOSEError(.invalidBase64URL, "base64url text must not carry '=' padding")
            }
            var padCount = 0
            while length > 0, input[length - 1] == UInt8(ascii: "=") {
                length -= 1
                padCount += 1
            }
            let expected = (4 - length % 4) % 4
            guard padCount == expected, expected != 3, (length + padCount) % 4 == 0 else {
                throw JOSEError(.invalidBase64URL, "base64url padding is not canonical")
            }
        }
        let remainder = length % 4
        guard remainder != 1 else {
            throw JOSEError(.invalidBase64URL, "base64url text has an impossible length (\(length) characters)")
        }
        let outputCount = (length / 4) * 3 + (remainder == 0 ? 0 : remainder - 1)
        return try decodeTable.withUnsafeBufferPointer { (table) throws(JOSEError) -> [UInt8] in
            var failure: JOSEError?
            let output = [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
                var i = 0
                var o = 0
                let fullEnd = length - remainder
                while i < fullEnd {
                    let a = table[Int(input[i])]
                    let b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])]
                    let d = table[Int(input[i + 3])]
                    if (a | b | c | d) & 0x80 != 0 {
                        failure = invalidCharacter(input, from: i)
                        initialized = 0
                        return
                    }
                    out[o] = (a << 2) | (b >> 4)
                    out[o + 1] = (b << 4) | (c >> 2)
                    out[o + 2] = (c << 6) | d
                    i += 4
                    o += 3
                }
                if remainder >= 2 {
                    let a = table[Int(input[i])]
                    let b = table[Int(input[i + 1])]
                    let c = remainder == 3 ? table[Int(input[i + 2])] : 0
                    if (a | b | c) & 0x80 != 0 {
                        failure = invalidCharacter(input, from: i)
                        initialized = 0
                        return
                    }
                    out[o] = (a << 2) | (b >> 4)
                    if remainder == 3 {
                        out[o + 1] = (b << 4) | (c >> 2)
                        if c & 0x03 != 0 {
                            failure = JOSEError(.invalidBase64URL, "base64url text has non-zero unused bits in its last character")
                            initialized = 0
                            return
                        }
                    } else if b & 0x0F != 0 {
                        failure = JOSEError(.invalidBase64URL, "base64url text has non-zero unused bits in its last character")
                        initialized = 0
                        return
                    }
                }
                initialized = outputCount
            }
            if let failure {
                throw failure
            }
            return output
        }
    }

    /// Encodes bytes as base64url text without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: encodeToBytes(Array(bytes)), as: UTF8.self)
    }

    /// Encodes bytes as base64url text without padding (the array form: no generic dispatch across
    /// modules, for the callers that encode per request).
    public static func encode(_ bytes: [UInt8]) -> String {
        String(decoding: encodeToBytes(bytes), as: UTF8.self)
    }

    /// Encodes bytes as standard base64 text (RFC 4648 §4: `+`, `/` and `=` padding), as a JWS
    /// `x5c` member carries certificates.
    package static func encodeStandard(_ bytes: some Collection<UInt8>) -> String {
        var text = encodeToBytes(bytes)
        for index in text.indices {
            if text[index] == UInt8(ascii: "-") {
                text[index] = UInt8(ascii: "+")
            } else if text[index] == UInt8(ascii: "_") {
                text[index] = UInt8(ascii: "/")
            }
        }
        while text.count % 4 != 0 { text.append(UInt8(ascii: "=")) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Encodes bytes as base64url ASCII bytes without padding.
    package static func encodeToBytes(_ bytes: some Collection<UInt8>) -> [UInt8] {
        encodeToBytes(Array(bytes))
    }

    /// Encodes bytes as base64url ASCII bytes without padding: the array form, which the generic
    /// one calls and which callers in other modules reach without generic dispatch (a DPoP proof
    /// encodes four times).
    package static func encodeToBytes(_ input: [UInt8]) -> [UInt8] {
        let count = input.count
        let outputCount = (count / 3) * 4 + (count % 3 == 0 ? 0 : count % 3 + 1)
        return encodeAlphabet.withUnsafeBufferPointer { alphabet in
            [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
                var i = 0
                var o = 0
                while i + 3 <= count {
                    let value = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = alphabet[Int(value >> 18 & 0x3F)]
                    out[o + 1] = alphabet[Int(value >> 12 & 0x3F)]
                    out[o + 2] = alphabet[Int(value >> 6 & 0x3F)]
                    out[o + 3] = alphabet[Int(value & 0x3F)]
                    i += 3
                    o += 4
                }
                let rest = count - i
                if rest == 1 {
                    let value = UInt32(input[i]) << 16
                    out[o] = alphabet[Int(value >> 18 & 0x3F)]
                    out[o + 1] = alphabet[Int(value >> 12 & 0x3F)]
                } else if rest == 2 {
                    let value = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                    out[o] = alphabet[Int(value >> 18 & 0x3F)]
                    out[o + 1] = alphabet[Int(value >> 12 & 0x3F)]
                    out[o + 2] = alphabet[Int(value >> 6 & 0x3F)]
                }
                initialized = outputCount
            }
        }
    }

    /// Whether `byte` is in the base64url alphabet (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`).
    /// Range checks, not the decode table: a per-byte call must not pay the lazy global's
    /// `swift_once` each time. `@inlinable`: other modules call it once per byte of a token (it
    /// was a call per byte, about 6 % of a public access-token validation's samples).
    @inlinable
    package static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// Whether every byte of `bytes` is in the base64url alphabet or a `.`: a compact JWS or JWT's
    /// characters. Written as range checks on wrapped differences combined without branches, which
    /// the compiler turns into vector code: 90 ns for a 1.2 KB token here, against 1.1 µs for a
    /// 64-bit mask lookup per byte and about as much for ``isAlphabet(_:)`` byte by byte (a tenth
    /// of a public access-token validation). `SIMD16` written by hand was slower still.
    @inlinable
    package static func isCompactSerialization(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        @inline(__always) func bit(_ condition: Bool) -> UInt8 { condition ? 1 : 0 }
        var invalid: UInt8 = 0
        for byte in bytes {
            let valid =
                bit(byte &- UInt8(ascii: "A") < 26) | bit(byte &- UInt8(ascii: "a") < 26) | bit(byte &- UInt8(ascii: "0") < 10)
                | bit(byte == UInt8(ascii: "-")) | bit(byte == UInt8(ascii: "_")) | bit(byte == UInt8(ascii: "."))
            invalid |= valid ^ 1
        }
        return invalid == 0
    }

    private static func invalidCharacter(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> JOSEError {
        var index = start
        while index < input.count, decodeTable[Int(input[index])] & 0x80 == 0 {
            index += 1
        }
        let byte = index < input.count ? input[index] : 0
        let shown: String
        switch byte {
        case UInt8(ascii: "+"), UInt8(ascii: "/"):
            shown = "'\(Character(Unicode.Scalar(byte)))' (standard base64, not base64url)"
        case UInt8(ascii: "="):
            shown = "'=' before the end"
        case 0x21...0x7E:
            shown = "'\(Character(Unicode.Scalar(byte)))'"
        default:
            shown = "byte 0x\(String(byte, radix: 16))"
        }
        return JOSEError(.invalidBase64URL, "base64url text has an invalid character \(shown) at offset \(index)")
    }

    private static let encodeAlphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in encodeAlphabet.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()
}
