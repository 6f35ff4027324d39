import Testing

@testable import MSAL

@Suite("Content-Length framing checks (RFC 9112 §6.3)")
struct ContentLengthTests {
    static func length(_ fields: [(String, String)]) -> Result<Int64?, MSALHTTPHeaders.InvalidContentLength> {
        MSALHTTPHeaders(fields.map { MSALHTTPHeaders.Field(name: $0.0, value: $0.1) }).declaredContentLength()
    }

    @Test(
        "Valid: one number, leading zeros, spaces and tabs around it, repeats of the same number, the largest Int64",
        arguments: [
            ([("Content-Length", "2")], 2),
            ([("content-length", "0")], 0),
            ([("Content-Length", "0002")], 2),
            ([("Content-Length", " \t7 ")], 7),
            ([("Content-Length", "5"), ("CONTENT-LENGTH", "5")], 5),
            ([("Content-Length", "5, 5,5")], 5),
            ([("Content-Length", "9223372036854775807")], Int64.max),
        ] as [([(String, String)], Int64)])
    func valid(fields: [(String, String)], expected: Int64) throws {
        #expect(try Self.length(fields).get() == expected)
    }

    @Test("No Content-Length, or Transfer-Encoding framing the body: no declared length, whatever the value")
    func absent() throws {
        #expect(try Self.length([]).get() == nil)
        #expect(try Self.length([("Content-Type", "text/plain")]).get() == nil)
        #expect(try Self.length([("Transfer-Encoding", "chunked"), ("Content-Length", "x, 3")]).get() == nil)
    }

    @Test(
        "Invalid: values that differ, empty values or list elements, signs, spaces inside, non-digits, overflow",
        arguments: [
            [("Content-Length", "2"), ("Content-Length", "5")],
            [("Content-Length", "2, 5")],
            [("Content-Length", "")],
            [("Content-Length", "   ")],
            [("Content-Length", "2,")],
            [("Content-Length", ",2")],
            [("Content-Length", "+2")],
            [("Content-Length", "-2")],
            [("Content-Length", "1 2")],
            [("Content-Length", "0x10")],
            [("Content-Length", "２")],
            [("Content-Length", "1e3")],
            [("Content-Length", "9223372036854775808")],
            [("Content-Length", "99999999999999999999999999")],
        ] as [[(String, String)]])
    func invalid(fields: [(String, String)]) {
        #expect(throws: MSALHTTPHeaders.InvalidContentLength.self) { try Self.length(fields).get() }
    }

    @Test("The values are shown in the error, control characters escaped, shortened past 40 characters")
    func shownValues() {
        #expect(Self.length([("Content-Length", "2\u{1B}[31m")]) == .failure(.init(values: "2\\u{1b}[31m")))
        #expect(Self.length([("Content-Length", "2"), ("Content-Length", "5")]) == .failure(.init(values: "2, 5")))
        let long = String(repeating: "9", count: 60)
        #expect(Self.length([("Content-Length", long)]) == .failure(.init(values: String(repeating: "9", count: 40) + "…")))
    }
}
