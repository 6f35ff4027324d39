/// The last line of defence against secrets in log messages: every message is passed through
/// ``redactingSecrets(in:)`` before it is emitted, whatever its parts were declared to be.
///
/// ``MSALLogMessage`` has no way to interpolate a secret; this catches the ones that arrive
/// inside other text: a URL with a `code=` query, a form body, a server's error text, a header.
package enum MSALLogRedaction {
    /// What replaces a secret.
    package static let placeholder = "<redacted>"

    /// What replaces an email address in diagnostic text when EUII is masked.
    package static let maskedEmail = "Masked(not-null)"

    /// Names whose values are secrets, in `name=value` (query strings, form bodies) and
    /// `"name": "value"` (JSON), matched without regard to case.
    package static let secretParameterNames: [String] = [
        "code", "refresh_token", "access_token", "id_token", "code_verifier", "client_assertion",
        "client_secret", "device_code", "assertion", "password",
        // Not credentials, but what binds a sign-in to this app instance: an authorize URL or a
        // redirect in a log must not hand them to whoever reads it.
        "state", "nonce", "code_challenge",
    ]

    private static let secretNameBytes: [[UInt8]] = secretParameterNames.map { Array($0.utf8) }
    private static let bearerBytes = Array("bearer".utf8)
    private static let placeholderBytes = Array(placeholder.utf8)

    /// `text` with every secret-looking part replaced by ``placeholder``:
    /// - JWTs and JWEs: runs of base64url segments joined by dots, at least three segments, when
    ///   the first starts with `ey`/`ew` (a base64url JSON object) or the first three each have
    ///   16 or more characters;
    /// - the values of ``secretParameterNames`` after `=` (up to `&`, `;`, `,`, a quote, a bracket
    ///   or white space) and as quoted JSON members;
    /// - the credential after `Bearer` (unless it is a lower-case word shorter than 16 letters,
    ///   as in "a bearer token").
    package static func redactingSecrets(in text: String) -> String {
        let input = Array(text.utf8)
        let count = input.count
        var output: [UInt8] = []
        var changed = false
        var i = 0
        var plainRunEnd = 0
        output.reserveCapacity(count)
        while i < count {
            let byte = input[i]
            let atWordStart = i == 0 || !isIdentifier(input[i - 1])
            if atWordStart, isIdentifier(byte) {
                if let end = secretParameterEnd(in: input, at: i) {
                    output.append(contentsOf: input[i..<end.valueStart])
                    if end.valueEnd > end.valueStart { output.append(contentsOf: placeholderBytes) }
                    changed = changed || end.valueEnd > end.valueStart
                    i = end.valueEnd
                    continue
                }
                if let end = bearerCredentialEnd(in: input, at: i) {
                    output.append(contentsOf: input[i..<end.credentialStart])
                    output.append(contentsOf: placeholderBytes)
                    changed = true
                    i = end.credentialEnd
                    continue
                }
            }
            if i >= plainRunEnd, isTokenCharacter(byte) {
                var end = i
                while end < count, isTokenCharacter(input[end]) { end += 1 }
                if looksLikeJWT(input[i..<end]) {
                    output.append(contentsOf: placeholderBytes)
                    changed = true
                    i = end
                    continue
                }
                plainRunEnd = end
            }
            output.append(byte)
            i += 1
        }
        guard changed else { return text }
        return String(decoding: output, as: UTF8.self)
    }

    /// `text` with email addresses replaced by ``maskedEmail``, and whether any was found.
    ///
    /// For diagnostic text that swift-msal did not write itself (server error descriptions,
    /// errors of other libraries), which may name the user.
    package static func maskingEmailAddresses(in text: String) -> (text: String, found: Bool) {
        let input = Array(text.utf8)
        guard input.contains(UInt8(ascii: "@")) else { return (text, false) }
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var found = false
        var copied = 0
        var i = 0
        while i < input.count {
            guard input[i] == UInt8(ascii: "@") else { i += 1; continue }
            var start = i
            while start > copied, isEmailLocalCharacter(input[start - 1]) { start -= 1 }
            var end = i + 1
            var dots = 0
            while end < input.count, isDomainCharacter(input[end]) {
                if input[end] == UInt8(ascii: ".") { dots += 1 }
                end += 1
            }
            while end > i + 1, input[end - 1] == UInt8(ascii: ".") { end -= 1; dots -= 1 }
            if start < i, dots > 0, end > i + 1 {
                output.append(contentsOf: input[copied..<start])
                output.append(contentsOf: maskedEmail.utf8)
                copied = end
                found = true
                i = end
            } else {
                i += 1
            }
        }
        guard found else { return (text, false) }
        output.append(contentsOf: input[copied...])
        return (String(decoding: output, as: UTF8.self), true)
    }

    // MARK: - Pieces

    /// When a secret parameter name starts at `index`: where its value starts and ends.
    private static func secretParameterEnd(in input: [UInt8], at index: Int) -> (valueStart: Int, valueEnd: Int)? {
        for name in secretNameBytes {
            let nameEnd = index + name.count
            guard nameEnd < input.count, matchesLowercased(input, at: index, name) else { continue }
            if input[nameEnd] == UInt8(ascii: "=") {
                let valueStart = nameEnd + 1
                var valueEnd = valueStart
                while valueEnd < input.count, !endsQueryValue(input[valueEnd]) { valueEnd += 1 }
                return (valueStart, valueEnd)
            }
            // JSON: "name" : "value"
            guard index > 0, input[index - 1] == UInt8(ascii: "\""), input[nameEnd] == UInt8(ascii: "\"") else { continue }
            var cursor = nameEnd + 1
            while cursor < input.count, isSpace(input[cursor]) { cursor += 1 }
            guard cursor < input.count, input[cursor] == UInt8(ascii: ":") else { continue }
            cursor += 1
            while cursor < input.count, isSpace(input[cursor]) { cursor += 1 }
            guard cursor < input.count, input[cursor] == UInt8(ascii: "\"") else { continue }
            let valueStart = cursor + 1
            var valueEnd = valueStart
            while valueEnd < input.count, input[valueEnd] != UInt8(ascii: "\"") {
                valueEnd += input[valueEnd] == UInt8(ascii: "\\") ? 2 : 1
            }
            return (valueStart, min(valueEnd, input.count))
        }
        return nil
    }

    /// When `Bearer` and a credential start at `index`: where the credential starts and ends.
    private static func bearerCredentialEnd(in input: [UInt8], at index: Int) -> (credentialStart: Int, credentialEnd: Int)? {
        let nameEnd = index + bearerBytes.count
        guard nameEnd < input.count, matchesLowercased(input, at: index, bearerBytes), isSpace(input[nameEnd]) else { return nil }
        var start = nameEnd
        while start < input.count, isSpace(input[start]) { start += 1 }
        var end = start
        var onlyLowercaseLetters = true
        while end < input.count, !isSpace(input[end]), !endsCredential(input[end]) {
            if input[end] < UInt8(ascii: "a") || input[end] > UInt8(ascii: "z") { onlyLowercaseLetters = false }
            end += 1
        }
        // Prose ("a bearer token") is left alone: a credential is not a short lower-case word.
        guard end > start, !(onlyLowercaseLetters && end - start < 16) else { return nil }
        return (start, end)
    }

    private static func looksLikeJWT(_ run: ArraySlice<UInt8>) -> Bool {
        guard run.count >= 20 else { return false }
        let segments = run.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count >= 3, let first = segments.first, first.count >= 4 else { return false }
        let firstByte = first[first.startIndex], secondByte = first[first.startIndex + 1]
        if firstByte == UInt8(ascii: "e"), secondByte == UInt8(ascii: "y") || secondByte == UInt8(ascii: "w") {
            return true
        }
        return segments.prefix(3).allSatisfy { $0.count >= 16 }
    }

    private static func matchesLowercased(_ input: [UInt8], at index: Int, _ name: [UInt8]) -> Bool {
        guard index + name.count <= input.count else { return false }
        for offset in 0..<name.count {
            var byte = input[index + offset]
            if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 32 }
            if byte != name[offset] { return false }
        }
        // The name must end there: `code` does not match `codes=`.
        let after = index + name.count
        return after >= input.count || !isIdentifier(input[after])
    }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    /// base64url characters and the dot that joins JWT segments.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isIdentifier(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private static func endsQueryValue(_ byte: UInt8) -> Bool {
        isSpace(byte) || endsCredential(byte) || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "#")
    }

    private static func endsCredential(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            true
        default:
            false
        }
    }

    private static func isEmailLocalCharacter(_ byte: UInt8) -> Bool {
        isIdentifier(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "%")
    }

    private static func isDomainCharacter(_ byte: UInt8) -> Bool {
        isIdentifier(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }
}
