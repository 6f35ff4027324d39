import Foundation
import MSALJSON
import Testing

@testable import MSALJOSE

/// ``DPoPProofVerifier``: RFC 9449 §4.3's checks of a DPoP proof, as an authorization server or a
/// resource makes them. Every proof here is built by hand (header and claims as JSON, signed with
/// a ``TestKeys`` key) so that each check can be broken alone; every refusal must be a
/// ``JOSEError`` with a code that names it, never a crash.
@Suite("DPoP proof verification (RFC 9449 §4.3)")
struct DPoPProofVerifierTests {
    typealias F = TestTokenFactory

    /// The server's clock.
    static let now: Int64 = 1_700_000_000
    /// The URI of the request the proofs are made for.
    static let targetURI = "https://api.example.test/orders/42"
    /// The access token the request presents.
    static let accessToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"
    /// `ath` for ``accessToken``: base64url(SHA-256(ASCII(token))).
    static let tokenHash = Base64URL.encode(F.unwrap { () throws(JOSEError) in try MessageDigest.sha256(Array(accessToken.utf8)) })

    /// The header of a valid proof signed by `key`, with `changes` applied (`nil` removes a member).
    static func header(_ key: JWSSigningKey, algorithm: JWSAlgorithm? = nil, _ changes: KeyValuePairs<String, JSON?> = [:]) -> JSON {
        let jwk = F.unwrap { () throws(JOSEError) in try key.requiredPublicJWK() }
        let header = JSON.object([
            "typ": .string("dpop+jwt"), "alg": .string((algorithm ?? key.algorithm).rawValue), "jwk": jwk,
        ])
        return header.replacingMembers(changes)
    }

    /// The claims of a valid proof for a `GET` of ``targetURI`` at ``now`` presenting ``accessToken``,
    /// with `changes` applied (`nil` removes a member).
    static func claims(_ changes: KeyValuePairs<String, JSON?> = [:]) -> JSON {
        let claims = JSON.object([
            "jti": .string("e1j3V_bKic8-LAEB"), "htm": .string("GET"), "htu": .string(targetURI), "iat": .integer(now),
            "ath": .string(tokenHash),
        ])
        return claims.replacingMembers(changes)
    }

    /// A proof signed by `key` (with `algorithm`, by default the key's own).
    static func proof(
        key: JWSSigningKey = TestKeys.p256, algorithm: JWSAlgorithm? = nil, header: JSON? = nil, claims: JSON = claims()
    ) -> String {
        let header = header ?? Self.header(key, algorithm: algorithm)
        return F.unwrap { () throws(JOSEError) in
            try key.sign(headerBytes: JSONWriter.write(header), payloadBytes: JSONWriter.write(claims), algorithm: algorithm)
        }
    }

    /// A proof whose header and claims are exactly these JSON texts, validly signed by `key`.
    static func proof(headerText: String, claimsText: String, key: JWSSigningKey = TestKeys.p256) -> String {
        F.token(header: headerText, payload: claimsText, key: key)
    }

    /// Verifies `proof` for a `GET` of ``targetURI`` presenting ``accessToken`` at ``now``, unless told otherwise.
    static func verify(
        _ proof: String, verifier: DPoPProofVerifier = DPoPProofVerifier(), method: String = "GET", targetURI: String = targetURI,
        accessToken: String? = accessToken, nonce: String? = nil, now: Int64 = now
    ) throws(JOSEError) -> DPoPProofVerifier.Proof {
        try verifier.verify(proof, method: method, targetURI: targetURI, accessToken: accessToken, nonce: nonce, now: now)
    }

    /// The error `proof` is refused with; records an issue (and answers `nil`) when it is accepted.
    static func refusal(
        _ proof: String, verifier: DPoPProofVerifier = DPoPProofVerifier(), method: String = "GET", targetURI: String = targetURI,
        accessToken: String? = accessToken, nonce: String? = nil, now: Int64 = now, sourceLocation: SourceLocation = #_sourceLocation
    ) -> JOSEError? {
        do throws(JOSEError) {
            let accepted = try verify(
                proof, verifier: verifier, method: method, targetURI: targetURI, accessToken: accessToken, nonce: nonce, now: now)
            Issue.record("the proof was accepted: \(accepted)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// Expects `proof` to be refused with `code`.
    static func expectRefusal(
        _ code: JOSEError.Code, _ proof: String, verifier: DPoPProofVerifier = DPoPProofVerifier(), method: String = "GET",
        targetURI: String = targetURI, accessToken: String? = accessToken, nonce: String? = nil, now: Int64 = now,
        _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = refusal(
            proof, verifier: verifier, method: method, targetURI: targetURI, accessToken: accessToken, nonce: nonce, now: now,
            sourceLocation: sourceLocation)
        if let error {
            #expect(error.code == code, "\(comment): expected \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// The RFC 7638 thumbprint of `key`'s public half, computed here from its members (not by the
    /// code under test): SHA-256 of the required members in lexicographic order, without spaces.
    static func independentThumbprint(_ key: JWSSigningKey) -> String {
        let jwk = F.unwrap { () throws(JOSEError) in try key.publicJWK() }
        func member(_ name: String) -> String {
            guard case .string(let value)? = jwk[name] else { preconditionFailure("no \(name) in the test key") }
            return value
        }
        let canonical =
            key.algorithm.keyType == .rsa
            ? #"{"e":"\#(member("e"))","kty":"RSA","n":"\#(member("n"))"}"#
            : #"{"crv":"\#(member("crv"))","kty":"EC","x":"\#(member("x"))","y":"\#(member("y"))"}"#
        return Base64URL.encode(F.unwrap { () throws(JOSEError) in try MessageDigest.sha256(Array(canonical.utf8)) })
    }
}

// MARK: - Valid proofs

extension DPoPProofVerifierTests {
    /// RFC 9449 §4.1's example proof, signed by the RFC's authors' key.
    static let rfc9449Example =
        "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19"
        + ".eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ"
        + ".2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg"

    @Test(
        "RFC 9449 §4.1's example proof (a proof nobody here made) is accepted at its iat for POST https://server.example.com/token, and refused a day later or for another URI"
    )
    func rfc9449Example() throws {
        let accepted = try DPoPProofVerifier().verify(
            Self.rfc9449Example, method: "POST", targetURI: "https://server.example.com/token", accessToken: nil, nonce: nil,
            now: 1_562_262_616)
        #expect(accepted.jti == "-BwC3ESc6acc2lTc" && accepted.issuedAt == 1_562_262_616 && accepted.nonce == nil)
        #expect(accepted.thumbprint.utf8.count == 43)
        Self.expectRefusal(
            .tokenExpired, Self.rfc9449Example, method: "POST", targetURI: "https://server.example.com/token", accessToken: nil,
            now: 1_562_262_616 + 86_400)
        Self.expectRefusal(
            .invalidClaim, Self.rfc9449Example, method: "POST", targetURI: "https://server.example.com/authorize", accessToken: nil,
            now: 1_562_262_616)
    }

    @Test("A valid ES256 proof is accepted and reports its key's RFC 7638 thumbprint, its jti, its iat and no nonce")
    func validES256() throws {
        let proof = try Self.verify(Self.proof())
        #expect(proof.thumbprint == Self.independentThumbprint(TestKeys.p256))
        #expect(proof.thumbprint == (try TestKeys.p256.thumbprint()))
        #expect(proof.jti == "e1j3V_bKic8-LAEB")
        #expect(proof.issuedAt == Self.now)
        #expect(proof.nonce == nil)
    }

    @Test("A valid RS256 proof (and the same RSA key signing PS256) is accepted with the RSA key's thumbprint")
    func validRSA() throws {
        let rs256 = try Self.verify(Self.proof(key: TestKeys.rsa))
        #expect(rs256.thumbprint == Self.independentThumbprint(TestKeys.rsa))
        #expect(rs256.jti == "e1j3V_bKic8-LAEB" && rs256.issuedAt == Self.now && rs256.nonce == nil)
        let ps256 = try Self.verify(Self.proof(key: TestKeys.rsa, algorithm: .ps256))
        #expect(ps256 == rs256, "the same key, the same claims: the same answer")
    }

    @Test("A valid ES384 proof is accepted with the P-384 key's thumbprint")
    func validES384() throws {
        let proof = try Self.verify(Self.proof(key: TestKeys.p384))
        #expect(proof.thumbprint == Self.independentThumbprint(TestKeys.p384))
    }

    @Test("A proof carrying the required nonce is accepted and reports that nonce")
    func validWithNonce() throws {
        let proof = try Self.verify(Self.proof(claims: Self.claims(["nonce": .string("n-1")])), nonce: "n-1")
        #expect(proof.nonce == "n-1")
        #expect(proof.thumbprint == Self.independentThumbprint(TestKeys.p256))
    }

    @Test("Without a required nonce, a proof that carries one anyway is accepted and its nonce reported")
    func nonceNotRequired() throws {
        let proof = try Self.verify(Self.proof(claims: Self.claims(["nonce": .string("n-old")])), nonce: nil)
        #expect(proof.nonce == "n-old")
    }

    @Test("At a token endpoint (no access token), a proof without ath is accepted and one with any ath is too (ignored)")
    func tokenEndpointIgnoresAth() throws {
        #expect(try Self.verify(Self.proof(claims: Self.claims(["ath": nil])), accessToken: nil).jti == "e1j3V_bKic8-LAEB")
        #expect(try Self.verify(Self.proof(claims: Self.claims(["ath": .string("whatever")])), accessToken: nil).jti == "e1j3V_bKic8-LAEB")
    }

    @Test("The thumbprint covers only the key's required members: kid, use and alg in the jwk do not change it")
    func thumbprintIgnoresOptionalMembers() throws {
        let jwk = F.unwrap { () throws(JOSEError) in try TestKeys.p256.requiredPublicJWK() }.replacingMembers([
            "kid": .string("my-key"), "use": .string("sig"), "alg": .string("ES256"),
        ])
        let proof = try Self.verify(Self.proof(header: Self.header(TestKeys.p256, ["jwk": jwk])))
        #expect(proof.thumbprint == Self.independentThumbprint(TestKeys.p256))
    }

    @Test("iat exactly maximumAge seconds old and exactly clockSkew seconds ahead are both accepted (inclusive bounds)")
    func issuedAtBounds() throws {
        let verifier = DPoPProofVerifier(maximumAge: 120, clockSkew: 10)
        let oldest = Self.proof(claims: Self.claims(["iat": .integer(Self.now - 120)]))
        #expect(try Self.verify(oldest, verifier: verifier).issuedAt == Self.now - 120)
        let newest = Self.proof(claims: Self.claims(["iat": .integer(Self.now + 10)]))
        #expect(try Self.verify(newest, verifier: verifier).issuedAt == Self.now + 10)
    }

    @Test("The verifier's defaults: proofs up to 300 s old, 60 s of clock skew, 8192 bytes")
    func defaults() {
        let verifier = DPoPProofVerifier()
        #expect(verifier.maximumAge == 300 && verifier.clockSkew == 60 && verifier.maximumSize == 8192)
    }

    @Test("A jti of exactly 256 bytes (ASCII, or 128 two-byte characters) is accepted")
    func longestJTI() throws {
        for jti in [String(repeating: "j", count: 256), String(repeating: "é", count: 128)] {
            #expect(try Self.verify(Self.proof(claims: Self.claims(["jti": .string(jti)]))).jti == jti)
        }
    }

    @Test("A method other than GET is matched exactly, and the same proof is refused for any other method")
    func otherMethod() throws {
        let proof = Self.proof(claims: Self.claims(["htm": .string("POST")]))
        #expect(try Self.verify(proof, method: "POST").jti == "e1j3V_bKic8-LAEB")
        Self.expectRefusal(.invalidClaim, proof, method: "GET")
        Self.expectRefusal(.invalidClaim, proof, method: "PUT")
    }
}

// MARK: - htu normalization

extension DPoPProofVerifierTests {
    @Test(
        "normalized(_:) lowers the scheme and host, drops a default port, the query and the fragment, and writes an empty path as /",
        arguments: [
            ("https://api.example.test/orders/42", "https://api.example.test/orders/42"),
            ("HTTPS://API.Example.TEST/orders/42", "https://api.example.test/orders/42"),
            ("https://api.example.test:443/orders/42", "https://api.example.test/orders/42"),
            ("http://api.example.test:80/orders", "http://api.example.test/orders"),
            ("HTTP://API.EXAMPLE.TEST:80", "http://api.example.test/"),
            ("https://api.example.test/orders/42?page=2", "https://api.example.test/orders/42"),
            ("https://api.example.test/orders/42#top", "https://api.example.test/orders/42"),
            ("https://api.example.test/orders/42?a=1#b", "https://api.example.test/orders/42"),
            ("https://api.example.test", "https://api.example.test/"),
            ("https://api.example.test/", "https://api.example.test/"),
            ("https://api.example.test?q=1", "https://api.example.test/"),
            ("https://api.example.test#f", "https://api.example.test/"),
            ("https://api.example.test:8443/x", "https://api.example.test:8443/x"),
            ("https://api.example.test:80/x", "https://api.example.test:80/x"),
            ("http://api.example.test:443/x", "http://api.example.test:443/x"),
            ("https://api.example.test/Orders/A", "https://api.example.test/Orders/A"),
        ])
    func normalization(uri: String, expected: String) {
        #expect(DPoPProofVerifier.normalized(uri) == expected)
    }

    @Test(
        "A proof whose htu differs only by case of scheme or host, a default port, a query, a fragment or an empty path matches",
        arguments: [
            ("HTTPS://API.EXAMPLE.TEST/orders/42", "https://api.example.test/orders/42"),
            ("https://api.example.test:443/orders/42", "https://api.example.test/orders/42"),
            ("https://api.example.test/orders/42", "https://api.example.test:443/orders/42"),
            ("https://api.example.test/orders/42?page=2#x", "https://api.example.test/orders/42"),
            ("https://api.example.test/orders/42", "https://api.example.test/orders/42?page=2"),
            ("https://Api.Example.Test", "https://api.example.test/"),
            ("https://api.example.test/", "https://api.example.test"),
            ("http://api.example.test:80/orders/42", "http://api.example.test/orders/42"),
        ])
    func equivalentTargets(htu: String, target: String) throws {
        let proof = Self.proof(claims: Self.claims(["htu": .string(htu)]))
        #expect(try Self.verify(proof, targetURI: target).jti == "e1j3V_bKic8-LAEB", "\(htu) for \(target)")
    }

    @Test(
        "A proof for another host, path, scheme or port is refused with invalid_claim",
        arguments: [
            "https://evil.example.test/orders/42",
            "https://api.example.test.evil/orders/42",
            "https://api.example.test/orders/43",
            "https://api.example.test/orders/42/",
            "https://api.example.test/Orders/42",
            "https://api.example.test/orders",
            "http://api.example.test/orders/42",
            "wss://api.example.test/orders/42",
            "https://api.example.test:8443/orders/42",
            "https://api.example.test:80/orders/42",
            "https://user@api.example.test/orders/42",
            "api.example.test/orders/42",
            "",
        ])
    func otherTargets(htu: String) {
        Self.expectRefusal(.invalidClaim, Self.proof(claims: Self.claims(["htu": .string(htu)])), htu)
    }
}

// MARK: - Header refusals

extension DPoPProofVerifierTests {
    @Test("A proof without typ, or with typ JWT, at+jwt or another value, is refused with invalid_header")
    func wrongType() {
        Self.expectRefusal(.invalidHeader, Self.proof(header: Self.header(TestKeys.p256, ["typ": nil])), "no typ")
        for typ in ["JWT", "jwt", "at+jwt", "dpop", "dpop+jwt ", ""] {
            Self.expectRefusal(.invalidHeader, Self.proof(header: Self.header(TestKeys.p256, ["typ": .string(typ)])), typ)
        }
        Self.expectRefusal(.invalidHeader, Self.proof(header: Self.header(TestKeys.p256, ["typ": .integer(1)])), "numeric typ")
    }

    @Test("alg none, HS256 or another algorithm off the allow-list is refused with unsupported_algorithm")
    func refusedAlgorithms() {
        for alg in ["none", "None", "HS256", "HS512", "ES512", "EdDSA", "RS1"] {
            let header = JSONWriter.string(Self.header(TestKeys.p256, ["alg": .string(alg)]))
            // A forged signature segment: alg is refused before any key is used.
            let proof = F.segment(header) + "." + F.segment(JSONWriter.string(Self.claims())) + ".c2lnbmF0dXJl"
            Self.expectRefusal(.unsupportedAlgorithm, proof, alg)
        }
        // An unsigned token (alg none, empty signature) never gets as far as its alg.
        let unsigned =
            F.segment(JSONWriter.string(Self.header(TestKeys.p256, ["alg": .string("none")]))) + "."
            + F.segment(JSONWriter.string(Self.claims())) + "."
        Self.expectRefusal(.malformedToken, unsigned, "alg none, no signature")
    }

    @Test("A proof without alg, or with a non-string alg, is refused with invalid_header")
    func missingAlgorithm() {
        Self.expectRefusal(.invalidHeader, Self.proof(header: Self.header(TestKeys.p256, ["alg": nil])))
        Self.expectRefusal(.invalidHeader, Self.proof(header: Self.header(TestKeys.p256, ["alg": .integer(256)])))
    }

    @Test("A proof without a jwk, or whose jwk is not an object, is refused with invalid_header")
    func missingKey() {
        Self.expectRefusal(.invalidHeader, Self.proof(header: Self.header(TestKeys.p256, ["jwk": nil])), "no jwk")
        let text = JSONWriter.string(F.unwrap { () throws(JOSEError) in try TestKeys.p256.requiredPublicJWK() })
        for value: JSON in [.string(text), .array([]), .null, .integer(1), .bool(true)] {
            Self.expectRefusal(.invalidHeader, Self.proof(header: Self.header(TestKeys.p256, ["jwk": value])), "\(value)")
        }
    }

    @Test("A jwk carrying private key material (d, p, q, dp, dq, qi, or a symmetric k) is refused with invalid_key")
    func privateKeyMaterial() {
        let ecJWK = F.unwrap { () throws(JOSEError) in try TestKeys.p256.requiredPublicJWK() }
        for member in ["d", "p", "q", "dp", "dq", "qi", "k"] {
            let jwk = ecJWK.replacingMembers([member: .string("AQAB")])
            Self.expectRefusal(.invalidKey, Self.proof(header: Self.header(TestKeys.p256, ["jwk": jwk])), member)
        }
        let rsaJWK = F.unwrap { () throws(JOSEError) in try TestKeys.rsa.requiredPublicJWK() }
        for member in ["d", "p", "qi"] {
            let jwk = rsaJWK.replacingMembers([member: .string("AQAB")])
            Self.expectRefusal(.invalidKey, Self.proof(key: TestKeys.rsa, header: Self.header(TestKeys.rsa, ["jwk": jwk])), member)
        }
        // Even an empty or null private member is refused: its presence is the mistake.
        Self.expectRefusal(.invalidKey, Self.proof(header: Self.header(TestKeys.p256, ["jwk": ecJWK.replacingMembers(["d": .null])])))
        Self.expectRefusal(
            .invalidKey,
            Self.proof(header: Self.header(TestKeys.p256, ["jwk": .object(["kty": .string("oct"), "k": .string("c2VjcmV0")])])))
    }

    @Test("A jwk that is no usable public key (no kty, unknown kty, an encryption key, a point off the curve) is refused with invalid_key")
    func unusableKey() {
        let jwk = F.unwrap { () throws(JOSEError) in try TestKeys.p256.requiredPublicJWK() }
        for (name, changed) in [
            ("no kty", jwk.replacingMembers(["kty": nil])),
            ("kty oct", jwk.replacingMembers(["kty": .string("oct")])),
            ("use enc", jwk.replacingMembers(["use": .string("enc")])),
            ("no x", jwk.replacingMembers(["x": nil])),
            ("x off the curve", jwk.replacingMembers(["x": .string(Base64URL.encode([UInt8](repeating: 1, count: 32)))])),
            ("x too short", jwk.replacingMembers(["x": .string("AQAB")])),
        ] {
            let error = Self.refusal(Self.proof(header: Self.header(TestKeys.p256, ["jwk": changed])))
            #expect(error?.code == .invalidKey, "\(name): \(String(describing: error))")
        }
    }

    @Test("A jwk of another type or curve than alg needs, or whose own alg differs, is refused with algorithm_key_mismatch")
    func keyAlgorithmMismatch() {
        // The EC key's jwk, header alg RS256 (signed by the RSA key so that only the mismatch is wrong).
        let ecJWK = F.unwrap { () throws(JOSEError) in try TestKeys.p256.requiredPublicJWK() }
        Self.expectRefusal(
            .algorithmKeyMismatch, Self.proof(key: TestKeys.rsa, header: Self.header(TestKeys.rsa, ["jwk": ecJWK])), "EC key for RS256")
        // A P-256 key for ES384.
        Self.expectRefusal(
            .algorithmKeyMismatch, Self.proof(key: TestKeys.p384, header: Self.header(TestKeys.p384, ["jwk": ecJWK])), "P-256 for ES384")
        // The RSA key naming RS256 for itself, used with PS256.
        let rsaJWK = F.unwrap { () throws(JOSEError) in try TestKeys.rsa.requiredPublicJWK() }.replacingMembers(["alg": .string("RS256")])
        Self.expectRefusal(
            .algorithmKeyMismatch,
            Self.proof(key: TestKeys.rsa, algorithm: .ps256, header: Self.header(TestKeys.rsa, algorithm: .ps256, ["jwk": rsaJWK])),
            "RS256 key used for PS256")
    }

    @Test("A jwk of a 1024-bit RSA key is refused with invalid_key, however well it signs")
    func weakRSAKey() {
        Self.expectRefusal(.invalidKey, Self.proof(key: TestKeys.weakRSA1024))
    }

    @Test("A header marking an extension critical is refused with unsupported_critical_header")
    func criticalHeader() {
        let header = Self.header(TestKeys.p256, ["crit": .array([.string("exp")]), "exp": .integer(Self.now)])
        Self.expectRefusal(.unsupportedCriticalHeader, Self.proof(header: header))
    }

    @Test("A header or payload with a member twice (typ, jwk, htm, htu) is refused with duplicate_member")
    func duplicateMembers() {
        let jwk = JSONWriter.string(F.unwrap { () throws(JOSEError) in try TestKeys.p256.requiredPublicJWK() })
        let claims = JSONWriter.string(Self.claims())
        let headers = [
            #"{"typ":"JWT","typ":"dpop+jwt","alg":"ES256","jwk":\#(jwk)}"#,
            #"{"typ":"dpop+jwt","alg":"ES256","jwk":\#(jwk),"jwk":\#(jwk)}"#,
        ]
        for header in headers {
            Self.expectRefusal(.duplicateMember, Self.proof(headerText: header, claimsText: claims), header)
        }
        let header = JSONWriter.string(Self.header(TestKeys.p256))
        for extra in [#","htm":"POST"}"#, #","htu":"https://evil.example.test/"}"#] {
            let text = String(claims.dropLast()) + extra
            Self.expectRefusal(.duplicateMember, Self.proof(headerText: header, claimsText: text), extra)
        }
    }
}

// MARK: - Signature refusals

extension DPoPProofVerifierTests {
    @Test("A proof signed by another key than the one in its jwk is refused with invalid_signature")
    func signedByAnotherKey() {
        // The attacker signs, naming the victim's key.
        let proof = Self.proof(key: TestKeys.attackerP256, header: Self.header(TestKeys.p256))
        Self.expectRefusal(.invalidSignature, proof)
        let rsa = Self.proof(key: TestKeys.attackerRSA, header: Self.header(TestKeys.rsa))
        Self.expectRefusal(.invalidSignature, rsa)
    }

    @Test("A proof whose payload or header was changed after signing is refused with invalid_signature")
    func tampered() {
        let proof = Self.proof()
        let parts = F.segments(of: proof)
        for claims in [
            Self.claims(["htm": .string("POST")]), Self.claims(["iat": .integer(Self.now + 1)]), Self.claims(["jti": .string("other")]),
            Self.claims(["htu": .string("https://evil.example.test/")]),
        ] {
            let tampered = parts[0] + "." + F.segment(JSONWriter.string(claims)) + "." + parts[2]
            Self.expectRefusal(.invalidSignature, tampered, JSONWriter.string(claims))
        }
        let header = Self.header(TestKeys.p256, ["kid": .string("x")])
        Self.expectRefusal(.invalidSignature, F.segment(JSONWriter.string(header)) + "." + parts[1] + "." + parts[2], "header")
    }

    @Test("A proof with its signature cut short, lengthened, zeroed or in DER form is refused with invalid_signature")
    func damagedSignature() {
        let proof = Self.proof()
        let signature = F.signatureBytes(of: proof)
        for (name, changed) in [
            ("short", Array(signature.dropLast())), ("long", signature + [0]), ("zero", [UInt8](repeating: 0, count: signature.count)),
            ("DER", F.derECDSASignature(fromRawRS: signature)), ("one byte", [1]),
        ] {
            Self.expectRefusal(.invalidSignature, F.replacingSignature(of: proof, with: changed), name)
        }
    }

    @Test("Changing any one character of a valid proof makes it refused (with an error, never a crash)")
    func everyCharacterMatters() {
        let proof = Array(Self.proof().utf8)
        var accepted: [Int] = []
        for index in proof.indices {
            var changed = proof
            changed[index] = proof[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let text = String(decoding: changed, as: UTF8.self)
            do throws(JOSEError) {
                _ = try Self.verify(text)
                accepted.append(index)
            } catch {}
        }
        #expect(accepted.isEmpty, "changed characters accepted at \(accepted)")
    }

    @Test("Every prefix of a valid proof is refused (with an error, never a crash)")
    func everyPrefixRefused() {
        let proof = Self.proof()
        var accepted: [Int] = []
        for length in 0..<proof.utf8.count {
            do throws(JOSEError) {
                _ = try Self.verify(String(proof.prefix(length)))
                accepted.append(length)
            } catch {}
        }
        #expect(accepted.isEmpty, "prefixes accepted: \(accepted)")
    }
}

// MARK: - Claim refusals

extension DPoPProofVerifierTests {
    @Test("htm must be this request's method exactly: get for GET, a missing or non-string htm are refused")
    func method() {
        Self.expectRefusal(.invalidClaim, Self.proof(claims: Self.claims(["htm": .string("get")])), "get vs GET")
        Self.expectRefusal(.invalidClaim, Self.proof(), method: "get", "GET vs get")
        Self.expectRefusal(.invalidClaim, Self.proof(claims: Self.claims(["htm": .string("POST")])), "POST vs GET")
        Self.expectRefusal(.invalidClaim, Self.proof(claims: Self.claims(["htm": .string("GET ")])), "trailing space")
        Self.expectRefusal(.invalidClaim, Self.proof(claims: Self.claims(["htm": .string("")])), "empty")
        Self.expectRefusal(.missingClaim, Self.proof(claims: Self.claims(["htm": nil])), "no htm")
        let numeric = Self.refusal(Self.proof(claims: Self.claims(["htm": .integer(1)])))
        #expect(numeric?.code == .invalidClaim, "\(String(describing: numeric))")
    }

    @Test("A proof without htu, or with a non-string one, is refused")
    func missingTarget() {
        Self.expectRefusal(.missingClaim, Self.proof(claims: Self.claims(["htu": nil])))
        let numeric = Self.refusal(Self.proof(claims: Self.claims(["htu": .array([.string(Self.targetURI)])])))
        #expect(numeric?.code == .invalidClaim, "\(String(describing: numeric))")
    }

    @Test("A proof without iat, or whose iat is a string, a fraction or out of range, is refused as an invalid claim")
    func issuedAtNotAnInteger() {
        Self.expectRefusal(.missingClaim, Self.proof(claims: Self.claims(["iat": nil])), "no iat")
        for value: JSON in [
            .string(String(Self.now)), .number("1700000000.5"), .number("1.7e9"), .number("99999999999999999999"),
            .number("-9223372036854775809"), .null, .bool(true), .array([.integer(Self.now)]),
        ] {
            let error = Self.refusal(Self.proof(claims: Self.claims(["iat": value])))
            #expect(error?.code == .invalidClaim, "iat \(value): \(String(describing: error))")
        }
    }

    @Test("A proof older than maximumAge is refused with token_expired; one beyond clockSkew in the future with token_issued_in_future")
    func issuedAtWindow() {
        let verifier = DPoPProofVerifier(maximumAge: 120, clockSkew: 10)
        Self.expectRefusal(.tokenExpired, Self.proof(claims: Self.claims(["iat": .integer(Self.now - 121)])), verifier: verifier)
        Self.expectRefusal(.tokenExpired, Self.proof(claims: Self.claims(["iat": .integer(0)])), verifier: verifier)
        Self.expectRefusal(.tokenExpired, Self.proof(claims: Self.claims(["iat": .integer(-1)])), verifier: verifier)
        Self.expectRefusal(.tokenIssuedInFuture, Self.proof(claims: Self.claims(["iat": .integer(Self.now + 11)])), verifier: verifier)
        Self.expectRefusal(
            .tokenIssuedInFuture, Self.proof(claims: Self.claims(["iat": .integer(Int64.max)])), verifier: verifier, "iat Int64.max")
        // Int64.min does not read as an integer at all: refused either way.
        #expect(Self.refusal(Self.proof(claims: Self.claims(["iat": .integer(Int64.min)])), verifier: verifier) != nil)
        // The defaults: 300 s back, 60 s ahead.
        Self.expectRefusal(.tokenExpired, Self.proof(claims: Self.claims(["iat": .integer(Self.now - 301)])))
        Self.expectRefusal(.tokenIssuedInFuture, Self.proof(claims: Self.claims(["iat": .integer(Self.now + 61)])))
        // The same proof, judged later.
        Self.expectRefusal(.tokenExpired, Self.proof(), now: Self.now + 301)
    }

    @Test("A proof without jti, with an empty one, a non-string one or one over 256 bytes is refused")
    func jti() {
        Self.expectRefusal(.missingClaim, Self.proof(claims: Self.claims(["jti": nil])), "no jti")
        for (name, value): (String, JSON) in [
            ("empty", .string("")), ("257 bytes", .string(String(repeating: "j", count: 257))),
            ("258 bytes of two-byte characters", .string(String(repeating: "é", count: 129))),
            ("6000 bytes", .string(String(repeating: "j", count: 6000))), ("number", .integer(42)), ("null", .null),
        ] {
            let error = Self.refusal(Self.proof(claims: Self.claims(["jti": value])), verifier: DPoPProofVerifier(maximumSize: 100_000))
            #expect(
                error?.code == .invalidClaim,
                "jti \(name): \(String(describing: error))")
        }
    }

    @Test("A required nonce missing from the proof, or a different one, is refused with nonce_mismatch")
    func nonce() {
        Self.expectRefusal(.nonceMismatch, Self.proof(), nonce: "n-1", "no nonce")
        Self.expectRefusal(.nonceMismatch, Self.proof(claims: Self.claims(["nonce": .string("n-2")])), nonce: "n-1", "another nonce")
        Self.expectRefusal(.nonceMismatch, Self.proof(claims: Self.claims(["nonce": .string("N-1")])), nonce: "n-1", "case differs")
        Self.expectRefusal(.nonceMismatch, Self.proof(claims: Self.claims(["nonce": .string("")])), nonce: "n-1", "empty")
        Self.expectRefusal(.nonceMismatch, Self.proof(claims: Self.claims(["nonce": .integer(1)])), nonce: "1", "numeric")
    }

    @Test("With an access token presented, a proof without ath or with the hash of another token is refused")
    func accessTokenHash() {
        Self.expectRefusal(.missingClaim, Self.proof(claims: Self.claims(["ath": nil])), "no ath")
        let other = Base64URL.encode(F.unwrap { () throws(JOSEError) in try MessageDigest.sha256(Array("another.token.x".utf8)) })
        Self.expectRefusal(.invalidClaim, Self.proof(claims: Self.claims(["ath": .string(other)])), "another token's hash")
        // The proof for this token, presented with another token.
        Self.expectRefusal(.invalidClaim, Self.proof(), accessToken: "another.token.x", "presented with another token")
        // The raw hash in standard base64 (with padding), or the token itself, is not ath.
        let digest = F.unwrap { () throws(JOSEError) in try MessageDigest.sha256(Array(Self.accessToken.utf8)) }
        Self.expectRefusal(.invalidClaim, Self.proof(claims: Self.claims(["ath": .string(Data(digest).base64EncodedString())])), "base64")
        Self.expectRefusal(.invalidClaim, Self.proof(claims: Self.claims(["ath": .string(Self.accessToken)])), "the token itself")
        let numeric = Self.refusal(Self.proof(claims: Self.claims(["ath": .integer(1)])))
        #expect(numeric?.code == .invalidClaim, "\(String(describing: numeric))")
    }

    @Test("A payload that is not a JSON object is refused with invalid_payload")
    func payloadNotAnObject() {
        let header = JSONWriter.string(Self.header(TestKeys.p256))
        for payload in ["[]", "\"claims\"", "42", "null", "{", "{\"jti\":}"] {
            Self.expectRefusal(.invalidPayload, Self.proof(headerText: header, claimsText: payload), payload)
        }
    }
}

// MARK: - Size and garbage

extension DPoPProofVerifierTests {
    @Test("A proof larger than maximumSize is refused with limit_exceeded before anything else is read")
    func oversized() {
        let padded = Self.proof(claims: Self.claims(["pad": .string(String(repeating: "x", count: 9000))]))
        #expect(padded.utf8.count > 8192)
        Self.expectRefusal(.limitExceeded, padded)
        #expect(throws: Never.self) { try Self.verify(padded, verifier: DPoPProofVerifier(maximumSize: 20_000)) }
        let proof = Self.proof()
        Self.expectRefusal(.limitExceeded, proof, verifier: DPoPProofVerifier(maximumSize: proof.utf8.count - 1))
        #expect(throws: Never.self) { try Self.verify(proof, verifier: DPoPProofVerifier(maximumSize: proof.utf8.count)) }
        // Garbage of any length over the limit: the size is the first check.
        Self.expectRefusal(.limitExceeded, String(repeating: "A", count: 8193))
        Self.expectRefusal(.limitExceeded, String(repeating: ".", count: 100_000))
    }

    @Test(
        "Strings that are no compact JWS are refused with an error, never a crash",
        arguments: [
            "", " ", ".", "..", "...", "a", "a.b", "a.b.c", "a.b.c.d", "a.b.c.d.e", "a..c", ".b.c", "a.b.", "!!!.@@@.###", "eyJ.eyJ.eyJ",
            "====.====.====", "é.é.é", "\u{0}.\u{0}.\u{0}", "{\"alg\":\"ES256\"}", "{}.{}.{}", "Bearer a.b.c", "DPoP eyJ.eyJ.sig",
            "\n", "eyJhbGciOiJFUzI1NiJ9", "eyJhbGciOiJFUzI1NiJ9.e30.", "eyJhbGciOiJFUzI1NiJ9.e30.AA", "eyJ0eXAiOiJkcG9wK2p3dCJ9.e30.AA",
            "bnVsbA.bnVsbA.bnVsbA", "W10.W10.W10",
        ])
    func garbage(text: String) {
        #expect(Self.refusal(text) != nil, "\(text.debugDescription) must be refused")
        #expect(Self.refusal(text, accessToken: nil, nonce: "n") != nil)
    }

    @Test("Garbage is refused with the code that names it: malformed_token, invalid_base64url, invalid_header")
    func garbageCodes() {
        Self.expectRefusal(.malformedToken, "")
        Self.expectRefusal(.malformedToken, "a.b")
        Self.expectRefusal(.malformedToken, "a.b.c.d")
        Self.expectRefusal(.malformedToken, "a.b.c.d.e")
        Self.expectRefusal(.malformedToken, "abc..def")
        Self.expectRefusal(.malformedToken, "{\"alg\":\"ES256\"}.e30.AA")
        Self.expectRefusal(.invalidBase64URL, "!!!.@@@.###")
        Self.expectRefusal(.invalidBase64URL, "é.é.é")
        Self.expectRefusal(.invalidHeader, F.segment("[]") + ".e30.AA")
        Self.expectRefusal(.invalidHeader, F.segment("not json") + ".e30.AA")
    }

    @Test("Random bytes of every length up to 600 are refused with an error, never a crash")
    func randomBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ {}\":,".utf8)
        var accepted = 0
        for length in 0...600 {
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            if Self.refusal(String(decoding: bytes, as: UTF8.self)) == nil { accepted += 1 }
        }
        #expect(accepted == 0)
    }
}
