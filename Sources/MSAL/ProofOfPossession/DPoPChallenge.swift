/// The challenges of a `WWW-Authenticate` header (RFC 9110 §11.6.1), read far enough to find a
/// resource's DPoP challenge (RFC 9449 §7.1): each challenge's scheme and its parameters.
/// Whatever does not parse is skipped, never trusted.
package enum DPoPChallenge {
    /// One challenge: its scheme as written and its parameters (names in lower case).
    package struct Challenge: Equatable, Sendable {
        package var scheme: String
        package var parameters: [String: String]
    }

    /// The longest header value read; a longer one is cut there.
    static let maximumLength = 8192

    /// Whether `header` holds a `DPoP` challenge with `error="use_dpop_nonce"`.
    package static func asksForNonce(_ header: String) -> Bool {
        challenges(header).contains { challenge in
            challenge.scheme.lowercased() == "dpop" && challenge.parameters["error"] == "use_dpop_nonce"
        }
    }

    /// The challenges of `header`, in order.
    package static func challenges(_ header: String) -> [Challenge] {
        let bytes = Array(header.utf8.prefix(maximumLength))
        var position = 0
        var found: [Challenge] = []
        func skip(_ isSkipped: (UInt8) -> Bool) {
            while position < bytes.count, isSkipped(bytes[position]) { position += 1 }
        }
        func token() -> String? {
            let start = position
            skip(isTokenCharacter)
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }
        func quoted() -> String? {
            // After the opening quote: up to the closing one, with backslash escapes; `nil` without one.
            var value: [UInt8] = []
            position += 1
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                if bytes[position] == UInt8(ascii: "\\"), position + 1 < bytes.count { position += 1 }
                value.append(bytes[position])
                position += 1
            }
            guard position < bytes.count else { return nil }
            position += 1
            return String(decoding: value, as: UTF8.self)
        }
        while position < bytes.count {
            skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
            guard position < bytes.count else { break }
            guard let name = token() else {
                position += 1  // Not a token: skipped.
                continue
            }
            skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let isParameter = position < bytes.count && bytes[position] == UInt8(ascii: "=") && !found.isEmpty
            guard isParameter else {
                if position < bytes.count, bytes[position] == UInt8(ascii: "=") {
                    skip { $0 == UInt8(ascii: "=") }  // A token68's padding.
                } else {
                    found.append(Challenge(scheme: name, parameters: [:]))
                }
                continue
            }
            position += 1
            skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let value: String
            if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
                // A quoted string never closed: the rest of the header does not parse.
                guard let text = quoted() else { break }
                value = text
            } else if let plain = token() {
                value = plain
            } else {
                skip { $0 == UInt8(ascii: "=") }  // A token68 that started with a token.
                continue
            }
            let key = name.lowercased()
            if found[found.count - 1].parameters[key] == nil { found[found.count - 1].parameters[key] = value }
        }
        return found
    }

    /// RFC 9110's `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
