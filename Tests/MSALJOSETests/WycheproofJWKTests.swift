import Foundation
import Testing

@testable import MSALJOSE

/// Wycheproof's `json_web_key_test.json`: JWK sets that must (not) verify a JWS.
///
/// Each group gives a JWK set (`public`, or only `private` for symmetric keys) and JWS tokens. The
/// set is parsed with `JSONWebKeySet(json:)` and the token checked with
/// `JWTVerifier.verifySignature(_:)` (the payloads are "foo" or empty, not JWT claims).
///
/// Applicable to public signature keys (RSA, EC P-256/P-384), asserted exactly:
/// * tcId 5: a good RS256 key verifies its token.
/// * tcIds 6, 21: `use: enc` keys are refused by the set (`.invalidKey`); a token naming the key
///   fails with the key's reason.
/// * tcId 8: 1024-bit RSA and tcId 9: public exponent 1 are refused by the set (`.invalidKey`). Their
///   tokens have an empty payload segment, which fails the structure check (`.malformedToken`) before
///   the key is looked up.
/// * tcIds 19, 20: a key declaring `alg` ES521 or ES224 on P-256; tcId 22: a point not on the curve;
///   tcId 23: `crv` P-384 with 32-byte coordinates; tcId 24: `kty` RSA with EC members. All refused by
///   the set (`.invalidKey`), the token failing with that reason.
/// * tcId 7: an RSA key with the ROCA weakness (CVE-2017-15361). The set refuses it with the ROCA
///   fingerprint check (`.invalidKey`), and the token fails with that reason.
///
/// Not applicable (symmetric keys, which a public client never holds or accepts): tcIds 1-4 (mixed
/// and duplicate-`kid` sets of HS256 keys), 10-18 (HS256/384/512 keys that are too short, long or
/// empty), 25-26 (AES keys labelled for signing). Their `oct` entries are set aside by
/// `JSONWebKeySet` (`rejectedKeys`, `.invalidKey`) and their HS* tokens fail the allow-list
/// (`.unsupportedAlgorithm`) whatever the key, so the valid ones (2, 13, 14, 15) are rejected too.
/// tcId 1's mixed set keeps its public EC key usable (the set is not rejected as a whole, unlike
/// what Wycheproof's `MixedKeySet` note expects); the HS256 token is rejected regardless.
@Suite("Wycheproof JWK vectors (json_web_key_test.json) through JSONWebKeySet and JWTVerifier")
struct WycheproofJWKTests {
    static let fileName = "json_web_key_test.json"

    enum Outcome: Equatable, CustomStringConvertible {
        case accepted
        case rejected(JOSEError.Code)

        var description: String {
            switch self {
            case .accepted: return "accepted"
            case .rejected(let code): return "rejected(\(code.rawValue))"
            }
        }
    }

    struct Expectation {
        /// Whether the case is about public signature keys (RSA, EC P-256/P-384).
        let applicable: Bool
        /// Keys `JSONWebKeySet` keeps.
        let usableKeys: Int
        /// Keys it sets aside, each with `.invalidKey`.
        let refusedKeys: Int
        /// What verifying the token gives.
        let outcome: Outcome
    }

    static let expectations: [Int: Expectation] = [
        1: Expectation(applicable: false, usableKeys: 1, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        2: Expectation(applicable: false, usableKeys: 0, refusedKeys: 2, outcome: .rejected(.unsupportedAlgorithm)),
        3: Expectation(applicable: false, usableKeys: 0, refusedKeys: 2, outcome: .rejected(.unsupportedAlgorithm)),
        4: Expectation(applicable: false, usableKeys: 0, refusedKeys: 2, outcome: .rejected(.unsupportedAlgorithm)),
        5: Expectation(applicable: true, usableKeys: 1, refusedKeys: 0, outcome: .accepted),
        6: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.invalidKey)),
        // ROCA modulus: refused by the fingerprint check.
        7: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.invalidKey)),
        8: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.malformedToken)),
        9: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.malformedToken)),
        10: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        11: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        12: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        13: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        14: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        15: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        16: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        17: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        18: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        19: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.invalidKey)),
        20: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.invalidKey)),
        21: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.invalidKey)),
        22: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.invalidKey)),
        23: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.invalidKey)),
        24: Expectation(applicable: true, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.invalidKey)),
        25: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
        26: Expectation(applicable: false, usableKeys: 0, refusedKeys: 1, outcome: .rejected(.unsupportedAlgorithm)),
    ]

    /// Vectors whose outcome differs from Wycheproof's `result`, with the reason (each is explained above).
    static let deviations: [Int: String] = [
        2: "valid HS256 token: HMAC is never accepted by a public client",
        13: "valid HS256 token: HMAC is never accepted by a public client",
        14: "valid HS384 token: HMAC is never accepted by a public client",
        15: "valid HS512 token: HMAC is never accepted by a public client",
    ]

    static func check(_ vector: Wycheproof.Vector) throws -> (keySet: JSONWebKeySet?, outcome: Outcome) {
        let keySetObject = vector.group["public"] ?? vector.group["private"] ?? [:]
        let keySetJSON = try Wycheproof.jsonBytes(keySetObject)
        let keySet: JSONWebKeySet
        do {
            keySet = try JSONWebKeySet(json: keySetJSON)
        } catch {
            return (nil, .rejected(error.code))
        }
        let jws = vector.test["jws"] as? String ?? ""
        do {
            _ = try JWTVerifier(keySet: keySet).verifySignature(jws)
            return (keySet, .accepted)
        } catch {
            return (keySet, .rejected(error.code))
        }
    }

    func run(applicable: Bool) throws -> Int {
        var count = 0
        for vector in try Wycheproof.load(Self.fileName).vectors {
            guard let expected = Self.expectations[vector.tcId] else {
                Issue.record("no expectation for \(vector.label)")
                continue
            }
            guard expected.applicable == applicable else { continue }
            count += 1
            let (keySet, outcome) = try Self.check(vector)
            let keySetValue = try #require(keySet, "the key set itself was refused: \(vector.label)")
            #expect(keySetValue.keys.count == expected.usableKeys, "usable keys: \(vector.label)")
            #expect(keySetValue.rejectedKeys.count == expected.refusedKeys, "refused keys: \(vector.label)")
            for refused in keySetValue.rejectedKeys {
                #expect(refused.reason.code == .invalidKey, "\(vector.label): \(refused.reason)")
            }
            #expect(outcome == expected.outcome, "\(vector.label)")
            // Agreement with Wycheproof, except for the listed deviations.
            let agrees = (vector.result == "valid") == (outcome == .accepted)
            #expect(agrees == (Self.deviations[vector.tcId] == nil), "\(vector.label): \(outcome)")
        }
        return count
    }

    @Test("Cases about public RSA / EC P-256 / P-384 keys")
    func publicKeyCases() throws {
        #expect(try run(applicable: true) == 11)
    }

    @Test("Symmetric-key cases: oct keys are set aside and every HS* token is rejected")
    func symmetricKeyCases() throws {
        #expect(try run(applicable: false) == 15)
    }

    @Test("Every vector has exactly one expectation and the count equals numberOfTests")
    func everyVectorIsCovered() throws {
        let file = try Wycheproof.load(Self.fileName)
        let ids = file.vectors.map(\.tcId)
        #expect(ids.count == file.numberOfTests)
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids) == Set(Self.expectations.keys))
        #expect(Set(Self.deviations.keys).isSubset(of: Set(ids)))
    }

    /// tcId 7's key, looked at directly: it passes every size and exponent rule (2049-bit modulus,
    /// e = 65537); only the ROCA fingerprint refuses it.
    @Test("The ROCA key (tcId 7) is refused by the fingerprint check, naming ROCA")
    func rocaKeyIsRefused() throws {
        let vector = try #require(try Wycheproof.load(Self.fileName).vectors.first { $0.tcId == 7 })
        let keys = try #require((vector.group["public"] as? [String: Any])?["keys"] as? [[String: Any]])
        let json = try Wycheproof.jsonBytes(keys[0])
        do throws(JOSEError) {
            _ = try JSONWebKey(json: json)
            Issue.record("the ROCA key was accepted")
        } catch {
            #expect(error.code == .invalidKey)
            #expect(error.message.contains("ROCA"))
        }
    }

    /// No false positives: every RSA key of the Wycheproof signature files, the samples and freshly
    /// generated OpenSSL keys pass the fingerprint check.
    @Test("The ROCA check does not refuse ordinary keys")
    func rocaNoFalsePositives() throws {
        for _ in 0..<3 {
            let signer = try JWSSigningKey.generateRSA(keyID: "fresh")
            _ = try signer.publicKey()
        }
        let samples = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks.json"))
        #expect(samples.keys.contains { $0.keyType == .rsa })
    }
}
