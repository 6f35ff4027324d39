import Foundation
import MSALJSON
import Testing

@testable import MSALJOSE

/// Claim checks that read claims in place (no String per claim) must keep the
/// verdicts and error codes of the String-based checks.
@Suite("ID-token claim checks")
struct ClaimCheckTests {
    static let signer: JWSSigningKey = {
        do { return try JWSSigningKey.generateEC(keyID: "claims", algorithm: .es256) } catch {
            fatalError("key generation failed: \(error)")
        }
    }()
    static let clientID = "6cb04018-a3f5-46a7-b995-940c78f5aef3"
    static let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
    static let issuer = "https://login.microsoftonline.com/\(tenant)/v2.0"
    static let now = Date(timeIntervalSince1970: 1_700_001_000)

    static func claims(replacing changes: [String: JSON?]) -> JSON {
        let members: [JSONMember] = [
            JSONMember(name: "iss", value: .string(issuer)),
            JSONMember(name: "sub", value: .string("AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ")),
            JSONMember(name: "aud", value: .string(clientID)),
            JSONMember(name: "exp", value: .integer(1_700_003_600)),
            JSONMember(name: "iat", value: .integer(1_700_000_000)),
            JSONMember(name: "nbf", value: .integer(1_700_000_000)),
            JSONMember(name: "tid", value: .string(tenant)),
            JSONMember(name: "nonce", value: .string("123523")),
        ]
        return JSON.object(members).replacingMembers(changes)
    }

    /// The error code of validating a token with `changes`, or nil when it is accepted.
    static func verdict(_ changes: [String: JSON?], expectedIssuer: String = issuer) throws -> JOSEError.Code? {
        let token = try signer.sign(claims: claims(replacing: changes))
        let keySet = JSONWebKeySet(keys: [try signer.publicKey()])
        let validator = IDTokenValidator(
            keySet: keySet, options: IDTokenValidationOptions(issuer: expectedIssuer, clientID: clientID, nonce: "123523"))
        do {
            _ = try validator.validate(token, now: now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("Exact and {tenantid} issuers are accepted")
    func acceptedIssuers() throws {
        #expect(try Self.verdict([:]) == nil)
        #expect(try Self.verdict([:], expectedIssuer: "https://login.microsoftonline.com/{tenantid}/v2.0") == nil)
    }

    @Test("iss: missing, not a string, different, or only a prefix")
    func issuerFailures() throws {
        #expect(try Self.verdict(["iss": nil]) == .missingClaim)
        #expect(try Self.verdict(["iss": .integer(5)]) == .invalidClaim)
        #expect(try Self.verdict(["iss": .string("https://login.microsoftonline.com/common/v2.0")]) == .issuerMismatch)
        #expect(try Self.verdict(["iss": .string(Self.issuer + "/")]) == .issuerMismatch)
        #expect(try Self.verdict(["iss": .string(Self.issuer.uppercased())]) == .issuerMismatch)
        // The template needs a usable tid.
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        #expect(try Self.verdict(["tid": nil], expectedIssuer: template) == .missingClaim)
        #expect(try Self.verdict(["tid": .string("a/b")], expectedIssuer: template) == .invalidClaim)
        #expect(try Self.verdict(["tid": .string("other")], expectedIssuer: template) == .issuerMismatch)
    }

    @Test("iss compares byte-exactly: canonically equivalent spellings do not match")
    func issuerCanonicalEquivalence() throws {
        let precomposed = "https://idp.example/caf\u{E9}"
        let decomposed = "https://idp.example/cafe\u{301}"
        #expect(try Self.verdict(["iss": .string(decomposed)], expectedIssuer: precomposed) == .issuerMismatch)
        #expect(try Self.verdict(["iss": .string(precomposed)], expectedIssuer: decomposed) == .issuerMismatch)
        #expect(try Self.verdict(["iss": .string(precomposed)], expectedIssuer: precomposed) == nil)
    }

    @Test("sub: missing, not a string, empty; an escaped one is not empty")
    func subject() throws {
        #expect(try Self.verdict(["sub": nil]) == .missingClaim)
        #expect(try Self.verdict(["sub": .integer(1)]) == .invalidClaim)
        #expect(try Self.verdict(["sub": .string("")]) == .invalidClaim)
        #expect(try Self.verdict(["sub": .string("\u{0}")]) == nil)
        #expect(try Self.verdict(["sub": .string("\"")]) == nil)
    }
}
