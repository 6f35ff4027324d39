import MSALSupport
import Testing

@Suite("Percent encoding: one decoding rule")
struct PercentEncodingTests {
    @Test(
        "Escapes, plus signs and UTF-8 decode",
        arguments: [
            ("a+b", "a b"), ("a%20b", "a b"), ("%2B", "+"), ("%c3%A9", "é"), ("plain", "plain"), ("", ""),
            ("%25", "%"), ("%26%3D", "&="),
        ])
    func decodes(input: String, expected: String) {
        #expect(PercentEncoding.decodeFormComponent(input) == expected)
        #expect(PercentEncoding.decodeFormComponent(bytes: Array(input.utf8)) == expected)
    }

    @Test(
        "A bad escape or bytes that are not UTF-8 are refused, never kept half-decoded",
        arguments: [
            "%", "%2", "a%zz", "%g0", "%C3", "%FF", "%C0%AF", "%ED%A0%80", "100%",
        ])
    func refuses(input: String) {
        #expect(PercentEncoding.decodeFormComponent(input) == nil)
    }

    @Test("Raw bytes that are not UTF-8 are refused even without escapes")
    func rawInvalidUTF8() {
        #expect(PercentEncoding.decodeFormComponent(bytes: [0x61, 0xFF]) == nil)
        #expect(PercentEncoding.decodeFormComponent(bytes: [0xC3, 0xA9]) == "é")
    }

    @Test("Encoding keeps letters, digits and the chosen bytes; the rest is %XX in uppercase")
    func encodes() {
        #expect(PercentEncoding.encode("a b/é~*", unescaped: "*-._", spaceAsPlus: true) == "a+b%2F%C3%A9%7E*")
        #expect(PercentEncoding.encode("a b/é~*", unescaped: "-._~", spaceAsPlus: false) == "a%20b%2F%C3%A9~%2A")
    }

    @Test("Whatever is encoded decodes back", arguments: ["", "a b", "x=1&y=2", "é€😀", "%+%2B", "\u{0}\u{7F}"])
    func roundTrip(text: String) {
        #expect(PercentEncoding.decodeFormComponent(PercentEncoding.encode(text, unescaped: "*-._", spaceAsPlus: true)) == text)
        #expect(PercentEncoding.decodeFormComponent(PercentEncoding.encode(text, unescaped: "-._~", spaceAsPlus: false)) == text)
    }
}
