import Foundation
import MSALJSON
import MSALSupport
import Testing

@testable import MSALJOSE

/// The per-key signing template (EVP_MD_CTX_copy_ex instead of a fresh EVP_DigestSignInit per
/// signature) must make signatures the public key verifies, with the PSS settings of PS256 and a
/// fresh ECDSA nonce on every copy, from any number of threads at once.
@Suite("Signing through a per-key template context")
struct SignTemplateTests {
    static let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJodG0iOiJHRVQifQ".utf8)

    /// The key's public half as a JWK without `alg`, so it verifies any algorithm of its type.
    static func anyAlgorithmKey(_ signer: JWSSigningKey) throws -> JSONWebKey {
        guard case .object(let members) = try signer.publicJWK() else { throw JOSEError(.invalidKey, "not an object") }
        return try JSONWebKey(json: JSONWriter.write(.object(members.filter { $0.name != "alg" })))
    }

    static func signers() throws -> [JWSSigningKey] {
        [
            try JWSSigningKey.generateEC(keyID: "p256", algorithm: .es256),
            try JWSSigningKey.generateEC(keyID: "p384", algorithm: .es384),
            try JWSSigningKey.generateRSA(keyID: "rs", algorithm: .rs256),
            try JWSSigningKey.generateRSA(keyID: "ps", algorithm: .ps256),
        ]
    }

    @Test("Each signing key gets a template for its algorithm, and its signatures verify")
    func templatesVerify() throws {
        for signer in try Self.signers() {
            #expect(signer.signTemplate?.algorithm == signer.algorithm)
            #expect(signer.signTemplate?.operation == .sign)
            let publicKey = try signer.publicKey()
            for _ in 0..<3 {
                let signature = try signer.signature(over: Self.message)
                #expect(try publicKey.verify(signature: signature, over: Self.message, algorithm: signer.algorithm))
                var other = Self.message
                other[0] ^= 1
                #expect(try !publicKey.verify(signature: signature, over: other, algorithm: signer.algorithm))
            }
        }
    }

    @Test("A PS256 signature made on a copy carries the PSS settings: RS256 verification refuses it")
    func pssSettingsCopied() throws {
        let signer = try JWSSigningKey.generateRSA(keyID: "ps", algorithm: .ps256)
        let key = try Self.anyAlgorithmKey(signer)
        let signature = try signer.signature(over: Self.message)
        #expect(try key.verify(signature: signature, over: Self.message, algorithm: .ps256))
        #expect(try !key.verify(signature: signature, over: Self.message, algorithm: .rs256))
    }

    @Test("Another algorithm than the template's takes the per-call init and verifies under that algorithm")
    func overrideTakesPlainPath() throws {
        let signer = try JWSSigningKey.generateRSA(keyID: "rs", algorithm: .rs256)
        let key = try Self.anyAlgorithmKey(signer)
        let pss = try signer.signature(over: Self.message, algorithm: .ps256)
        #expect(try key.verify(signature: pss, over: Self.message, algorithm: .ps256))
        #expect(try !key.verify(signature: pss, over: Self.message, algorithm: .rs256))
        let pkcs1 = try signer.signature(over: Self.message)
        #expect(try key.verify(signature: pkcs1, over: Self.message, algorithm: .rs256))
    }

    @Test("One EC key signs from several threads at once: every signature verifies, no two are equal")
    func concurrentSigning() throws {
        let signer = try JWSSigningKey.generateEC(keyID: "p256", algorithm: .es256)
        let publicKey = try signer.publicKey()
        let threads = 8
        let rounds = 25
        let signatures = Mutex<[[UInt8]]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var made: [[UInt8]] = []
            for _ in 0..<rounds {
                if let signature = try? signer.signature(over: Self.message) { made.append(signature) }
            }
            signatures.withLock { $0 += made }
        }
        let all = signatures.withLock { $0 }
        #expect(all.count == threads * rounds)
        #expect(Set(all).count == all.count)
        for signature in all {
            #expect(try publicKey.verify(signature: signature, over: Self.message, algorithm: .es256))
        }
    }
}
