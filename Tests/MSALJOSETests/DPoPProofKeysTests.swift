import Foundation
import MSALJSON
import Testing

@testable import MSALJOSE

/// ``DPoPProofKeys``: a server reads each proof header's key once. A remembered key answers only
/// the very same header bytes, every proof's signature and claims are still checked, a header that
/// failed is never remembered, and the store stays bounded.
@Suite("DPoP proof verification: the store of proof keys")
struct DPoPProofKeysTests {
    typealias V = DPoPProofVerifierTests

    static func verify(_ proof: String, keys: DPoPProofKeys, claims: JSON? = nil) throws(JOSEError) -> DPoPProofVerifier.Proof {
        try DPoPProofVerifier().verify(
            proof, method: "GET", targetURI: V.targetURI, accessToken: V.accessToken, nonce: nil, now: V.now, keys: keys)
    }

    static func proof(jti: String, key: JWSSigningKey = TestKeys.p256, header: JSON? = nil) -> String {
        V.proof(key: key, header: header, claims: V.claims(["jti": .string(jti)]))
    }

    @Test("The same header twice: one key remembered, the same thumbprint as without the store, each proof's own jti")
    func remembersOnce() throws {
        let keys = DPoPProofKeys()
        let first = try Self.verify(Self.proof(jti: "a"), keys: keys)
        let second = try Self.verify(Self.proof(jti: "b"), keys: keys)
        #expect(keys.count == 1)
        #expect(first.thumbprint == second.thumbprint && second.jti == "b")
        #expect(first.thumbprint == V.independentThumbprint(TestKeys.p256))
        let other = try Self.verify(Self.proof(jti: "c", key: TestKeys.rsa), keys: keys)
        #expect(keys.count == 2 && other.thumbprint == V.independentThumbprint(TestKeys.rsa))
    }

    @Test("A remembered header does not vouch for a proof: a bad signature, another key's signature and a wrong htu are refused")
    func stillChecksEachProof() throws {
        let keys = DPoPProofKeys()
        let good = Self.proof(jti: "a")
        _ = try Self.verify(good, keys: keys)
        // The same header, signed by another P-256 key: the remembered key does not verify it.
        let forged = V.proof(key: TestKeys.attackerP256, header: V.header(TestKeys.p256), claims: V.claims(["jti": .string("f")]))
        #expect(throws: JOSEError.self) { try Self.verify(forged, keys: keys) }
        var flipped = Array(good.utf8)
        flipped[flipped.count - 2] = flipped[flipped.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: JOSEError.self) { try Self.verify(String(decoding: flipped, as: UTF8.self), keys: keys) }
        let elsewhere = V.proof(claims: V.claims(["jti": .string("g"), "htu": .string("https://api.example.test/other")]))
        let error = #expect(throws: JOSEError.self) { try Self.verify(elsewhere, keys: keys) }
        #expect(error?.code == .invalidClaim)
        #expect(keys.count == 1)
    }

    @Test(
        "A header that fails is never remembered: a jwk with private members, a missing jwk, a wrong typ, and a valid header whose proof does not verify (unsigned junk never pushes out real keys)"
    )
    func failuresAreNotRemembered() {
        let keys = DPoPProofKeys()
        let forged = V.proof(key: TestKeys.attackerP256, header: V.header(TestKeys.p256), claims: V.claims(["jti": .string("f")]))
        #expect(throws: JOSEError.self) { try Self.verify(forged, keys: keys) }
        #expect(keys.count == 0, "a key is remembered only once a proof verified with it")
        let privateJWK = F.unwrap { () throws(JOSEError) in try TestKeys.p256.publicJWK() }.replacingMembers(["d": .string("AAAA")])
        let headers: [JSON] = [
            V.header(TestKeys.p256, ["jwk": privateJWK]), V.header(TestKeys.p256, ["jwk": nil]),
            V.header(TestKeys.p256, ["typ": .string("JWT")]),
        ]
        for header in headers {
            #expect(throws: JOSEError.self) { try Self.verify(Self.proof(jti: "x", header: header), keys: keys) }
            #expect(throws: JOSEError.self) { try Self.verify(Self.proof(jti: "y", header: header), keys: keys) }
        }
        #expect(keys.count == 0)
    }

    @Test("Bounded: past its capacity the oldest key is forgotten, and a forgotten header is read again")
    func bounded() throws {
        let keys = DPoPProofKeys(capacity: 2)
        let signers = [TestKeys.p256, TestKeys.rsa, TestKeys.p384]
        for (index, key) in signers.enumerated() {
            _ = try Self.verify(Self.proof(jti: "j\(index)", key: key), keys: keys)
        }
        #expect(keys.count == 2)
        #expect(keys.entry(forHeader: Self.segment(Self.proof(jti: "z", key: TestKeys.p256))) == nil)
        #expect(keys.entry(forHeader: Self.segment(Self.proof(jti: "z", key: TestKeys.p384))) != nil)
        #expect(
            try Self.verify(Self.proof(jti: "again", key: TestKeys.p256), keys: keys).thumbprint == V.independentThumbprint(TestKeys.p256))
        #expect(keys.count == 2)
        // Many more keys than the capacity: the store never grows past it.
        let small = DPoPProofKeys(capacity: 3)
        for index in 0..<20 {
            let header = V.header(TestKeys.p256, ["kid": .string("k\(index)")])
            _ = try Self.verify(Self.proof(jti: "m\(index)", header: header), keys: small)
            #expect(small.count <= 3)
        }
    }

    @Test(
        "Many callers at once on one small store: every proof gets its own key's thumbprint while headers are remembered and forgotten under them, and the store stays within its capacity"
    )
    func manyCallers() async throws {
        let keys = DPoPProofKeys(capacity: 3)
        // Six headers over three keys (two kid variants each): twice the capacity, so entries are
        // forgotten while other callers read them.
        let signers = [TestKeys.p256, TestKeys.rsa, TestKeys.p384]
        let variants: [(key: JWSSigningKey, header: JSON, thumbprint: String)] = signers.flatMap { key in
            (0..<2).map { (key: key, header: V.header(key, ["kid": .string("k\($0)")]), thumbprint: V.independentThumbprint(key)) }
        }
        let proofs = (0..<60).map { index in
            let variant = variants[index % variants.count]
            return (
                proof: V.proof(key: variant.key, header: variant.header, claims: V.claims(["jti": .string("c\(index)")])),
                thumbprint: variant.thumbprint
            )
        }
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for caller in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<5 {
                        for (index, expected) in proofs.enumerated() where (index + caller + round).isMultiple(of: 2) {
                            let verified = try Self.verify(expected.proof, keys: keys)
                            if verified.thumbprint != expected.thumbprint || verified.jti != "c\(index)" { wrong += 1 }
                            #expect(keys.count <= 3)
                        }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(keys.count <= 3 && keys.count > 0)
    }

    static func segment(_ proof: String) -> String {
        String(proof[..<proof.firstIndex(of: ".")!])
    }

    typealias F = TestTokenFactory
}
