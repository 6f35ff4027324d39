import Foundation
import MSALJOSE
import MSALSupport
import Testing

/// Keys and certificates made by the `openssl` command (installed by `scripts/setup.sh`), in a
/// scratch folder; removed when the value goes away.
final class OpenSSLMaterial {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cert-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: folder.appendingPathComponent(name))) }

    /// Runs `openssl arguments…` in the folder; throws with its standard error unless it exits 0.
    ///
    /// Waited for on a Dispatch thread: key generation takes up to seconds, and a test blocked on
    /// one of the two cooperative threads of a 2-core machine stalls every other test of the run.
    func openssl(_ arguments: String...) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            throw PythonMSAL.Failure("no /usr/bin/openssl: run `bash scripts/setup.sh` (it installs the openssl package)")
        }
        let folder = folder
        let outcome = await StressWorker.offCooperativePool { () -> Result<ChildProcess.Outcome, any Error> in
            Result { try ChildProcess.run("/usr/bin/openssl", arguments, currentDirectory: folder.path, timeout: 120) }
        }
        let result = try outcome.get()
        let (status, message) = (result.status, String(decoding: result.standardError, as: UTF8.self))
        guard status == 0 else {
            throw PythonMSAL.Failure("openssl \(arguments.joined(separator: " ")): \(message)")
        }
    }

    /// An RSA key of `bits` in PKCS#8 PEM and a self-signed certificate for it.
    func rsaKeyAndCertificate(_ name: String, bits: Int = 2048) async throws {
        try await openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", "\(name).key")
        try await openssl(
            "req", "-new", "-x509", "-key", "\(name).key", "-subj", "/CN=swift-msal \(name)", "-days", "2", "-out", "\(name).crt")
    }
}

/// Runs `verify_assertion.py` (PyJWT and cryptography, from MSAL for Python's dependencies) on an assertion.
private func verifiedByPyJWT(
    _ assertion: String, certificate: String, audience: String, clientID: String, in material: OpenSSLMaterial
)
    async throws -> [String: Any]
{
    try Data(assertion.utf8).write(to: URL(fileURLWithPath: material.path("assertion.jwt")))
    let output = try await PythonMSAL.runChecked(
        "verify_assertion.py", [material.path("assertion.jwt"), certificate, audience, clientID])
    return try output.jsonObject()
}

@Suite("Client assertions from openssl-made keys, checked by PyJWT as a provider would")
struct ClientAssertionPythonInteropTests {
    let clientID = "6e8d4b2a-0c1f-4e57-9a3d-2b7c5f1e9a40"
    let audience = "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token"

    @Test(
        "PS256 with x5t#S256 and x5c: PyJWT verifies it with the certificate; thumbprint, chain and claims as RFC 7523 and MSAL send them")
    func ps256AssertionVerifiesElsewhere() async throws {
        let material = try OpenSSLMaterial()
        try await material.rsaKeyAndCertificate("app")
        let credential = try ClientCertificate(privateKeyPEM: material.bytes("app.key"), certificatePEM: material.bytes("app.crt"))
        #expect(credential.keyBits == 2048)
        let assertion = try credential.signAssertion(
            clientID: clientID, audience: audience, issuedAt: Int64(Date().timeIntervalSince1970), lifetime: 600,
            jwtID: "7f7c1d3e-5b36-4c1e-b5a9-0e7b1b4f3a11", thumbprint: .sha256, sendX5C: true)
        let checked = try await verifiedByPyJWT(
            assertion, certificate: material.path("app.crt"), audience: audience, clientID: clientID, in: material)
        let header = try #require(checked["header"] as? [String: Any])
        let claims = try #require(checked["claims"] as? [String: Any])
        #expect(header["alg"] as? String == "PS256")
        #expect(header["typ"] as? String == "JWT")
        #expect(header["x5t#S256"] as? String == checked["x5t#S256"] as? String)
        #expect(header["x5t"] == nil)
        #expect(header["x5c"] as? [String] == [try #require(checked["der_base64"] as? String)])
        #expect(claims["sub"] as? String == clientID)
        #expect(claims["jti"] as? String == "7f7c1d3e-5b36-4c1e-b5a9-0e7b1b4f3a11")
        let issued = try #require(claims["iat"] as? Int)
        #expect(claims["nbf"] as? Int == issued)
        #expect(claims["exp"] as? Int == issued + 600)
    }

    @Test("RS256 with the SHA-1 x5t (ADFS and other providers), no x5c unless asked: PyJWT verifies it")
    func rs256AssertionVerifiesElsewhere() async throws {
        let material = try OpenSSLMaterial()
        try await material.rsaKeyAndCertificate("app", bits: 3072)
        let credential = try ClientCertificate(privateKeyPEM: material.bytes("app.key"), certificatePEM: material.bytes("app.crt"))
        let assertion = try credential.signAssertion(
            clientID: clientID, audience: audience, issuedAt: Int64(Date().timeIntervalSince1970), lifetime: 600, jwtID: "j",
            thumbprint: .sha1, sendX5C: false)
        let checked = try await verifiedByPyJWT(
            assertion, certificate: material.path("app.crt"), audience: audience, clientID: clientID, in: material)
        let header = try #require(checked["header"] as? [String: Any])
        #expect(header["alg"] as? String == "RS256")
        #expect(header["x5t"] as? String == checked["x5t"] as? String)
        #expect(header["x5t#S256"] == nil && header["x5c"] == nil)
    }
}

@Suite("Client certificate credentials: PEM text from openssl, and what is refused")
struct ClientCertificateTests {
    @Test("A chain given CA first: the key's own certificate leads x5c, the others follow in their order")
    func chainPutsTheKeysCertificateFirst() async throws {
        let material = try OpenSSLMaterial()
        try await material.rsaKeyAndCertificate("ca")
        try await material.openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "leaf.key")
        try await material.openssl("req", "-new", "-key", "leaf.key", "-subj", "/CN=leaf", "-out", "leaf.csr")
        try await material.openssl(
            "x509", "-req", "-in", "leaf.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-out", "leaf.crt")
        try await material.openssl("x509", "-in", "leaf.crt", "-outform", "DER", "-out", "leaf.der")
        try await material.openssl("x509", "-in", "ca.crt", "-outform", "DER", "-out", "ca.der")
        let credential = try ClientCertificate(
            privateKeyPEM: material.bytes("leaf.key"), certificatePEM: material.bytes("ca.crt") + material.bytes("leaf.crt"))
        #expect(credential.chain == [try material.bytes("leaf.der"), try material.bytes("ca.der")])
    }

    @Test("Encrypted PKCS#8 and traditional PKCS#1 keys are read; a wrong or missing password is invalidPEM, and says which")
    func keyFormsAndPasswords() async throws {
        let material = try OpenSSLMaterial()
        try await material.openssl(
            "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-aes-256-cbc", "-pass", "pass:s3cret pass", "-out",
            "encrypted.key")
        try await material.openssl(
            "req", "-new", "-x509", "-key", "encrypted.key", "-passin", "pass:s3cret pass", "-subj", "/CN=e", "-out", "encrypted.crt")
        let key = try material.bytes("encrypted.key")
        let certificate = try material.bytes("encrypted.crt")
        #expect(try ClientCertificate(privateKeyPEM: key, certificatePEM: certificate, password: Array("s3cret pass".utf8)).keyBits == 2048)
        let wrong = #expect(throws: JOSEError.self) {
            try ClientCertificate(privateKeyPEM: key, certificatePEM: certificate, password: Array("guess".utf8))
        }
        #expect(wrong?.code == .invalidPEM)
        #expect(wrong?.message.contains("cannot be decrypted") == true)
        let missing = #expect(throws: JOSEError.self) { try ClientCertificate(privateKeyPEM: key, certificatePEM: certificate) }
        #expect(missing?.code == .invalidPEM)
        #expect(missing?.message.contains("no password") == true)

        try await material.openssl("genrsa", "-traditional", "-out", "traditional.key", "2048")
        try await material.openssl("req", "-new", "-x509", "-key", "traditional.key", "-subj", "/CN=t", "-out", "traditional.crt")
        let traditional = try material.bytes("traditional.key")
        #expect(String(decoding: traditional, as: UTF8.self).hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        #expect(try ClientCertificate(privateKeyPEM: traditional, certificatePEM: material.bytes("traditional.crt")).keyBits == 2048)
    }

    @Test("An RSA key under 2048 bits and an EC key are unsupportedCredentialKey; a certificate of another key is certificateKeyMismatch")
    func keysThatCannotSign() async throws {
        let material = try OpenSSLMaterial()
        try await material.rsaKeyAndCertificate("small", bits: 1024)
        let small = #expect(throws: JOSEError.self) {
            try ClientCertificate(privateKeyPEM: material.bytes("small.key"), certificatePEM: material.bytes("small.crt"))
        }
        #expect(small?.code == .unsupportedCredentialKey)
        #expect(small?.message.contains("1024 bits") == true)

        try await material.openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.key")
        try await material.openssl("req", "-new", "-x509", "-key", "ec.key", "-subj", "/CN=ec", "-out", "ec.crt")
        let ec = #expect(throws: JOSEError.self) {
            try ClientCertificate(privateKeyPEM: material.bytes("ec.key"), certificatePEM: material.bytes("ec.crt"))
        }
        #expect(ec?.code == .unsupportedCredentialKey)

        try await material.rsaKeyAndCertificate("one")
        try await material.rsaKeyAndCertificate("two")
        let mismatch = #expect(throws: JOSEError.self) {
            try ClientCertificate(privateKeyPEM: material.bytes("one.key"), certificatePEM: material.bytes("two.crt"))
        }
        #expect(mismatch?.code == .certificateKeyMismatch)
        let noneOfTwo = #expect(throws: JOSEError.self) {
            try ClientCertificate(
                privateKeyPEM: material.bytes("one.key"), certificatePEM: material.bytes("two.crt") + material.bytes("small.crt"))
        }
        #expect(noneOfTwo?.message.contains("none of the 2 certificates") == true)
    }

    @Test("Text that is not what it should be: empty, garbage, a key where the certificate goes, a damaged block, oversized")
    func badText() async throws {
        let material = try OpenSSLMaterial()
        try await material.rsaKeyAndCertificate("app")
        let key = try material.bytes("app.key")
        let certificate = try material.bytes("app.crt")
        var damaged = certificate
        damaged[damaged.count / 2] = UInt8(ascii: "*")
        let truncated = Array(certificate.prefix(certificate.count / 2))
        let cases: [(String, [UInt8], [UInt8], JOSEError.Code)] = [
            ("empty key", [], certificate, .invalidPEM),
            ("garbage key", Array("not a key at all".utf8), certificate, .invalidPEM),
            ("certificate as key", certificate, certificate, .invalidPEM),
            ("empty certificate", key, [], .invalidPEM),
            ("key as certificate", key, key, .invalidPEM),
            ("damaged certificate", key, damaged, .invalidPEM),
            ("truncated certificate", key, truncated, .invalidPEM),
            ("oversized key", key + [UInt8](repeating: 0x0A, count: ClientCertificate.maximumPEMSize), certificate, .limitExceeded),
            ("oversized certificate", key, certificate + [UInt8](repeating: 0x0A, count: ClientCertificate.maximumPEMSize), .limitExceeded),
            ("17 certificates", key, Array(repeating: certificate, count: 17).flatMap { $0 }, .limitExceeded),
        ]
        for (name, keyText, certificateText, code) in cases {
            let error = #expect(throws: JOSEError.self, "\(name)") {
                try ClientCertificate(privateKeyPEM: keyText, certificatePEM: certificateText)
            }
            #expect(error?.code == code, "\(name): \(String(describing: error))")
        }
        // The text around blocks is ignored, as OpenSSL's reader does (a bundle with comments reads).
        let commented = Array("# issued by the test\n".utf8) + certificate + Array("trailing words\n".utf8)
        #expect(try ClientCertificate(privateKeyPEM: key, certificatePEM: commented).chain.count == 1)
    }

    @Test("Generated material (a provider's test certificate) reads in openssl; an openssl-made certificate verifies our assertions")
    func generatedMaterialAndVerifier() async throws {
        let material = try OpenSSLMaterial()
        let generated = try ClientCertificate.generateSelfSigned(commonName: "generated by swift-msal")
        try Data(generated.privateKeyPEM).write(to: URL(fileURLWithPath: material.path("generated.key")))
        try Data(generated.certificatePEM).write(to: URL(fileURLWithPath: material.path("generated.crt")))
        // openssl checks the key's consistency and the certificate's self-signature.
        try await material.openssl("pkey", "-in", "generated.key", "-check", "-noout")
        try await material.openssl("verify", "-CAfile", "generated.crt", "generated.crt")
        try await material.openssl("x509", "-in", "generated.crt", "-noout", "-checkend", "86400")

        try await material.rsaKeyAndCertificate("peer")
        let credential = try ClientCertificate(privateKeyPEM: material.bytes("peer.key"), certificatePEM: material.bytes("peer.crt"))
        let verifier = try ClientAssertionVerifier(certificatePEM: material.bytes("peer.crt"))
        #expect(verifier.sha256Thumbprint == credential.sha256Thumbprint)
        for thumbprint in [ClientCertificate.Thumbprint.sha256, .sha1] {
            let assertion = try credential.signAssertion(
                clientID: "c", audience: "https://a/t", issuedAt: 1_800_000_000, lifetime: 600, jwtID: "j", thumbprint: thumbprint,
                sendX5C: false)
            #expect(verifier.isNamed(by: try ClientAssertionVerifier.thumbprint(of: assertion)))
            #expect(try verifier.verify(assertion).stringClaim("iss") == "c")
        }
        // MSAL for Python pads the thumbprint with '='; both forms name the certificate.
        let padded = Base64URL.encode(credential.sha256Thumbprint) + "="
        let header = Base64URL.encode(Array(#"{"alg":"PS256","x5t#S256":"\#(padded)"}"#.utf8))
        #expect(verifier.isNamed(by: try ClientAssertionVerifier.thumbprint(of: "\(header).e30.AA")))
        // Another certificate's verifier does not accept the signature.
        let other = try ClientAssertionVerifier(certificatePEM: generated.certificatePEM)
        let assertion = try credential.signAssertion(
            clientID: "c", audience: "https://a/t", issuedAt: 1_800_000_000, lifetime: 600, jwtID: "j", thumbprint: .sha256, sendX5C: false)
        #expect(!other.isNamed(by: try ClientAssertionVerifier.thumbprint(of: assertion)))
        #expect((#expect(throws: JOSEError.self) { try other.verify(assertion) })?.code == .invalidSignature)
        // A certificate whose key is not RSA cannot register for assertions.
        try await material.openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.key")
        try await material.openssl("req", "-new", "-x509", "-key", "ec.key", "-subj", "/CN=ec", "-days", "2", "-out", "ec.crt")
        #expect(
            (#expect(throws: JOSEError.self) { try ClientAssertionVerifier(certificatePEM: material.bytes("ec.crt")) })?.code
                == .unsupportedCredentialKey)
    }
}
