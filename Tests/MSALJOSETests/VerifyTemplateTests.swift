import Foundation
import MSALSupport
import Testing

@testable import MSALJOSE

/// The per-key verification template (EVP_MD_CTX_copy_ex instead of a fresh
/// EVP_DigestVerifyInit per token) must give exactly the verdicts of the plain path.
@Suite("Verification through a per-key template context")
struct VerifyTemplateTests {
    static let options = IDTokenValidationOptions(
        issuer: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
        clientID: "6cb04018-a3f5-46a7-b995-940c78f5aef3",
        nonce: "123523")
    static let now = Date(timeIntervalSince1970: 1_700_001_000)

    /// The token with one bit of its decoded signature flipped (still canonical base64url).
    static func tampered(_ token: String) throws -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        var signature = try Base64URL.decode(String(parts[2]))
        signature[10] ^= 0x01
        return "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
    }

    @Test("Each key gets a template for the algorithm it is expected to verify")
    func templateAlgorithms() throws {
        let keySet = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks.json"))
        let byID = Dictionary(uniqueKeysWithValues: keySet.keys.map { ($0.keyID ?? "", $0) })
        #expect(byID["sample-rsa-2048"]?.verifyTemplate?.algorithm == .rs256)
        #expect(byID["sample-ec-p256"]?.verifyTemplate?.algorithm == .es256)
        #expect(byID["sample-ec-p384"]?.verifyTemplate?.algorithm == .es384)
        let noAlg = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks-rsa-noalg.json"))
        #expect(noAlg.keys.first?.verifyTemplate?.algorithm == .rs256)
    }

    @Test("A template verifies again and again, and still rejects a bad signature", arguments: ["rs256", "es256", "es384"])
    func repeatedAndTampered(name: String) throws {
        let keySet = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks.json"))
        let validator = IDTokenValidator(keySet: keySet, options: Self.options)
        let token = try FixtureLoader.text("Samples/id-token-\(name).jwt")
        let bad = try Self.tampered(token)
        for _ in 0..<3 {
            #expect(try validator.validate(token, now: Self.now).jwt.isSignatureVerified)
            #expect { try validator.validate(bad, now: Self.now) } throws: { error in
                (error as? JOSEError)?.code == .invalidSignature
            }
        }
    }

    @Test("PS256 with an alg-less RSA key (template is RS256) takes the plain path and verifies")
    func nonTemplateAlgorithm() throws {
        let keySet = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks-rsa-noalg.json"))
        let validator = IDTokenValidator(keySet: keySet, options: Self.options)
        let token = try FixtureLoader.text("Samples/id-token-ps256.jwt")
        #expect(try validator.validate(token, now: Self.now).jwt.isSignatureVerified)
        #expect { try validator.validate(try Self.tampered(token), now: Self.now) } throws: { error in
            (error as? JOSEError)?.code == .invalidSignature
        }
    }

    @Test("One key set verifies from several threads at once")
    func concurrentVerification() throws {
        let keySet = try JSONWebKeySet(json: FixtureLoader.bytes("Samples/jwks.json"))
        let validator = IDTokenValidator(keySet: keySet, options: Self.options)
        let tokens = try ["rs256", "es256"].map { try FixtureLoader.text("Samples/id-token-\($0).jwt") }
        let badTokens = try tokens.map(Self.tampered)
        let threads = 8
        let rounds = 40
        let results = Mutex<(good: Int, rejected: Int)>((0, 0))
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var good = 0
            var rejected = 0
            for round in 0..<rounds {
                let index = (thread + round) % tokens.count
                if (try? validator.validate(tokens[index], now: Self.now)) != nil { good += 1 }
                if (try? validator.validate(badTokens[index], now: Self.now)) == nil { rejected += 1 }
            }
            results.withLock { $0 = ($0.good + good, $0.rejected + rejected) }
        }
        let totals = results.withLock { $0 }
        #expect(totals.good == threads * rounds)
        #expect(totals.rejected == threads * rounds)
    }
}
