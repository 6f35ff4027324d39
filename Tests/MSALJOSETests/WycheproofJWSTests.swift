import Foundation
import Testing

@testable import MSALJOSE

/// Every vector of Wycheproof's `json_web_signature_test.json`, verified as a whole JWS.
///
/// For a group with a `public` JWK the trusted set is `{"keys":[public]}` (a JWK the set refuses
/// counts as a rejection of the token, since no key can then verify it). Tokens are checked with
/// `JWTVerifier.verifySignature(_:)`, the signature-only path shared with `verify(_:)`, because the
/// payloads are arbitrary bytes (`Zm9v` = "foo"), not JWT claims.
///
/// Each vector falls in exactly one category; every category has its own test below, and
/// `everyVectorIsCategorized` checks that the categories add up to `numberOfTests`.
@Suite("Wycheproof JWS vectors (json_web_signature_test.json) through JWTVerifier")
struct WycheproofJWSTests {
    static let fileName = "json_web_signature_test.json"

    enum Category: String, CaseIterable {
        /// The `jws` uses the JWS JSON serialization (flag `JsonSerialization`).
        case jsonSerialization
        /// The group has only a `private` symmetric (`kty: oct`) key.
        case hmac
        /// The group's key is on P-521 (RFC 7520 ES512 example).
        case unsupportedCurve
        /// `valid` with a token `alg` other than the key's own `alg` (RFC 7520 Figure 20).
        case keyAlgorithmBinding
        /// `valid` with an empty payload segment.
        case emptyPayload
        /// Everything else: `valid` must verify, `invalid` must not.
        case standard
    }

    static func category(of vector: Wycheproof.Vector) -> Category {
        if vector.flags.contains("JsonSerialization") || !(vector.test["jws"] is String) { return .jsonSerialization }
        guard let jws = vector.test["jws"] as? String else { return .jsonSerialization }
        guard let key = vector.group["public"] as? [String: Any] else { return .hmac }
        if key["crv"] as? String == "P-521" { return .unsupportedCurve }
        guard vector.result == "valid" else { return .standard }
        if let keyAlgorithm = key["alg"] as? String, let tokenAlgorithm = Wycheproof.headerAlgorithm(of: jws),
            keyAlgorithm != tokenAlgorithm
        {
            return .keyAlgorithmBinding
        }
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        if segments.count == 3, segments[1].isEmpty { return .emptyPayload }
        return .standard
    }

    static func vectors(in category: Category) throws -> [Wycheproof.Vector] {
        try Wycheproof.load(fileName).vectors.filter { Self.category(of: $0) == category }
    }

    /// Builds the group's key set and verifies `jws`; a refused key set is a rejection.
    static func verify(_ jws: String, group: [String: Any]) throws -> Result<[UInt8], JOSEError> {
        let jwk = group["public"] ?? group["private"] ?? [:]
        let keySetJSON = try Wycheproof.jsonBytes(["keys": [jwk]])
        let keySet: JSONWebKeySet
        do {
            keySet = try JSONWebKeySet(json: keySetJSON)
        } catch {
            return .failure(error)
        }
        do {
            return .success(try JWTVerifier(keySet: keySet).verifySignature(jws).payload)
        } catch {
            return .failure(error)
        }
    }

    @Test("Every vector falls in exactly one category and the categories add up to numberOfTests")
    func everyVectorIsCategorized() throws {
        let file = try Wycheproof.load(Self.fileName)
        var counts: [Category: Int] = [:]
        for vector in file.vectors { counts[Self.category(of: vector), default: 0] += 1 }
        #expect(file.vectors.count == file.numberOfTests)
        #expect(counts.values.reduce(0, +) == file.numberOfTests, "categories: \(counts)")
        // Pinned so that a misclassification (which would hide vectors from the standard test) fails.
        #expect(counts[.jsonSerialization] == 1)
        #expect(counts[.hmac] == 39)
        #expect(counts[.unsupportedCurve] == 2)
        #expect(counts[.keyAlgorithmBinding] == 2)
        #expect(counts[.emptyPayload] == 6)
        #expect(counts[.standard] == 351)
    }

    @Test("Standard vectors: every valid one verifies, every invalid one is rejected")
    func standardVectors() throws {
        let vectors = try Self.vectors(in: .standard)
        var accepted = 0
        var rejected = 0
        for vector in vectors {
            let jws = try #require(vector.test["jws"] as? String)
            let outcome = try Self.verify(jws, group: vector.group)
            switch (vector.result, outcome) {
            case ("valid", .success(let payload)):
                accepted += 1
                // The returned payload is the base64url-decoded payload segment.
                let segment = String(jws.split(separator: ".", omittingEmptySubsequences: false)[1])
                #expect(Data(payload) == Wycheproof.base64URLDecodeLeniently(segment), "payload differs: \(vector.label)")
            case ("valid", .failure(let error)):
                Issue.record("valid vector rejected with \(error): \(vector.label)")
            case ("invalid", .success):
                Issue.record("invalid vector accepted: \(vector.label)")
            case ("invalid", .failure(let error)):
                rejected += 1
                if let expected = Self.expectedRejection(vector, jws: jws) {
                    #expect(error.code == expected, "\(vector.label): \(error)")
                }
            default:
                Issue.record("unexpected result for \(vector.label)")
            }
        }
        #expect(accepted + rejected == vectors.count, "accepted \(accepted), rejected \(rejected) of \(vectors.count)")
        #expect(accepted == 26)
        #expect(rejected == 325)
    }

    /// The precise error for invalid vectors where it is meaningful; `nil` where any rejection will do.
    static func expectedRejection(_ vector: Wycheproof.Vector, jws: String) -> JOSEError.Code? {
        let key = vector.group["public"] as? [String: Any] ?? [:]
        // Keys for encryption (`use: enc`, `key_ops` without `verify`) are refused by the key set,
        // and a token naming such a key fails with the key's reason.
        if key["use"] as? String == "enc" || (key["key_ops"] as? [String]).map({ !$0.contains("verify") }) == true {
            return .invalidKey
        }
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let tokenAlgorithm = Wycheproof.headerAlgorithm(of: jws) else { return nil }
        // Structure is checked before the header: `alg: none` tokens with an empty signature
        // segment (tcIds 341-344) fail as malformed before their `alg` is read.
        if segments.contains(where: \.isEmpty) { return .malformedToken }
        // alg none / NONE and HS256 against an asymmetric key: off the allow-list.
        if JWSAlgorithm(rawValue: tokenAlgorithm) == nil { return .unsupportedAlgorithm }
        // A different (allowed) algorithm than the key declares, e.g. RS256 with the PS512 key.
        if let keyAlgorithm = key["alg"] as? String, keyAlgorithm != tokenAlgorithm { return .algorithmKeyMismatch }
        return nil
    }

    // MARK: - Documented policy deviations

    /// Policy (a): a key's own `alg` is binding. RFC 7520 §4.2 signs with PS384 using a key that the
    /// test file labels `alg: PS256` (tcIds 346 and 350, the latter with `key_ops: ["verify"]`).
    /// Wycheproof calls these valid; MSALJOSE rejects them with `.algorithmKeyMismatch`, because
    /// honouring a declared `alg` is what stops algorithm substitution within one key.
    @Test("Policy (a): RFC 7520 PS384 token under a key declaring PS256 is rejected as algorithmKeyMismatch")
    func keyAlgorithmIsBinding() throws {
        let vectors = try Self.vectors(in: .keyAlgorithmBinding)
        #expect(vectors.map(\.tcId) == [346, 350])
        for vector in vectors {
            let jws = try #require(vector.test["jws"] as? String)
            #expect(Wycheproof.headerAlgorithm(of: jws) == "PS384")
            #expect((vector.group["public"] as? [String: Any])?["alg"] as? String == "PS256")
            let outcome = try Self.verify(jws, group: vector.group)
            #expect(throws: JOSEError.self, "\(vector.label)") { try outcome.get() }
            if case .failure(let error) = outcome {
                #expect(error.code == .algorithmKeyMismatch, "\(vector.label): \(error)")
            }
        }
    }

    /// Policy (b): ES512 / P-521 is not supported. RFC 7520 §4.3 (tcIds 347 and 351) is rejected:
    /// the JWK (which also declares the non-standard `alg: ES521`) is refused by the key set, and the
    /// token's `ES512` is not on the allow-list, which is checked first.
    @Test("Policy (b): RFC 7520 ES512 / P-521 vectors are rejected")
    func p521IsUnsupported() throws {
        let vectors = try Self.vectors(in: .unsupportedCurve)
        #expect(vectors.map(\.tcId) == [347, 351])
        for vector in vectors {
            let jws = try #require(vector.test["jws"] as? String)
            let outcome = try Self.verify(jws, group: vector.group)
            #expect(throws: JOSEError.self, "\(vector.label)") { try outcome.get() }
            if case .failure(let error) = outcome {
                #expect([.unsupportedAlgorithm, .invalidKey].contains(error.code), "\(vector.label): \(error)")
            }
            let keySet = try JSONWebKeySet(json: Wycheproof.jsonBytes(["keys": [vector.group["public"] ?? [:]]]))
            #expect(keySet.keys.isEmpty)
            #expect(keySet.rejectedKeys.map(\.reason.code) == [.invalidKey])
        }
    }

    /// Policy (c): a public client never accepts HMAC. Every vector of the groups that only have a
    /// symmetric `private` key is rejected, the `valid` ones included. The set `{"keys":[private]}`
    /// parses but sets the `oct` key aside, and `HS256` fails the allow-list (`.unsupportedAlgorithm`)
    /// before any key is looked up. The exception is tcId 372 (valid for Wycheproof, "invalid character
    /// inserted in header"): strict base64url refuses the header before its `alg` can be read.
    @Test("Policy (c): every vector of the HMAC groups is rejected, valid ones with unsupportedAlgorithm")
    func hmacGroupsAreRejected() throws {
        let vectors = try Self.vectors(in: .hmac)
        let validCodeExceptions: [Int: JOSEError.Code] = [372: .invalidBase64URL]
        var validCount = 0
        for vector in vectors {
            let jws = try #require(vector.test["jws"] as? String)
            let keySet = try JSONWebKeySet(json: Wycheproof.jsonBytes(["keys": [vector.group["private"] ?? [:]]]))
            #expect(keySet.keys.isEmpty && keySet.rejectedKeys.count == 1, "\(vector.label)")
            let outcome = try Self.verify(jws, group: vector.group)
            guard case .failure(let error) = outcome else {
                Issue.record("HMAC vector accepted: \(vector.label)")
                continue
            }
            // No HMAC token ever reaches key selection or signature checking.
            #expect(
                [.unsupportedAlgorithm, .malformedToken, .invalidBase64URL, .invalidHeader].contains(error.code),
                "\(vector.label): \(error)")
            if vector.result == "valid" {
                validCount += 1
                #expect(error.code == validCodeExceptions[vector.tcId] ?? .unsupportedAlgorithm, "\(vector.label): \(error)")
            }
        }
        #expect(vectors.count == 39)
        #expect(validCount == 10)
    }

    /// The JWS JSON serialization is never accepted where a compact JWS is expected (tcId 17, whose
    /// `jws` is the JSON text itself, an HS256 JWS that is even cut short). A `jws` given as an
    /// object would be serialized back to text first.
    @Test("JSON-serialized JWS is rejected as malformedToken")
    func jsonSerializationIsRejected() throws {
        let vectors = try Self.vectors(in: .jsonSerialization)
        #expect(vectors.map(\.tcId) == [17])
        for vector in vectors {
            let text: String
            if let object = vector.test["jws"] as? [String: Any] {
                text = String(decoding: try Wycheproof.jsonBytes(object), as: UTF8.self)
            } else {
                text = try #require(vector.test["jws"] as? String)
            }
            #expect(text.hasPrefix("{"))
            let outcome = try Self.verify(text, group: vector.group)
            #expect(throws: JOSEError.self, "\(vector.label)") { try outcome.get() }
            if case .failure(let error) = outcome {
                #expect(error.code == .malformedToken, "\(vector.label): \(error)")
            }
        }
    }

    /// Policy (d), found by these vectors: an empty payload segment is refused as `.malformedToken`.
    /// `CompactJWS` rejects it on purpose (an empty segment is how detached content, RFC 7515
    /// Appendix F, is written, and JWTs never have an empty payload), so the `emptyPayload` vectors
    /// (tcIds 259, 264, 268, 272, 320, 325: RS256/384/512, PS256/384/512 over the empty string), which
    /// Wycheproof calls valid, are rejected even on the signature-only path.
    @Test("Policy (d): valid JWS over an empty payload is rejected as malformedToken")
    func emptyPayloadIsRejected() throws {
        let vectors = try Self.vectors(in: .emptyPayload)
        #expect(vectors.map(\.tcId) == [259, 264, 268, 272, 320, 325])
        for vector in vectors {
            let jws = try #require(vector.test["jws"] as? String)
            let outcome = try Self.verify(jws, group: vector.group)
            #expect(throws: JOSEError.self, "\(vector.label)") { try outcome.get() }
            if case .failure(let error) = outcome {
                #expect(error.code == .malformedToken, "\(vector.label): \(error)")
            }
        }
    }
}
