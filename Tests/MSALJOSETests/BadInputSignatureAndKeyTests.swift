import Foundation
import MSALJSON
import Testing

@testable import MSALJOSE

/// The cases of the "Signatures and keys" section of the design note on bad inputs
/// (shared design folder, `bad-inputs.md`), plus its rule that signature errors
/// outrank claim errors.
@Suite("Bad inputs: signatures and keys")
struct BadInputSignatureAndKeyTests {
    typealias F = TestTokenFactory

    // MARK: alg none, HMAC

    @Test("alg \"none\" in any case (none, None, NONE, nOnE) → unsupported_algorithm", arguments: ["none", "None", "NONE", "nOnE"])
    func algNone(alg: String) {
        let payload = F.segment(F.claimsText())
        for header in [#"{"alg":"\#(alg)"}"#, F.headerText(alg: alg)] {
            // With a signature segment present (here a real RS256 signature), the alg itself is refused.
            let token = F.signSegments(F.segment(header), payload)
            expectJOSEError(.unsupportedAlgorithm, mentioning: ["unsigned"]) { () throws(JOSEError) in try F.validate(token) }
        }
        // The classic unsecured form ends in an empty signature segment; structure is checked first.
        let unsecured = "\(F.segment(#"{"alg":"\#(alg)","typ":"JWT"}"#)).\(payload)."
        expectJOSEError(.malformedToken, mentioning: ["signature segment is empty"]) { () throws(JOSEError) in try F.validate(unsecured) }
    }

    @Test(
        "HS256 keyed with the RSA public key bytes (PEM, SPKI DER, PKCS#1 DER, modulus) → unsupported_algorithm",
        arguments: ["pem", "spki-der", "pkcs1-der", "modulus"])
    func hs256KeyedWithPublicKey(secret: String) throws {
        // Real HMAC-SHA-256 forgeries made offline by scripts/make-hmac-confusion-tokens.py.
        let token = try FixtureLoader.text("BadInputs/hs256-keyed-with-\(secret).jwt")
        let keySet = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks.json"))
        let options = IDTokenValidationOptions(
            issuer: "https://login.microsoftonline.com/{tenantid}/v2.0", clientID: "6cb04018-a3f5-46a7-b995-940c78f5aef3", nonce: "123523")
        expectJOSEError(.unsupportedAlgorithm, mentioning: ["HS256", "HMAC"]) { () throws(JOSEError) in
            _ = try IDTokenValidator(keySet: keySet, options: options).validate(token, now: Date(timeIntervalSince1970: 1_700_001_000))
        }
        // Same token with the header switched to RS256: the HMAC is not an RSA signature.
        let parts = F.segments(of: token)
        let switched = "\(F.segment(#"{"alg":"RS256","kid":"sample-rsa-2048","typ":"JWT"}"#)).\(parts[1]).\(parts[2])"
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in
            _ = try IDTokenValidator(keySet: keySet, options: options).validate(switched, now: Date(timeIntervalSince1970: 1_700_001_000))
        }
    }

    @Test(
        "HMAC algorithms in any spelling (HS256, HS384, HS512, hs256) with the trusted kid → unsupported_algorithm",
        arguments: ["HS256", "HS384", "HS512", "hs256"])
    func hmacAlgorithms(alg: String) {
        let token = F.signSegments(F.segment(F.headerText(alg: alg)), F.segment(F.claimsText()))
        expectJOSEError(.unsupportedAlgorithm, mentioning: [alg]) { () throws(JOSEError) in try F.validate(token) }
    }

    @Test(
        "alg not on the allow-list (RS1, ES512, EdDSA, \"RS256 \", rs256) → unsupported_algorithm",
        arguments: ["RS1", "ES512", "EdDSA", "RS256 ", "rs256", ""])
    func algOffAllowList(alg: String) {
        let token = F.signSegments(F.segment(F.headerText(alg: alg)), F.segment(F.claimsText()))
        expectJOSEError(.unsupportedAlgorithm, mentioning: ["allow-list"]) { () throws(JOSEError) in try F.validate(token) }
    }

    @Test("alg allowed by the library but not by this verifier's allowedAlgorithms → unsupported_algorithm")
    func algNotAllowedByVerifier() {
        let verifier = JWTVerifier(keySet: F.trustedKeySet, allowedAlgorithms: [.es256])
        expectJOSEError(.unsupportedAlgorithm, mentioning: ["RS256", "not allowed"]) { () throws(JOSEError) in
            _ = try verifier.verify(F.token())
        }
    }

    // MARK: alg versus key

    @Test("alg that does not fit the key type: an RS256 token whose kid names an EC key → algorithm_key_mismatch")
    func rs256AgainstECKey() {
        let keySet = F.unwrap { () throws(JOSEError) in
            try JSONWebKeySet(json: F.keySetJSON([F.jwk(of: TestKeys.p256, ["kid": .string("shared")])]))
        }
        let token = F.token(header: F.headerText(for: TestKeys.rsa, kid: "shared"), payload: F.claimsText())
        expectJOSEError(.algorithmKeyMismatch, mentioning: ["RS256", "EC"]) { () throws(JOSEError) in try F.validate(token, keySet: keySet)
        }
    }

    @Test("alg that does not fit the key type: an ES256 token whose kid names an RSA key → algorithm_key_mismatch")
    func es256AgainstRSAKey() {
        let keySet = F.unwrap { () throws(JOSEError) in
            try JSONWebKeySet(json: F.keySetJSON([F.jwk(of: TestKeys.rsa, ["kid": .string("shared")])]))
        }
        let token = F.token(header: F.headerText(for: TestKeys.p256, kid: "shared"), payload: F.claimsText(), key: TestKeys.p256)
        expectJOSEError(.algorithmKeyMismatch, mentioning: ["ES256", "RSA"]) { () throws(JOSEError) in try F.validate(token, keySet: keySet)
        }
    }

    @Test(
        "alg that does not fit the key's curve: ES256 token vs a P-384 key with the same kid (and ES384 vs P-256) → algorithm_key_mismatch")
    func ecdsaCurveMismatch() {
        let p384AsShared = F.jwk(of: TestKeys.p384, ["kid": .string("shared"), "alg": nil])
        let keySet384 = F.unwrap { () throws(JOSEError) in try JSONWebKeySet(json: F.keySetJSON([p384AsShared])) }
        let es256 = F.token(header: F.headerText(for: TestKeys.p256, kid: "shared"), payload: F.claimsText(), key: TestKeys.p256)
        expectJOSEError(.algorithmKeyMismatch, mentioning: ["ES256", "P-256", "P-384"]) { () throws(JOSEError) in
            try F.validate(es256, keySet: keySet384)
        }

        let p256AsShared = F.jwk(of: TestKeys.p256, ["kid": .string("shared"), "alg": nil])
        let keySet256 = F.unwrap { () throws(JOSEError) in try JSONWebKeySet(json: F.keySetJSON([p256AsShared])) }
        let es384 = F.token(header: F.headerText(for: TestKeys.p384, kid: "shared"), payload: F.claimsText(), key: TestKeys.p384)
        expectJOSEError(.algorithmKeyMismatch, mentioning: ["ES384", "P-384"]) { () throws(JOSEError) in
            try F.validate(es384, keySet: keySet256)
        }
    }

    @Test(
        "alg not matching the key's own alg: a validly signed PS256 (and RS512) token for a key declaring RS256 → algorithm_key_mismatch",
        arguments: [JWSAlgorithm.ps256, .rs512])
    func algNotMatchingKeyAlg(algorithm: JWSAlgorithm) {
        let headerText = F.headerText(alg: algorithm.rawValue)
        let token = F.unwrap { () throws(JOSEError) in
            try TestKeys.rsa.sign(headerBytes: Array(headerText.utf8), payloadBytes: Array(F.claimsText().utf8), algorithm: algorithm)
        }
        expectJOSEError(.algorithmKeyMismatch, mentioning: ["RS256", algorithm.rawValue]) { () throws(JOSEError) in try F.validate(token) }
        // The same signature is fine for the same key published without alg.
        let noAlg = F.unwrap { () throws(JOSEError) in try JSONWebKeySet(json: F.keySetJSON([F.jwk(of: TestKeys.rsa, ["alg": nil])])) }
        #expect((try? F.validate(token, keySet: noAlg)) != nil)
    }

    @Test("A JWK whose own alg does not fit its kty or curve (RSA key with ES256, P-256 key with ES384) → invalid_key")
    func jwkAlgNotFittingKey() {
        expectJOSEError(.invalidKey, mentioning: ["ES256", "RSA"]) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(F.jwk(of: TestKeys.rsa, ["alg": .string("ES256")])))
        }
        expectJOSEError(.invalidKey, mentioning: ["ES384", "P-256"]) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(F.jwk(of: TestKeys.p256, ["alg": .string("ES384")])))
        }
    }

    // MARK: kid

    @Test("kid missing with several keys that fit the alg → ambiguous_key")
    func missingKidSeveralKeys() {
        let keySet = F.keySet(TestKeys.rsa, TestKeys.rsaSecond)
        let token = F.token(header: #"{"alg":"RS256","typ":"JWT"}"#, payload: F.claimsText())
        expectJOSEError(.ambiguousKey, mentioning: ["no kid", "several keys"]) { () throws(JOSEError) in
            try F.validate(token, keySet: keySet)
        }
    }

    @Test("kid missing with exactly one key → accepted")
    func missingKidOneKey() throws {
        let token = F.token(header: #"{"alg":"RS256","typ":"JWT"}"#, payload: F.claimsText())
        let idToken = try F.validate(token, keySet: F.keySet(TestKeys.rsa))
        #expect(idToken.jwt.isSignatureVerified)
        #expect(idToken.jwt.keyID == nil)
        // Several keys, but only one of the type the alg needs: still unambiguous.
        #expect(try F.validate(token, keySet: F.trustedKeySet).jwt.isSignatureVerified)
    }

    @Test("kid missing and no key fits the alg (ES384 token, RSA-only set) → key_not_found")
    func missingKidNoKeyFits() {
        let token = F.token(header: #"{"alg":"ES384"}"#, payload: F.claimsText(), key: TestKeys.p384)
        expectJOSEError(.keyNotFound, mentioning: ["ES384"]) { () throws(JOSEError) in try F.validate(token, keySet: F.keySet(TestKeys.rsa))
        }
    }

    @Test("Unknown kid → key_not_found naming the kid")
    func unknownKid() {
        let token = F.token(header: F.headerText(kid: "rotated-away-2023"), payload: F.claimsText())
        expectJOSEError(.keyNotFound, mentioning: ["rotated-away-2023"]) { () throws(JOSEError) in try F.validate(token) }
        // The refetch-once-then-fail policy belongs to MSAL's JWKS cache; MSALJOSE reports the typed error.
    }

    @Test(
        "kid that looks like a path or URL is an opaque lookup value → key_not_found",
        arguments: [
            "../../../../etc/passwd", "/dev/null", "file:///etc/ssl/private/key.pem", "https://attacker.example/jwks.json#rsa-main",
            "rsa-main/../rsa-main", "RSA-MAIN", "rsa-main ", "rsa-main\u{0}",
        ])
    func kidAsPathOrURL(kid: String) {
        let header = JSONWriter.string(.object(["alg": .string("RS256"), "kid": .string(kid)]))
        let crafted = F.signSegments(F.segment(header), F.segment(F.claimsText()))
        expectJOSEError(.keyNotFound) { () throws(JOSEError) in try F.validate(crafted) }
    }

    @Test("kid that is not a string (number, null, array) → invalid_header")
    func kidNotString() {
        for kid in ["1", "null", #"["rsa-main"]"#] {
            let token = F.token(header: #"{"alg":"RS256","kid":\#(kid)}"#, payload: F.claimsText())
            expectJOSEError(.invalidHeader, mentioning: ["kid"]) { () throws(JOSEError) in try F.validate(token) }
        }
    }

    // MARK: jku, x5u, jwk, x5c

    @Test(
        "jku / x5u / jwk / x5c in the header pointing to an attacker key: never used → invalid_signature",
        arguments: ["jku", "x5u", "jwk", "x5c"])
    func headerKeyReferences(member: String) {
        let attackerJWK = F.jwk(of: TestKeys.attackerRSA)
        let value: JSON
        switch member {
        case "jwk": value = attackerJWK
        case "x5c": value = .array([.string(Base64URL.encode(Array("attacker certificate".utf8)))])
        default: value = .string("https://attacker.example/.well-known/jwks.json")
        }
        // Signed by the attacker, under the trusted kid.
        let forged = F.token(claims: F.claims(), key: TestKeys.attackerRSA, extraHeader: [JSONMember(name: member, value: value)])
        expectJOSEError(.invalidSignature, mentioning: ["rsa-main"]) { () throws(JOSEError) in try F.validate(forged) }
        // Without a kid, only the trusted set is consulted too.
        let header = JSONWriter.string(.object(["alg": .string("RS256"), member: value]))
        let noKid = F.token(header: header, payload: F.claimsText(), key: TestKeys.attackerRSA)
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(noKid, keySet: F.keySet(TestKeys.rsa)) }
        // A kid that only the embedded/linked key could satisfy is simply not found.
        let ownKid = F.token(
            header: JSONWriter.string(.object(["alg": .string("RS256"), "kid": .string("attacker-kid"), member: value])),
            payload: F.claimsText(), key: TestKeys.attackerRSA)
        expectJOSEError(.keyNotFound) { () throws(JOSEError) in try F.validate(ownKid) }
    }

    @Test("jku / x5u / jwk / x5c on a token signed by the trusted key are ignored (accepted)")
    func headerKeyReferencesIgnored() throws {
        let token = F.token(extraHeader: [
            JSONMember(name: "jku", value: .string("https://attacker.example/jwks")),
            JSONMember(name: "x5u", value: .string("https://attacker.example/cert.pem")),
            JSONMember(name: "jwk", value: F.jwk(of: TestKeys.attackerRSA)),
            JSONMember(name: "x5c", value: .array([.string("AAAA")])),
        ])
        #expect(try F.validate(token).jwt.isSignatureVerified)
    }

    @Test("A payload changed after signing → invalid_signature")
    func tamperedPayload() {
        let parts = F.segments(of: F.token())
        let tampered = "\(parts[0]).\(F.segment(F.claimsText(["sub": .string("admin")]))).\(parts[2])"
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(tampered) }
    }

    // MARK: ECDSA

    @Test("ECDSA r = s = 0 (\"psychic signature\", CVE-2022-21449) → invalid_signature", arguments: ["P-256", "P-384"])
    func ecdsaZeroSignature(curve: String) {
        let key = curve == "P-256" ? TestKeys.p256 : TestKeys.p384
        let token = F.token(key: key)
        let zeros = [UInt8](repeating: 0, count: F.signatureBytes(of: token).count)
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.replacingSignature(of: token, with: zeros)) }
    }

    @Test("ECDSA r or s ≥ n (r = n, s = n, r = s = n, r = 2^k − 1) → invalid_signature", arguments: ["P-256", "P-384"])
    func ecdsaOutOfRange(curve: String) {
        let (key, order) = curve == "P-256" ? (TestKeys.p256, F.p256Order) : (TestKeys.p384, F.p384Order)
        let token = F.token(key: key)
        let valid = F.signatureBytes(of: token)
        let half = valid.count / 2
        let r = Array(valid[..<half])
        let s = Array(valid[half...])
        let allOnes = [UInt8](repeating: 0xFF, count: half)
        let candidates: [(String, [UInt8])] = [
            ("r = n", order + s), ("s = n", r + order), ("r = s = n", order + order),
            ("r = 2^k - 1", allOnes + s), ("s = 2^k - 1", r + allOnes),
        ]
        for (name, signature) in candidates {
            let error = expectJOSEError(.invalidSignature) { () throws(JOSEError) in
                try F.validate(F.replacingSignature(of: token, with: signature))
            }
            #expect(error != nil, "\(curve) \(name)")
        }
        #expect((try? F.validate(token)) != nil, "the untouched signature verifies")
    }

    @Test("ECDSA: a DER-encoded signature where JWS wants R‖S → invalid_signature", arguments: ["P-256", "P-384"])
    func ecdsaDERSignature(curve: String) {
        let token = F.token(key: curve == "P-256" ? TestKeys.p256 : TestKeys.p384)
        let der = F.derECDSASignature(fromRawRS: F.signatureBytes(of: token))
        #expect(der.first == 0x30)
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.replacingSignature(of: token, with: der)) }
    }

    @Test(
        "ECDSA: wrong signature length (short by one, long by one, a single byte, doubled) → invalid_signature",
        arguments: ["P-256", "P-384"])
    func ecdsaWrongLength(curve: String) {
        let token = F.token(key: curve == "P-256" ? TestKeys.p256 : TestKeys.p384)
        let valid = F.signatureBytes(of: token)
        for signature in [Array(valid.dropLast()), valid + [0], [0] + valid, [valid[0]], valid + valid] {
            expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.replacingSignature(of: token, with: signature)) }
        }
    }

    @Test("ECDSA: a signature from the wrong curve (P-384 signature on an ES256 token, P-256 signature on ES384) → invalid_signature")
    func ecdsaWrongCurveSignature() {
        let es256 = F.token(key: TestKeys.p256)
        let p384Signature = F.unwrap { () throws(JOSEError) in try TestKeys.p384.signature(over: F.signingInput(of: es256)) }
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.replacingSignature(of: es256, with: p384Signature)) }
        let es384 = F.token(key: TestKeys.p384)
        let p256Signature = F.unwrap { () throws(JOSEError) in try TestKeys.p256.signature(over: F.signingInput(of: es384)) }
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.replacingSignature(of: es384, with: p256Signature)) }
    }

    @Test("ECDSA: a signature by another key on the same curve under the trusted kid → invalid_signature")
    func ecdsaAttackerKey() {
        let forged = F.token(key: TestKeys.attackerP256)
        expectJOSEError(.invalidSignature, mentioning: ["ES256", "ec-p256"]) { () throws(JOSEError) in try F.validate(forged) }
    }

    @Test("EC point not on the curve → the JWK is rejected (invalid_key); a token naming it → invalid_key", arguments: ["P-256", "P-384"])
    func ecPointNotOnCurve(curve: String) {
        let key = curve == "P-256" ? TestKeys.p256 : TestKeys.p384
        guard case .string(let y)? = F.jwk(of: key)["y"] else { Issue.record("no y"); return }
        var yBytes = F.unwrap { () throws(JOSEError) in try Base64URL.decode(y) }
        yBytes[yBytes.count - 1] ^= 0x01
        let offCurve = F.jwk(of: key, ["y": .string(Base64URL.encode(yBytes))])
        expectJOSEError(.invalidKey) { () throws(JOSEError) in _ = try JSONWebKey(json: JSONWriter.write(offCurve)) }
        // (0, 0) is the only way to write the point at infinity in x‖y form; it is not on the curve either.
        let zero = Base64URL.encode([UInt8](repeating: 0, count: key.algorithm.curve!.coordinateSize))
        expectJOSEError(.invalidKey) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(F.jwk(of: key, ["x": .string(zero), "y": .string(zero)])))
        }
        let keySet = F.unwrap { () throws(JOSEError) in try JSONWebKeySet(json: F.keySetJSON([offCurve, F.jwk(of: TestKeys.rsa)])) }
        #expect(keySet.keys.count == 1)
        #expect(keySet.rejectedKeys.first?.reason.code == .invalidKey)
        expectJOSEError(.invalidKey, mentioning: [key.keyID]) { () throws(JOSEError) in try F.validate(F.token(key: key), keySet: keySet) }
        #expect((try? F.validate(F.token(), keySet: keySet)) != nil, "the rest of the set still verifies")
    }

    @Test("EC coordinates of the wrong size (short x, 33-byte y) → invalid_key")
    func ecCoordinatesWrongSize() {
        guard case .string(let x)? = F.jwk(of: TestKeys.p256)["x"] else { Issue.record("no x"); return }
        let xBytes = F.unwrap { () throws(JOSEError) in try Base64URL.decode(x) }
        expectJOSEError(.invalidKey, mentioning: ["32 bytes"]) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(F.jwk(of: TestKeys.p256, ["x": .string(Base64URL.encode(xBytes.dropFirst()))])))
        }
        expectJOSEError(.invalidKey, mentioning: ["32 bytes"]) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(F.jwk(of: TestKeys.p256, ["x": .string(Base64URL.encode([0] + xBytes))])))
        }
    }

    // MARK: RSA

    @Test("RSA: signature length ≠ modulus length (one byte short, one byte long with a leading zero, 512 bytes) → invalid_signature")
    func rsaSignatureLength() {
        let token = F.token()
        let valid = F.signatureBytes(of: token)
        #expect(valid.count == 256)
        for signature in [Array(valid.dropFirst()), [0] + valid, valid + valid] {
            expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.replacingSignature(of: token, with: signature)) }
        }
    }

    @Test("RSA: signature value ≥ n (n itself, n + 1, all 0xFF) and trivial values 0 and 1 → invalid_signature")
    func rsaSignatureOutOfRange() {
        let token = F.token()
        guard case .string(let n)? = F.jwk(of: TestKeys.rsa)["n"] else { Issue.record("no n"); return }
        let modulus = F.unwrap { () throws(JOSEError) in try Base64URL.decode(n) }
        #expect(modulus.count == 256)
        var modulusPlusOne = modulus
        modulusPlusOne[255] &+= 1  // n is odd, so no carry
        let zero = [UInt8](repeating: 0, count: 256)
        var one = zero
        one[255] = 1
        for signature in [modulus, modulusPlusOne, [UInt8](repeating: 0xFF, count: 256), zero, one] {
            expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.replacingSignature(of: token, with: signature)) }
        }
    }

    @Test("RSA: modulus < 2048 bits (a 1024-bit JWK) → key rejected (invalid_key); a token with that kid → invalid_key")
    func rsaWeakModulus() {
        let weakJWK = F.jwk(of: TestKeys.weakRSA1024)
        expectJOSEError(.invalidKey, mentioning: ["1024-bit", "2048"]) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(weakJWK))
        }
        let keySet = F.unwrap { () throws(JOSEError) in try JSONWebKeySet(json: F.keySetJSON([weakJWK, F.jwk(of: TestKeys.rsa)])) }
        #expect(keySet.keys.map(\.keyID) == ["rsa-main"])
        #expect(keySet.rejectedKeys.map(\.keyID) == ["rsa-1024"])
        // The token is validly signed by the weak key, but the key is never trusted.
        let token = F.token(key: TestKeys.weakRSA1024)
        expectJOSEError(.invalidKey, mentioning: ["rsa-1024", "1024-bit"]) { () throws(JOSEError) in try F.validate(token, keySet: keySet) }
    }

    @Test("RSA: exponent 1 (and 1 with leading zeros, 0, empty) → invalid_key", arguments: ["AQ", "AAAB", "AA", ""])
    func rsaExponentOne(e: String) {
        expectJOSEError(.invalidKey, mentioning: ["exponent"]) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(F.jwk(of: TestKeys.rsa, ["e": .string(e)])))
        }
    }

    @Test("RSA: even exponent (2, 65536, 65538) → invalid_key", arguments: ["Ag", "AQAA", "AQAC"])
    func rsaEvenExponent(e: String) {
        expectJOSEError(.invalidKey, mentioning: ["exponent"]) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(F.jwk(of: TestKeys.rsa, ["e": .string(e)])))
        }
    }

    @Test("RSA: exponent 1 published in a JWKS under the trusted kid → the entry is skipped and the token → invalid_key")
    func rsaExponentOneInKeySet() {
        let keySet = F.unwrap { () throws(JOSEError) in
            try JSONWebKeySet(json: F.keySetJSON([F.jwk(of: TestKeys.rsa, ["e": .string("AQ")]), F.jwk(of: TestKeys.p256)]))
        }
        #expect(keySet.keys.count == 1)
        expectJOSEError(.invalidKey, mentioning: ["rsa-main", "exponent"]) { () throws(JOSEError) in
            try F.validate(F.token(), keySet: keySet)
        }
    }

    @Test("RSA: even modulus → invalid_key")
    func rsaEvenModulus() {
        guard case .string(let n)? = F.jwk(of: TestKeys.rsa)["n"] else { Issue.record("no n"); return }
        var modulus = F.unwrap { () throws(JOSEError) in try Base64URL.decode(n) }
        modulus[modulus.count - 1] &= 0xFE
        expectJOSEError(.invalidKey, mentioning: ["even"]) { () throws(JOSEError) in
            _ = try JSONWebKey(json: JSONWriter.write(F.jwk(of: TestKeys.rsa, ["n": .string(Base64URL.encode(modulus))])))
        }
    }

    // MARK: JWKS

    @Test("JWKS entries with kty oct, use enc and an unknown kty are skipped; the rest of the set still verifies")
    func keySetSkipsUnusableEntries() throws {
        let entries: [JSON] = [
            .object(["kty": .string("oct"), "kid": .string("hmac"), "k": .string("c2VjcmV0")]),
            F.jwk(of: TestKeys.rsaSecond, ["use": .string("enc"), "kid": .string("encryption")]),
            .object([
                "kty": .string("OKP"), "kid": .string("ed"), "crv": .string("Ed25519"),
                "x": .string("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
            ]),
            .object(["kty": .string("PQC"), "kid": .string("future")]),
            .string("not a JWK"),
            F.jwk(of: TestKeys.rsa),
            F.jwk(of: TestKeys.p256),
        ]
        let keySet = try JSONWebKeySet(json: F.keySetJSON(entries))
        #expect(keySet.keys.map(\.keyID) == ["rsa-main", "ec-p256"])
        #expect(keySet.rejectedKeys.map(\.keyID) == ["hmac", "encryption", "ed", "future", nil])
        #expect(keySet.rejectedKeys.allSatisfy { $0.reason.code == .invalidKey })
        #expect(try F.validate(F.token(), keySet: keySet).jwt.isSignatureVerified)
        #expect(try F.validate(F.token(key: TestKeys.p256), keySet: keySet).jwt.isSignatureVerified)
        // Tokens naming a skipped entry say why that entry is unusable.
        expectJOSEError(.invalidKey, mentioning: ["hmac", "oct"]) { () throws(JOSEError) in
            try F.validate(F.token(header: F.headerText(kid: "hmac"), payload: F.claimsText()), keySet: keySet)
        }
        expectJOSEError(.invalidKey, mentioning: ["encryption", "enc"]) { () throws(JOSEError) in
            try F.validate(
                F.token(header: F.headerText(kid: "encryption"), payload: F.claimsText(), key: TestKeys.rsaSecond), keySet: keySet)
        }
        expectJOSEError(.invalidKey, mentioning: ["ed", "OKP"]) { () throws(JOSEError) in
            try F.validate(F.token(header: F.headerText(kid: "ed"), payload: F.claimsText()), keySet: keySet)
        }
    }

    @Test("Empty JWKS ({\"keys\":[]}) → invalid_key_set")
    func emptyKeySet() {
        expectJOSEError(.invalidKeySet, mentioning: ["no keys"]) { () throws(JOSEError) in
            _ = try JSONWebKeySet(json: Array(#"{"keys":[]}"#.utf8))
        }
    }

    @Test(
        "Non-JSON JWKS (HTML, truncated JSON, empty body, BOM) → invalid_key_set",
        arguments: ["<html><body>Service Unavailable</body></html>", #"{"keys":[{"kty":"RSA""#, "", "\u{FEFF}{\"keys\":[]}"])
    func nonJSONKeySet(body: String) {
        expectJOSEError(.invalidKeySet, mentioning: ["not valid JSON"]) { () throws(JOSEError) in
            _ = try JSONWebKeySet(json: Array(body.utf8))
        }
    }

    @Test(
        "JWKS without a keys member, or keys not an array, or a bare array → invalid_key_set",
        arguments: [#"{}"#, #"{"key":[]}"#, #"{"keys":{}}"#, #"{"keys":"rsa-main"}"#, #"[]"#, "null"])
    func keySetWithoutKeys(body: String) {
        expectJOSEError(.invalidKeySet, mentioning: ["\"keys\" array"]) { () throws(JOSEError) in
            _ = try JSONWebKeySet(json: Array(body.utf8))
        }
    }

    // MARK: Ordering

    @Test("Signature errors outrank claim errors: an expired token with a bad signature → invalid_signature, not token_expired")
    func signatureOutranksExpiry() {
        let expired = F.token(claims: F.claims(["exp": .integer(F.issuedAt + 60)]))
        expectJOSEError(.tokenExpired) { () throws(JOSEError) in try F.validate(expired) }
        var signature = F.signatureBytes(of: expired)
        signature[10] ^= 0x01
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.replacingSignature(of: expired, with: signature)) }
    }

    @Test("Signature and key errors outrank every claim error (forged by an attacker key, unknown kid, alg none, weak key)")
    func keyErrorsOutrankClaims() {
        let badClaims = F.claims([
            "iss": .string("https://attacker.example/"), "aud": .string("attacker"), "exp": .integer(1), "nbf": .integer(9_999_999_999),
            "nonce": .string("replayed"),
        ])
        expectJOSEError(.invalidSignature) { () throws(JOSEError) in try F.validate(F.token(claims: badClaims, key: TestKeys.attackerRSA)) }
        expectJOSEError(.keyNotFound) { () throws(JOSEError) in
            try F.validate(F.token(claims: badClaims, key: TestKeys.rsaSecond))
        }
        let none = F.signSegments(F.segment(#"{"alg":"none"}"#), F.segment(JSONWriter.string(badClaims)))
        expectJOSEError(.unsupportedAlgorithm) { () throws(JOSEError) in try F.validate(none) }
        let weakSet = F.unwrap { () throws(JOSEError) in try JSONWebKeySet(json: F.keySetJSON([F.jwk(of: TestKeys.weakRSA1024)])) }
        expectJOSEError(.invalidKey) { () throws(JOSEError) in
            try F.validate(F.token(claims: badClaims, key: TestKeys.weakRSA1024), keySet: weakSet)
        }
    }
}
