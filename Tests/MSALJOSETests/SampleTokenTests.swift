import Foundation
import Testing

@testable import MSALJOSE

@Suite("Sample tokens signed by an independent implementation (Python cryptography)")
struct SampleTokenTests {
    static let options = IDTokenValidationOptions(
        issuer: "https://login.microsoftonline.com/{tenantid}/v2.0",
        clientID: "6cb04018-a3f5-46a7-b995-940c78f5aef3",
        nonce: "123523")
    static let now = Date(timeIntervalSince1970: 1_700_001_000)

    @Test("RS256, ES256 and ES384 sample ID tokens verify and validate", arguments: ["rs256", "es256", "es384"])
    func validSamples(name: String) throws {
        let keySet = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks.json"))
        #expect(keySet.keys.count == 3)
        #expect(keySet.rejectedKeys.count == 1)
        let token = try FixtureLoader.text("Samples/id-token-\(name).jwt")
        let idToken = try IDTokenValidator(keySet: keySet, options: Self.options).validate(token, now: Self.now)
        #expect(idToken.objectID == "00000000-0000-0000-66f3-3332eca7ea81")
        #expect(idToken.tenantID == "9188040d-6c67-4c5b-b112-36a304b66dad")
        #expect(idToken.preferredUsername == "AbeLi@microsoft.com")
        #expect(idToken.version == "2.0")
        #expect(idToken.jwt.isSignatureVerified)
    }

    @Test("PS256 sample is refused by a key that declares RS256, accepted by one without alg")
    func psSample() throws {
        let token = try FixtureLoader.text("Samples/id-token-ps256.jwt")
        let strict = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks.json"))
        #expect(throws: JOSEError.self) { try IDTokenValidator(keySet: strict, options: Self.options).validate(token, now: Self.now) }
        do {
            _ = try IDTokenValidator(keySet: strict, options: Self.options).validate(token, now: Self.now)
        } catch {
            #expect(error.code == .algorithmKeyMismatch)
        }
        let lenient = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks-rsa-noalg.json"))
        let idToken = try IDTokenValidator(keySet: lenient, options: Self.options).validate(token, now: Self.now)
        #expect(idToken.subject == "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ")
    }

    @Test("Our own signer round-trips through our verifier", arguments: [JWSAlgorithm.rs256, .ps256, .es256, .es384])
    func signAndVerify(algorithm: JWSAlgorithm) throws {
        let signer =
            algorithm.keyType == .rsa
            ? try JWSSigningKey.generateRSA(keyID: "k1", algorithm: algorithm)
            : try JWSSigningKey.generateEC(keyID: "k1", algorithm: algorithm)
        let token = try signer.sign(claims: .object(["sub": .string("s"), "n": .integer(1)]))
        let keySet = JSONWebKeySet(keys: [try signer.publicKey()])
        let jwt = try JWTVerifier(keySet: keySet).verify(token)
        #expect(jwt.stringClaim("sub") == "s")
        #expect(jwt.numberClaim("n") == 1)
    }

    @Test("Claims of a token decoded without verification cannot be validated")
    func unverifiedClaimsRefused() throws {
        let token = try FixtureLoader.text("Samples/id-token-rs256.jwt")
        let unverified = try JWT.decodeUnverified(token)
        #expect(!unverified.isSignatureVerified)
        do {
            try IDTokenValidator.validateClaims(of: unverified, options: Self.options, now: 1_700_001_000)
            Issue.record("claims of an unverified token were accepted")
        } catch {
            #expect(error.code == .invalidSignature)
        }
    }

    @Test("RFC 7636 Appendix B PKCE vector")
    func pkceVector() throws {
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }
}
