import MSALJSON
import Testing

@testable import MSALJOSE

/// The one rule for text others chose on its way into messages and the terminal (issue 19, finding 7).
@Suite("Untrusted text: controls, bidi and format characters escaped, length capped")
struct UntrustedTextTests {
    @Test("Terminal escapes, line breaks, C1, bidi overrides and zero-width characters are escaped; letters kept")
    func escaping() {
        let cases: [(String, String)] = [
            ("plain ascii", "plain ascii"),
            ("a\u{1b}[2Jb", "a\\u{1b}[2Jb"),
            ("osc\u{1b}]0;title\u{07}", "osc\\u{1b}]0;title\\u{7}"),
            ("line\r\nforged", "line\\u{d}\\u{a}forged"),
            ("c1\u{9b}31m", "c1\\u{9b}31m"),
            ("evil\u{202E}txt.exe", "evil\\u{202e}txt.exe"),
            ("arabic\u{061C}mark", "arabic\\u{61c}mark"),
            ("zero\u{200B}width\u{FEFF}", "zero\\u{200b}width\\u{feff}"),
            ("sep\u{2028}para\u{2029}", "sep\\u{2028}para\\u{2029}"),
            ("Zoë 日本 🙂", "Zoë 日本 🙂"),
        ]
        for (input, expected) in cases {
            #expect(UntrustedText.escaped(input) == expected, "\(input.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(UntrustedText.escaped("two\nlines\u{1b}", keepingLineBreaks: true) == "two\nlines\\u{1b}")
        #expect(UntrustedText.escaped(String(repeating: "x", count: 20), limit: 5) == "xxxxx\u{2026}")
    }

    @Test("JOSEError escapes what a token put in its message (a kid with a terminal escape)")
    func joseMessages() throws {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"k\u001b]0;pwned\u0007\r\nFAKE: valid"}"#.utf8))
        let token = header + "." + Base64URL.encode(Array(#"{"sub":"x"}"#.utf8)) + ".c2ln"
        let other = try JWSSigningKey.generateRSA(keyID: "another-key")
        let keys = try JSONWebKeySet(json: JSONWriter.write(.object(["keys": .array([try other.publicJWK()])])))
        do {
            _ = try JWTVerifier(keySet: keys).verify(token)
            Issue.record("verified a token with an unknown kid")
        } catch {
            #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(error.message)")
            #expect(!error.description.contains("\r\n"))
        }
    }
}
