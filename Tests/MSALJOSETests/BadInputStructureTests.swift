import Foundation
import MSALJSON
import Testing

@testable import MSALJOSE

/// The cases of the "JWT structure" section of the design note on bad inputs
/// (shared design folder, `bad-inputs.md`).
/// Every case must end in a specific `JOSEError.Code`, never a crash or hang.
@Suite("Bad inputs: JWT structure")
struct BadInputStructureTests {
    typealias F = TestTokenFactory

    // MARK: Not three segments; empty segments

    @Test("Not three segments: \"\" (empty token) → malformed_token")
    func emptyToken() {
        expectJOSEError(.malformedToken, mentioning: ["empty"]) { () throws(JOSEError) in try F.verify("") }
    }

    @Test("Not three segments: \"a.b\" → malformed_token")
    func twoSegments() {
        expectJOSEError(.malformedToken, mentioning: ["2 segments"]) { () throws(JOSEError) in try F.verify("a.b") }
        let real = F.segments(of: F.token())
        expectJOSEError(.malformedToken, mentioning: ["2 segments"]) { () throws(JOSEError) in try F.verify("\(real[0]).\(real[1])") }
    }

    @Test("Not three segments: \"a.b.c.d\" → malformed_token")
    func fourSegments() {
        expectJOSEError(.malformedToken, mentioning: ["more than three"]) { () throws(JOSEError) in try F.verify("a.b.c.d") }
        expectJOSEError(.malformedToken, mentioning: ["more than three"]) { () throws(JOSEError) in try F.verify(F.token() + ".extra") }
    }

    @Test("Not three segments: a single segment without dots → malformed_token")
    func oneSegment() {
        expectJOSEError(.malformedToken, mentioning: ["1 segment"]) { () throws(JOSEError) in try F.verify("eyJhbGciOiJSUzI1NiJ9") }
    }

    @Test("A JWE (five segments) where a compact JWS is expected → malformed_token naming the JWE")
    func fiveSegmentsJWE() {
        let header = F.segment(#"{"alg":"RSA-OAEP-256","enc":"A256GCM","kid":"rsa-main"}"#)
        let jwe =
            "\(header).\(Base64URL.encode([UInt8](repeating: 7, count: 256))).\(Base64URL.encode([UInt8](repeating: 1, count: 12))).\(F.segment("ciphertext")).\(Base64URL.encode([UInt8](repeating: 2, count: 16)))"
        expectJOSEError(.malformedToken, mentioning: ["JWE"]) { () throws(JOSEError) in try F.verify(jwe) }
        expectJOSEError(.malformedToken, mentioning: ["JWE"]) { () throws(JOSEError) in _ = try JWT.decodeUnverified("a.b.c.d.e") }
    }

    @Test("Empty header segment (\".payload.signature\") → malformed_token")
    func emptyHeader() {
        let parts = F.segments(of: F.token())
        expectJOSEError(.malformedToken, mentioning: ["header segment is empty"]) { () throws(JOSEError) in
            try F.verify(".\(parts[1]).\(parts[2])")
        }
    }

    @Test("Empty payload segment (\"header..signature\", even with a valid signature over it) → malformed_token")
    func emptyPayload() {
        let header = F.segment(F.headerText())
        let signed = F.signSegments(header, "")
        expectJOSEError(.malformedToken, mentioning: ["payload segment is empty"]) { () throws(JOSEError) in try F.verify(signed) }
    }

    @Test("Empty signature segment (\"header.payload.\") → malformed_token")
    func emptySignature() {
        let parts = F.segments(of: F.token())
        expectJOSEError(.malformedToken, mentioning: ["signature segment is empty"]) { () throws(JOSEError) in
            try F.verify("\(parts[0]).\(parts[1]).")
        }
    }

    @Test("Only dots (\"..\") → malformed_token")
    func onlyDots() {
        expectJOSEError(.malformedToken, mentioning: ["empty"]) { () throws(JOSEError) in try F.verify("..") }
    }

    // MARK: base64url

    @Test("isAlphabet agrees with the decoder on every byte: exactly A–Z, a–z, 0–9, '-' and '_'")
    func alphabetMatchesTheDecoder() {
        let expected = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8))
        for byte in UInt8.min...UInt8.max {
            #expect(Base64URL.isAlphabet(byte) == expected.contains(byte), "byte \(byte)")
            // Four copies decode exactly when the byte is in the alphabet.
            let decodes = (try? Base64URL.decode(bytes: [byte, byte, byte, byte])) != nil
            #expect(decodes == expected.contains(byte), "byte \(byte) through the decoder")
        }
    }

    @Test("isCompactSerialization: exactly the alphabet and '.', every byte alone and at every position of a long text")
    func compactSerializationCharacters() {
        let allowed = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8))
        let token = Array(F.token().utf8)
        #expect(token.withUnsafeBufferPointer { Base64URL.isCompactSerialization($0) })
        #expect([UInt8]().withUnsafeBufferPointer { Base64URL.isCompactSerialization($0) })
        for byte in UInt8.min...UInt8.max {
            #expect([byte].withUnsafeBufferPointer { Base64URL.isCompactSerialization($0) } == allowed.contains(byte), "byte \(byte)")
            // The same byte at the start, the middle and the end of a valid token.
            for position in [0, token.count / 2, token.count - 1] {
                var text = token
                text[position] = byte
                #expect(
                    text.withUnsafeBufferPointer { Base64URL.isCompactSerialization($0) } == allowed.contains(byte),
                    "byte \(byte) at \(position)")
            }
        }
    }

    @Test("base64url with '+' (standard alphabet) in the header → invalid_base64url")
    func plusInHeader() {
        let parts = F.segments(of: F.token())
        let header = "+" + parts[0].dropFirst()
        expectJOSEError(.invalidBase64URL, mentioning: ["header", "'+'", "standard base64"]) { () throws(JOSEError) in
            try F.verify("\(header).\(parts[1]).\(parts[2])")
        }
    }

    @Test("base64url with '/' (standard alphabet) in the signature → invalid_base64url")
    func slashInSignature() {
        let parts = F.segments(of: F.token())
        let signature = "/" + parts[2].dropFirst()
        expectJOSEError(.invalidBase64URL, mentioning: ["signature", "'/'"]) { () throws(JOSEError) in
            try F.verify("\(parts[0]).\(parts[1]).\(signature)")
        }
    }

    @Test("base64url with '+' and '/' in a validly signed payload → invalid_base64url (payload)")
    func standardAlphabetInSignedPayload() {
        let header = F.segment(F.headerText())
        // Standard base64 of bytes that need '+' and '/': 0xFB 0xFF 0xBF → "+/+/".
        let payload = F.segment(F.claimsText()) + "+/+/"
        let token = F.signSegments(header, payload)
        expectJOSEError(.invalidBase64URL, mentioning: ["payload", "standard base64"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("base64url with a misplaced '=' inside a segment → invalid_base64url")
    func misplacedPadding() {
        let parts = F.segments(of: F.token())
        let header = String(parts[0].prefix(8)) + "=" + String(parts[0].dropFirst(9))
        expectJOSEError(.invalidBase64URL, mentioning: ["header", "'=' before the end"]) { () throws(JOSEError) in
            try F.verify("\(header).\(parts[1]).\(parts[2])")
        }
    }

    @Test("base64url with non-canonical '=' padding (too many '=') → invalid_base64url")
    func nonCanonicalPadding() {
        let header = F.segment(F.headerText())
        let padded = header + String(repeating: "=", count: (4 - header.count % 4) % 4 + 4)
        let token = F.signSegments(padded, F.segment(F.claimsText()))
        expectJOSEError(.invalidBase64URL, mentioning: ["header", "padding"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("base64url with exactly canonical '=' padding in the payload (Entra v1 style) is still accepted")
    func canonicalPaddingTolerated() throws {
        let header = F.segment(F.headerText())
        var payload = F.segment(F.claimsText(["pad": .string("x")]))
        if payload.count % 4 == 0 { payload = F.segment(F.claimsText(["pad": .string("xy")])) }
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let token = F.signSegments(header, payload)
        #expect(try F.validate(token).subject != nil)
    }

    @Test(
        "base64url with whitespace (space, tab, CR/LF, leading or trailing) → invalid_base64url",
        arguments: ["space in header", "tab in header", "newline after token", "CRLF inside signature", "leading space"])
    func whitespace(placement: String) {
        let parts = F.segments(of: F.token())
        let token: String
        switch placement {
        case "space in header": token = "\(parts[0].prefix(10)) \(parts[0].dropFirst(10)).\(parts[1]).\(parts[2])"
        case "tab in header": token = "\(parts[0].prefix(10))\t\(parts[0].dropFirst(10)).\(parts[1]).\(parts[2])"
        case "newline after token": token = "\(parts[0]).\(parts[1]).\(parts[2])\n"
        case "CRLF inside signature": token = "\(parts[0]).\(parts[1]).\(parts[2].prefix(64))\r\n\(parts[2].dropFirst(64))"
        default: token = " \(parts[0]).\(parts[1]).\(parts[2])"
        }
        expectJOSEError(.invalidBase64URL, mentioning: ["invalid character"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("base64url with whitespace inside a validly signed payload → invalid_base64url (payload)")
    func whitespaceInSignedPayload() {
        let header = F.segment(F.headerText())
        let payload = F.segment(F.claimsText())
        let token = F.signSegments(header, "\(payload.prefix(12)) \(payload.dropFirst(12))")
        expectJOSEError(.invalidBase64URL, mentioning: ["payload", "0x20"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("base64url with an impossible length (4k+1 characters) → invalid_base64url")
    func impossibleLength() {
        let parts = F.segments(of: F.token())
        var header = parts[0]
        while header.count % 4 != 1 { header += "A" }
        expectJOSEError(.invalidBase64URL, mentioning: ["header", "impossible length"]) { () throws(JOSEError) in
            try F.verify("\(header).\(parts[1]).\(parts[2])")
        }
        var signature = parts[2]
        while signature.count % 4 != 1 { signature += "A" }
        expectJOSEError(.invalidBase64URL, mentioning: ["signature", "impossible length"]) { () throws(JOSEError) in
            try F.verify("\(parts[0]).\(parts[1]).\(signature)")
        }
    }

    @Test("base64url with non-zero unused bits in the last character → invalid_base64url")
    func nonZeroTrailingBits() {
        // "e30" is "{}"; "e31" decodes to the same bytes with a stray low bit.
        expectJOSEError(.invalidBase64URL, mentioning: ["header", "unused bits"]) { () throws(JOSEError) in try F.verify("e31.e30.AAAA") }
    }

    @Test("Non-ASCII characters in a segment (\"é\", NUL) → invalid_base64url")
    func nonASCIIInSegment() {
        let parts = F.segments(of: F.token())
        expectJOSEError(.invalidBase64URL, mentioning: ["header", "byte 0xc3"]) { () throws(JOSEError) in
            try F.verify("é\(parts[0].dropFirst(2)).\(parts[1]).\(parts[2])")
        }
        expectJOSEError(.invalidBase64URL, mentioning: ["signature", "byte 0x0"]) { () throws(JOSEError) in
            try F.verify("\(parts[0]).\(parts[1]).\(parts[2].dropLast())\u{0}")
        }
    }

    // MARK: Non-UTF-8, not an object, trailing bytes

    @Test("Non-UTF-8 bytes in the header JSON → invalid_header naming UTF-8")
    func nonUTF8Header() {
        let header: [UInt8] = Array(#"{"alg":"RS256","kid":"rsa-main","x":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        let token = F.token(headerBytes: header, payloadBytes: Array(F.claimsText().utf8))
        expectJOSEError(.invalidHeader, mentioning: ["header", "UTF-8"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test(
        "Non-UTF-8 bytes in the (validly signed) payload JSON: invalid byte, overlong, encoded surrogate → invalid_payload",
        arguments: [[0xC3, 0x28], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] as [[UInt8]])
    func nonUTF8Payload(bytes: [UInt8]) {
        let payload = Array(#"{"sub":"x","name":""#.utf8) + bytes + Array(#""}"#.utf8)
        let token = F.token(headerBytes: Array(F.headerText().utf8), payloadBytes: payload)
        expectJOSEError(.invalidPayload, mentioning: ["payload", "UTF-8"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test(
        "Header is not a JSON object (array, string, number, null, true) → invalid_header",
        arguments: [#"["RS256"]"#, #""RS256""#, "256", "null", "true"])
    func headerNotObject(header: String) {
        let token = F.token(header: header, payload: F.claimsText())
        expectJOSEError(.invalidHeader, mentioning: ["header is not a JSON object"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("Header is not JSON at all (or has a byte-order mark) → invalid_header")
    func headerNotJSON() {
        expectJOSEError(.invalidHeader, mentioning: ["header"]) { () throws(JOSEError) in
            try F.verify(F.token(header: "alg=RS256", payload: F.claimsText()))
        }
        expectJOSEError(.invalidHeader, mentioning: ["header", "byte-order mark"]) { () throws(JOSEError) in
            try F.verify(F.token(headerBytes: [0xEF, 0xBB, 0xBF] + Array(F.headerText().utf8), payloadBytes: Array(F.claimsText().utf8)))
        }
    }

    @Test(
        "Payload is not a JSON object (array, string, number, null) even with a valid signature → invalid_payload",
        arguments: [#"[{"sub":"x"}]"#, #""{\"sub\":\"x\"}""#, "1700000000", "null"])
    func payloadNotObject(payload: String) {
        let token = F.token(header: F.headerText(), payload: payload)
        expectJOSEError(.invalidPayload, mentioning: ["payload is not a JSON object"]) { () throws(JOSEError) in try F.verify(token) }
        expectJOSEError(.invalidPayload) { () throws(JOSEError) in _ = try JWT.decodeUnverified(token) }
    }

    @Test("Payload is not JSON at all, with a valid signature → invalid_payload")
    func payloadNotJSON() {
        let token = F.token(header: F.headerText(), payload: "sub=x&aud=y")
        expectJOSEError(.invalidPayload, mentioning: ["payload"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("Trailing bytes after the header JSON (garbage, a second object) → invalid_header")
    func trailingBytesHeader() {
        for header in [F.headerText() + "x", F.headerText() + #"{"alg":"none"}"#, F.headerText() + "\u{0}"] {
            let token = F.token(header: header, payload: F.claimsText())
            expectJOSEError(.invalidHeader, mentioning: ["after the JSON value"]) { () throws(JOSEError) in try F.verify(token) }
        }
    }

    @Test("Trailing bytes after the (validly signed) payload JSON → invalid_payload")
    func trailingBytesPayload() {
        for payload in [F.claimsText() + ",", F.claimsText() + #"{"aud":"attacker"}"#, F.claimsText() + "]"] {
            let token = F.token(header: F.headerText(), payload: payload)
            expectJOSEError(.invalidPayload, mentioning: ["after the JSON value"]) { () throws(JOSEError) in try F.verify(token) }
        }
    }

    @Test("Trailing whitespace after the JSON is JSON whitespace and accepted")
    func trailingWhitespaceAccepted() throws {
        let token = F.token(header: F.headerText() + " \n", payload: F.claimsText() + "\r\n\t ")
        #expect(try F.validate(token).subject != nil)
    }

    // MARK: Duplicate members

    @Test("Duplicate header members (\"alg\" twice) → duplicate_member naming alg")
    func duplicateHeaderAlg() {
        let token = F.token(header: #"{"alg":"RS256","kid":"rsa-main","alg":"none"}"#, payload: F.claimsText())
        expectJOSEError(.duplicateMember, mentioning: ["\"alg\""]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("Duplicate header members (\"kid\" twice) → duplicate_member naming kid")
    func duplicateHeaderKid() {
        let token = F.token(header: #"{"alg":"RS256","kid":"attacker","kid":"rsa-main"}"#, payload: F.claimsText())
        expectJOSEError(.duplicateMember, mentioning: ["\"kid\""]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("Duplicate header members via a \\u0061 escape (\"alg\" and \"\\u0061lg\") → duplicate_member")
    func duplicateHeaderEscaped() {
        let token = F.token(header: #"{"alg":"RS256","kid":"rsa-main","\u0061lg":"none"}"#, payload: F.claimsText())
        expectJOSEError(.duplicateMember, mentioning: ["\"alg\""]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("Duplicate claims (\"aud\" twice) with a valid signature → duplicate_member naming aud")
    func duplicateClaims() {
        let payload = String(F.claimsText().dropLast()) + #","aud":"attacker-client"}"#
        let token = F.token(header: F.headerText(), payload: payload)
        expectJOSEError(.duplicateMember, mentioning: ["\"aud\""]) { () throws(JOSEError) in try F.verify(token) }
        expectJOSEError(.duplicateMember) { () throws(JOSEError) in _ = try JWT.decodeUnverified(token) }
    }

    @Test("Duplicate claims via \\u escapes (\"sub\" and \"\\u0073\\u0075\\u0062\") → duplicate_member")
    func duplicateClaimsEscaped() {
        let payload = String(F.claimsText().dropLast()) + #","\u0073\u0075\u0062":"someone-else"}"#
        let token = F.token(header: F.headerText(), payload: payload)
        expectJOSEError(.duplicateMember, mentioning: ["\"sub\""]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("Duplicate claims in a large claim set (more than 16 members, hashed check) → duplicate_member")
    func duplicateClaimsLargeObject() {
        var members = F.validClaims
        for index in 0..<40 { members.append(JSONMember(name: "extra\(index)", value: .integer(index))) }
        let payload = String(JSONWriter.string(.object(members)).dropLast()) + #","extra\u0033\u0039":0}"#
        let token = F.token(header: F.headerText(), payload: payload)
        expectJOSEError(.duplicateMember, mentioning: ["\"extra39\""]) { () throws(JOSEError) in try F.verify(token) }
    }

    // MARK: Claims of the wrong type, absurd numbers

    @Test("Claim of the wrong type: exp: \"1700000000\" (a string) → invalid_claim naming exp")
    func expAsString() {
        let token = F.token(claims: F.claims(["exp": .string("1700003600")]))
        expectJOSEError(.invalidClaim, mentioning: ["exp", "number"]) { () throws(JOSEError) in try F.validate(token) }
    }

    @Test("Claim of the wrong type: exp: true → invalid_claim naming exp")
    func expAsBool() {
        let token = F.token(claims: F.claims(["exp": .bool(true)]))
        expectJOSEError(.invalidClaim, mentioning: ["exp"]) { () throws(JOSEError) in try F.validate(token) }
    }

    @Test("Claim of the wrong type: exp: null, [], {} → invalid_claim naming exp")
    func expOtherTypes() {
        for value: JSON in [.null, .array([.integer(F.expiry)]), .object([JSONMember]())] {
            let token = F.token(claims: F.claims(["exp": value]))
            expectJOSEError(.invalidClaim, mentioning: ["exp"]) { () throws(JOSEError) in try F.validate(token) }
        }
    }

    @Test("Claim of the wrong type: aud: {} → invalid_claim naming aud")
    func audAsObject() {
        let token = F.token(claims: F.claims(["aud": .object([JSONMember]())]))
        expectJOSEError(.invalidClaim, mentioning: ["aud"]) { () throws(JOSEError) in try F.validate(token) }
    }

    @Test("Claim of the wrong type: aud array holding a non-string ([client, 1]) → invalid_claim naming aud")
    func audArrayWithNumber() {
        let token = F.token(claims: F.claims(["aud": .array([.string(F.clientID), .integer(1)]), "azp": .string(F.clientID)]))
        expectJOSEError(.invalidClaim, mentioning: ["aud"]) { () throws(JOSEError) in try F.validate(token) }
    }

    @Test("Claim of the wrong type: iss, sub, nonce, tid, azp as numbers → invalid_claim naming the claim")
    func stringClaimsAsNumbers() {
        let cases: [(String, IDTokenValidationOptions)] = [
            ("iss", F.options()), ("sub", F.options()), ("nonce", F.options()),
            ("tid", F.options(issuer: F.issuerTemplate)), ("azp", F.options()),
        ]
        for (name, options) in cases {
            let token = F.token(claims: F.claims([name: .integer(42)]))
            expectJOSEError(.invalidClaim, mentioning: [name]) { () throws(JOSEError) in try F.validate(token, options: options) }
        }
    }

    @Test("Absurd numbers: exp: 1e400 (overflows to infinity) → invalid_claim naming exp")
    func expOverflow() {
        let token = F.token(claims: F.claims(["exp": .number("1e400")]))
        expectJOSEError(.invalidClaim, mentioning: ["exp", "NumericDate"]) { () throws(JOSEError) in try F.validate(token) }
    }

    @Test("Absurd numbers: exp: -1e400, 1e300, 99999999999999999999999 → invalid_claim; nbf/iat: 1e400 → invalid_claim")
    func otherAbsurdNumbers() {
        for value in ["-1e400", "1e300", "99999999999999999999999"] {
            let token = F.token(claims: F.claims(["exp": .number(value)]))
            expectJOSEError(.invalidClaim, mentioning: ["exp"]) { () throws(JOSEError) in try F.validate(token) }
        }
        for name in ["nbf", "iat"] {
            let token = F.token(claims: F.claims([name: .number("1e400")]))
            expectJOSEError(.invalidClaim, mentioning: [name]) { () throws(JOSEError) in try F.validate(token) }
        }
    }

    // MARK: Size and depth

    @Test("Size: a multi-megabyte token → limit_exceeded, returned fast")
    func multiMegabyteToken() {
        let parts = F.segments(of: F.token())
        let huge = "\(parts[0]).\(String(repeating: "A", count: 8 * 1024 * 1024)).\(parts[2])"
        var error: JOSEError?
        let seconds = F.seconds {
            error = expectJOSEError(.limitExceeded, mentioning: ["exceeds"]) { () throws(JOSEError) in try F.validate(huge) }
        }
        #expect(error != nil)
        // A bound against work that grows with the input (a quadratic scan of 8 MB takes minutes),
        // not a speed measurement: a debug build under a parallel test run takes ~0.3 s here.
        #expect(seconds < 5, "took \(seconds) s")
        expectJOSEError(.limitExceeded) { () throws(JOSEError) in _ = try JWT.decodeUnverified(huge) }
    }

    @Test("Size: a million dots → limit_exceeded (default cap), and malformed_token under a raised cap; both fast")
    func millionDots() {
        let dots = String(repeating: ".", count: 1_000_000)
        let defaultCap = F.seconds {
            expectJOSEError(.limitExceeded) { () throws(JOSEError) in try F.verify(dots) }
        }
        // Bounds against work that grows with the input (quadratic over a million dots takes
        // minutes), not speed measurements (the benchmarks measure speed).
        #expect(defaultCap < 5, "took \(defaultCap) s")
        let raised = JWTVerifier(keySet: F.trustedKeySet, maximumTokenSize: 4 * 1024 * 1024)
        let raisedCap = F.seconds {
            expectJOSEError(.malformedToken, mentioning: ["more than three"]) { () throws(JOSEError) in try raised.verify(dots) }
            expectJOSEError(.malformedToken) { () throws(JOSEError) in try raised.verify("a.b.c" + dots) }
            expectJOSEError(.malformedToken) { () throws(JOSEError) in _ = try JWT.decodeUnverified(dots, maximumSize: 4 * 1024 * 1024) }
        }
        #expect(raisedCap < 10, "took \(raisedCap) s")
    }

    @Test("Depth: deeply nested arrays in a validly signed payload → limit_exceeded, no crash")
    func deeplyNestedPayload() {
        let depth = 20_000
        let payload = #"{"sub":"x","deep":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        let token = F.token(header: F.headerText(), payload: payload)
        let seconds = F.seconds {
            expectJOSEError(.limitExceeded, mentioning: ["nesting"]) { () throws(JOSEError) in try F.verify(token) }
            expectJOSEError(.limitExceeded, mentioning: ["nesting"]) { () throws(JOSEError) in _ = try JWT.decodeUnverified(token) }
        }
        #expect(seconds < 1.0, "took \(seconds) s")
    }

    @Test("Depth: unterminated deep nesting and nested objects in the header → limit_exceeded before any key is used")
    func deeplyNestedHeader() {
        let header = #"{"alg":"RS256","kid":"rsa-main","x":"# + String(repeating: #"{"a":["#, count: 5_000)
        let token = "\(F.segment(header)).\(F.segment(F.claimsText())).AAAA"
        expectJOSEError(.limitExceeded, mentioning: ["nesting"]) { () throws(JOSEError) in try F.verify(token) }
    }

    @Test("Depth: nesting exactly at the cap (16 levels) is accepted; one more → limit_exceeded")
    func nestingAtTheCap() throws {
        // The claims object is level 1, so 15 arrays reach level 16.
        let atCap =
            String(F.claimsText().dropLast()) + #","deep":"# + String(repeating: "[", count: 15) + String(repeating: "]", count: 15) + "}"
        #expect(try F.validate(F.token(header: F.headerText(), payload: atCap)).subject != nil)
        let beyond =
            String(F.claimsText().dropLast()) + #","deep":"# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + "}"
        expectJOSEError(.limitExceeded, mentioning: ["16"]) { () throws(JOSEError) in
            try F.validate(F.token(header: F.headerText(), payload: beyond))
        }
    }

    // MARK: JSON serialization, JWE, crit

    @Test("JWS JSON serialization (flattened) where a compact JWS is expected → malformed_token")
    func flattenedJSONSerialization() {
        let parts = F.segments(of: F.token())
        let json = #"{"payload":"\#(parts[1])","protected":"\#(parts[0])","signature":"\#(parts[2])"}"#
        expectJOSEError(.malformedToken, mentioning: ["JSON serialization"]) { () throws(JOSEError) in try F.validate(json) }
        // With leading whitespace it is no longer recognised by its brace, but it still has no dots.
        expectJOSEError(.malformedToken, mentioning: ["1 segment"]) { () throws(JOSEError) in try F.validate("\n " + json) }
    }

    @Test("JWS JSON serialization (general, \"signatures\" array) where a compact JWS is expected → malformed_token")
    func generalJSONSerialization() {
        let parts = F.segments(of: F.token())
        let json = #"{"payload":"\#(parts[1])","signatures":[{"protected":"\#(parts[0])","signature":"\#(parts[2])"}]}"#
        expectJOSEError(.malformedToken, mentioning: ["JSON serialization"]) { () throws(JOSEError) in try F.validate(json) }
        expectJOSEError(.malformedToken, mentioning: ["JSON serialization"]) { () throws(JOSEError) in _ = try JWT.decodeUnverified(json) }
    }

    @Test("An unknown crit member (even on a validly signed token) → unsupported_critical_header naming it")
    func unknownCrit() {
        let token = F.token(extraHeader: [
            JSONMember(name: "crit", value: .array([.string("http://example.com/must-understand")])),
            JSONMember(name: "http://example.com/must-understand", value: .bool(true)),
        ])
        expectJOSEError(.unsupportedCriticalHeader, mentioning: ["http://example.com/must"]) { () throws(JOSEError) in try F.validate(token)
        }
        let b64 = F.token(extraHeader: [
            JSONMember(name: "crit", value: .array([.string("b64")])), JSONMember(name: "b64", value: .bool(false)),
        ])
        expectJOSEError(.unsupportedCriticalHeader, mentioning: ["b64"]) { () throws(JOSEError) in try F.validate(b64) }
    }

    @Test(
        "A malformed crit (string, empty array, non-string entry, null) → invalid_header",
        arguments: [JSON.string("exp"), .array([]), .array([.integer(1)]), .null])
    func malformedCrit(crit: JSON) {
        let token = F.token(extraHeader: [JSONMember(name: "crit", value: crit)])
        expectJOSEError(.invalidHeader, mentioning: ["crit"]) { () throws(JOSEError) in try F.validate(token) }
    }

    @Test("Header without a usable alg (missing, number, null) → invalid_header")
    func headerWithoutAlg() {
        for header in [#"{"kid":"rsa-main"}"#, #"{"alg":256,"kid":"rsa-main"}"#, #"{"alg":null,"kid":"rsa-main"}"#] {
            let token = F.token(header: header, payload: F.claimsText())
            expectJOSEError(.invalidHeader, mentioning: ["alg"]) { () throws(JOSEError) in try F.verify(token) }
        }
    }
}
