import Testing

@testable import MSALJOSE

@Suite("Compact JWS structure")
struct TokenStructureTests {
    /// The message `locateDots` gives for `token`, or the two dot offsets.
    static func outcome(_ token: String) -> String {
        var token = token
        return token.withUTF8 { utf8 in
            do throws(JOSEError) {
                let (first, second) = try CompactJWS.locateDots(utf8, maximumSize: 1024)
                return "dots \(first) \(second)"
            } catch {
                return error.message
            }
        }
    }

    @Test(
        "Segments are counted and empty ones named",
        arguments: [
            ("a.b.c", "dots 1 3"),
            ("header.payload.sig", "dots 6 14"),
            ("abc", "token has 1 segment; a compact JWS has three"),
            ("a.b", "token has 2 segments; a compact JWS has three"),
            ("a.b.c.d", "token has more than three segments"),
            ("a.b.c.d.e", "token has five segments (a JWE); a signed compact JWS is required"),
            ("a.b.c.d.e.f", "token has more than three segments"),
            ("a.b.c.d.e.f.g.h", "token has more than three segments"),
            ("....", "token has five segments (a JWE); a signed compact JWS is required"),
            (".b.c", "token header segment is empty"),
            ("a..c", "token payload segment is empty"),
            ("a.b.", "token signature segment is empty"),
            ("", "token is empty"),
            ("{\"payload\":1}", "token uses the JWS JSON serialization; a compact JWS is required"),
        ])
    func structure(token: String, expected: String) {
        #expect(Self.outcome(token) == expected)
    }
}
