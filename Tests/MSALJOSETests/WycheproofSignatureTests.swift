import Foundation
import Testing

@testable import MSALJOSE

/// Runs every vector of the Wycheproof RSA PKCS#1 v1.5, RSA-PSS and ECDSA (P1363) files through
/// `JSONWebKey.verify(signature:over:algorithm:)`, with the key built from the group's JWK.
///
/// Policy asserted:
/// * `valid` → accepted; `invalid` → rejected (`false` or a thrown error).
/// * `acceptable` → REJECTED (the project's documented policy: be strict). The only
///   `acceptable` vectors here are tcId 8 of each RSA PKCS#1 v1.5 file (flag `MissingNull`:
///   the DigestInfo's AlgorithmIdentifier omits the NULL parameters). OpenSSL 3's
///   `EVP_DigestVerify` rejects them, so no exception is needed; if a future OpenSSL accepted
///   them, this test fails and a policy decision is needed.
@Suite("Wycheproof signature vectors (RS256/384/512, PS256, ES256/384) through JSONWebKey.verify")
struct WycheproofSignatureTests {
    struct VectorFile: Sendable, CustomTestStringConvertible {
        let name: String
        let algorithm: JWSAlgorithm
        var testDescription: String { "\(name) as \(algorithm.rawValue)" }
    }

    static let files: [VectorFile] = [
        VectorFile(name: "rsa_signature_2048_sha256_test.json", algorithm: .rs256),
        VectorFile(name: "rsa_signature_2048_sha384_test.json", algorithm: .rs384),
        VectorFile(name: "rsa_signature_2048_sha512_test.json", algorithm: .rs512),
        VectorFile(name: "rsa_signature_3072_sha256_test.json", algorithm: .rs256),
        VectorFile(name: "rsa_pss_2048_sha256_mgf1_32_test.json", algorithm: .ps256),
        VectorFile(name: "ecdsa_secp256r1_sha256_p1363_test.json", algorithm: .es256),
        VectorFile(name: "ecdsa_secp384r1_sha384_p1363_test.json", algorithm: .es384),
    ]

    /// Groups whose key the JWK policy refuses (RSA under 2048 bits, exponent 1, …), by file;
    /// the vectors of such a group count as rejected. None of these files has one: every RSA
    /// modulus is 2048 or 3072 bits with e = 65537 or 3, and every EC key is a valid P-256 or
    /// P-384 point. If one appears, its `valid` vectors are rejected by policy and must be listed here.
    static let expectedRefusedKeyVectors: [String: Set<Int>] = [:]

    @Test("Every vector: valid accepted, invalid and acceptable rejected; all vectors run", arguments: files)
    func vectors(file: VectorFile) throws {
        let vectorFile = try Wycheproof.load(file.name)
        var run = 0
        var validAccepted = 0
        var invalidRejected = 0
        var acceptableRejected = 0
        var acceptableAccepted = 0
        var refusedKeyValidVectors: Set<Int> = []

        for group in vectorFile.groups {
            let tests = group["tests"] as? [[String: Any]] ?? []
            let key: JSONWebKey
            do {
                key = try JSONWebKey(json: Wycheproof.jsonBytes(Self.publicJWK(of: group)))
            } catch {
                // A refused key rejects every vector of its group.
                for test in tests {
                    let vector = Wycheproof.Vector(group: group, test: test)
                    run += 1
                    if vector.result == "valid" { refusedKeyValidVectors.insert(vector.tcId) }
                    if vector.result == "invalid" { invalidRejected += 1 }
                    if vector.result == "acceptable" { acceptableRejected += 1 }
                }
                continue
            }
            for test in tests {
                let vector = Wycheproof.Vector(group: group, test: test)
                run += 1
                let message = try Wycheproof.hex(test["msg"] as? String ?? "")
                let signature = try Wycheproof.hex(test["sig"] as? String ?? "")
                let accepted: Bool
                do {
                    accepted = try key.verify(signature: signature, over: message, algorithm: file.algorithm)
                } catch {
                    accepted = false
                }
                switch vector.result {
                case "valid":
                    #expect(accepted, "valid vector rejected: \(vector.label)")
                    if accepted { validAccepted += 1 }
                case "invalid":
                    #expect(!accepted, "invalid vector accepted: \(vector.label)")
                    if !accepted { invalidRejected += 1 }
                case "acceptable":
                    // Policy: reject.
                    #expect(!accepted, "acceptable vector accepted (policy is to reject): \(vector.label)")
                    if accepted { acceptableAccepted += 1 } else { acceptableRejected += 1 }
                default:
                    Issue.record("unknown result for \(vector.label)")
                }
            }
        }

        let summary =
            "\(file.name): ran \(run) of \(vectorFile.numberOfTests) vectors; valid accepted \(validAccepted), "
            + "invalid rejected \(invalidRejected), acceptable rejected \(acceptableRejected), "
            + "acceptable accepted \(acceptableAccepted), valid vectors of refused keys \(refusedKeyValidVectors.sorted())"
        #expect(run == vectorFile.numberOfTests, "\(summary)")
        #expect(refusedKeyValidVectors == Self.expectedRefusedKeyVectors[file.name] ?? [], "\(summary)")
        #expect(validAccepted + invalidRejected + acceptableRejected + acceptableAccepted == run, "\(summary)")
    }

    /// The group's public key as a JWK object.
    ///
    /// RSA groups carry it as `keyJwk`, ECDSA groups as `publicKeyJwk`. Some ECDSA groups (the
    /// arithmetic edge cases at the end of the P1363 files) have no JWK member at all; for those the
    /// JWK is assembled from `publicKey.wx`/`wy` (hex, possibly with an ASN.1 sign byte), so that
    /// their vectors run too instead of being skipped.
    static func publicJWK(of group: [String: Any]) throws -> [String: Any] {
        if let jwk = group["keyJwk"] as? [String: Any] ?? group["publicKeyJwk"] as? [String: Any] {
            return jwk
        }
        guard let key = group["publicKey"] as? [String: Any],
            let curveName = key["curve"] as? String,
            let wx = key["wx"] as? String, let wy = key["wy"] as? String
        else {
            throw Wycheproof.FormatError(description: "group has neither a JWK nor EC coordinates")
        }
        let (crv, size): (String, Int)
        switch curveName {
        case "secp256r1": (crv, size) = ("P-256", 32)
        case "secp384r1": (crv, size) = ("P-384", 48)
        default: throw Wycheproof.FormatError(description: "unexpected curve \(curveName)")
        }
        func coordinate(_ hex: String) throws -> String {
            let bytes = Array(try Wycheproof.hex(hex).drop { $0 == 0 })
            guard bytes.count <= size else { throw Wycheproof.FormatError(description: "coordinate too long") }
            return Base64URL.encode([UInt8](repeating: 0, count: size - bytes.count) + bytes)
        }
        return ["kty": "EC", "crv": crv, "x": try coordinate(wx), "y": try coordinate(wy)]
    }

    @Test("ECDSA groups without a JWK member are covered through their coordinates")
    func groupsWithoutJWK() throws {
        // These groups exist only in the ECDSA files; the test above builds their JWK from wx/wy.
        for (name, expected) in [("ecdsa_secp256r1_sha256_p1363_test.json", 9), ("ecdsa_secp384r1_sha384_p1363_test.json", 9)] {
            let file = try Wycheproof.load(name)
            let withoutJWK = file.groups.filter { $0["publicKeyJwk"] == nil && $0["keyJwk"] == nil }
            #expect(withoutJWK.count == expected, "\(name): \(withoutJWK.count) groups without a JWK")
            for group in withoutJWK {
                #expect(throws: Never.self) { try JSONWebKey(json: Wycheproof.jsonBytes(Self.publicJWK(of: group))) }
            }
        }
    }
}
