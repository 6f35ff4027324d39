import Foundation
import MSALJSON
import Testing

@testable import MSAL

/// A token value a hostile or broken endpoint may send: each breaks the rule that an access or
/// refresh token is printable ASCII without spaces (0x21–0x7E, at least one byte).
struct HostileTokenValue: Sendable, CustomTestStringConvertible {
    /// What is wrong with it, for the test's name.
    var label: String
    /// The value as the endpoint sends it (JSON-escaped when written into a body).
    var value: String
    /// The offset of the first byte outside 0x21–0x7E; `nil` for the empty value.
    var offset: Int?
    /// That byte.
    var byte: UInt8?

    var testDescription: String { label }

    /// The marker every non-empty value starts with or contains, which no error message may show.
    static let marker = "SECRETAT"

    static let all: [HostileTokenValue] = [
        HostileTokenValue(
            label: "OSC title sequence with BEL, U+202E and CR LF", value: "SECRETAT-\u{1B}]0;x\u{07}\u{202E}\r\ny", offset: 9, byte: 0x1B),
        HostileTokenValue(label: "U+202E right-to-left override", value: "SECRETAT\u{202E}cba", offset: 8, byte: 0xE2),
        HostileTokenValue(label: "CR LF (a second output line or header)", value: "SECRETAT\r\nSet-Cookie:x", offset: 8, byte: 0x0D),
        HostileTokenValue(label: "a space inside", value: "SECRETAT tail", offset: 8, byte: 0x20),
        HostileTokenValue(label: "a leading space", value: " SECRETAT", offset: 0, byte: 0x20),
        HostileTokenValue(label: "a trailing space", value: "SECRETAT ", offset: 8, byte: 0x20),
        HostileTokenValue(label: "a tab", value: "SECRETAT\tx", offset: 8, byte: 0x09),
        HostileTokenValue(label: "DEL (0x7F)", value: "SECRETAT\u{7F}", offset: 8, byte: 0x7F),
        HostileTokenValue(label: "NUL", value: "SECRETAT\u{0}x", offset: 8, byte: 0x00),
        HostileTokenValue(label: "a non-ASCII letter", value: "SECRETATé", offset: 8, byte: 0xC3),
        HostileTokenValue(label: "the empty string", value: "", offset: nil, byte: nil),
    ]

    /// The values that are not empty (an empty refresh token means none: see ``HostileTokenValueTests``).
    static let nonEmpty = all.filter { !$0.value.isEmpty }

    /// Checks that `error` is the refusal of this value as `member`: `code`, the member and the
    /// position named, the token never quoted; for a non-empty access token, the correlation id and
    /// status 200 too when given.
    func check(
        _ error: MSALFailure?, member: String, code: MSALInternalError = .internalErrorInvalidResponse, correlationID: UUID? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else {
            Issue.record("\(label): no MSALFailure", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .internal, "\(label)", sourceLocation: sourceLocation)
        #expect(error.internalCode == code, "\(label): \(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(member), "\(label): \(error.message)", sourceLocation: sourceLocation)
        if let offset, let byte {
            let hex = String(byte, radix: 16, uppercase: true)
            #expect(
                error.message.contains("byte \(offset) of \(value.utf8.count) is 0x\(byte < 0x10 ? "0" : "")\(hex)"),
                "\(label): \(error.message)", sourceLocation: sourceLocation)
        }
        #expect(!error.message.contains(Self.marker), "\(label): the token is quoted", sourceLocation: sourceLocation)
        #expect(
            !error.message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E },
            "\(label): \(error.message.debugDescription)", sourceLocation: sourceLocation)
        if let correlationID {
            #expect(error.correlationID == correlationID, "\(label)", sourceLocation: sourceLocation)
            #expect(error.httpStatusCode == 200, "\(label)", sourceLocation: sourceLocation)
        }
    }
}

/// The token parsers refuse an access or refresh token that is not printable ASCII without spaces
/// (issue 39, finding 4): `TokenResponse(parsing:)` for every token endpoint answer and
/// `ManagedIdentityResponse.parse` for every managed-identity source's.
@Suite("Hostile token values: the token and managed-identity response parsers")
struct HostileTokenValueTests {
    static func body(accessToken: String = "at-good", refreshToken: String? = nil) -> [UInt8] {
        var members: [JSONMember] = [
            JSONMember(name: "token_type", value: .string("Bearer")), JSONMember(name: "expires_in", value: .integer(3599)),
            JSONMember(name: "access_token", value: .string(accessToken)),
        ]
        if let refreshToken { members.append(JSONMember(name: "refresh_token", value: .string(refreshToken))) }
        return JSONWriter.write(.object(members))
    }

    @Test("A token endpoint's access_token: invalidResponse naming the member and the first bad byte", arguments: HostileTokenValue.all)
    func accessToken(hostile: HostileTokenValue) {
        do {
            let response = try TokenResponse(parsing: Self.body(accessToken: hostile.value))
            Issue.record("accepted \(response.accessToken.debugDescription)")
        } catch {
            hostile.check(error, member: "access_token")
        }
    }

    @Test(
        "A token endpoint's refresh_token: invalidResponse naming the member and the first bad byte", arguments: HostileTokenValue.nonEmpty)
    func refreshToken(hostile: HostileTokenValue) {
        do {
            let response = try TokenResponse(parsing: Self.body(refreshToken: hostile.value))
            Issue.record("accepted \(String(describing: response.refreshToken?.debugDescription))")
        } catch {
            hostile.check(error, member: "refresh_token")
        }
    }

    @Test("An empty refresh_token means none, as MSAL for Python, .NET and JS read it; the access token is kept")
    func emptyRefreshToken() throws {
        let response = try TokenResponse(parsing: Self.body(refreshToken: ""))
        #expect(response.refreshToken == nil)
        #expect(response.accessToken == "at-good")
    }

    @Test(
        "Every printable ASCII byte but space is accepted: base64url, base64 with padding, JWTs, MSA's and opaque tokens",
        arguments: [
            "eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiJ4In0.c2ln", "abc+/def==", "M.C105_BAY.-CV5!*xyz$", "0.AXoA~_-.x", "!",
            String(decoding: (0x21...0x7E).map { UInt8($0) }, as: UTF8.self),
        ])
    func accepted(token: String) throws {
        let response = try TokenResponse(parsing: Self.body(accessToken: token, refreshToken: token))
        #expect(response.accessToken == token)
        #expect(response.refreshToken == token)
    }

    @Test(
        "A managed identity source's access_token: managedIdentityRequestFailed naming the member and the first bad byte",
        arguments: HostileTokenValue.all)
    func managedIdentity(hostile: HostileTokenValue) {
        let body = JSONWriter.write(
            .object([
                JSONMember(name: "access_token", value: .string(hostile.value)),
                JSONMember(name: "expires_in", value: .string("86399")), JSONMember(name: "token_type", value: .string("Bearer")),
            ]))
        for source in MSALManagedIdentitySource.allCases {
            do {
                _ = try ManagedIdentityResponse.parse(body, now: 1_700_000_000, source: source)
                Issue.record("\(source) accepted \(hostile.label)")
            } catch {
                hostile.check(error, member: "access_token", code: .managedIdentityRequestFailed)
                #expect(error.message.contains("(\(source))"), "\(error.message)")
            }
        }
    }

    @Test("tokenValueProblem names the member and the offset of the first bad byte among all the bytes")
    func problemText() {
        #expect(TokenResponse.tokenValueProblem("abc", member: "access_token") == nil)
        #expect(TokenResponse.tokenValueProblem("", member: "refresh_token") == "has an empty refresh_token")
        #expect(
            TokenResponse.tokenValueProblem("ab\u{1B}c", member: "access_token")
                == "has an access_token that is not printable ASCII without spaces (RFC 6750): byte 2 of 4 is 0x1B")
    }
}
