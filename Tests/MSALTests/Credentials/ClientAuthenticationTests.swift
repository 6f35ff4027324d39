import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// The JSON object of a compact JWT's second segment.
private func payload(_ token: String) throws -> [String: Any] {
    let segment = String(try #require(token.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first))
    var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    let data = try #require(Data(base64Encoded: base64))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

private func field(_ name: String, _ fields: [(String, String)]) -> String? {
    fields.first { $0.0 == name }?.1
}

@Suite("Client authentication: secret, certificate assertions reused within their lifetime, app assertions checked")
struct ClientAuthenticationTests {
    let clientID = "0f3c5a9e-2b71-4d8e-a6c4-9e1b7d2f5a30"
    let endpoint = "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token"

    private func certificateCredential(_ material: OpenSSLMaterial) async throws -> MSALClientCertificate {
        try await material.rsaKeyAndCertificate("app")
        return try MSALClientCertificate(privateKeyFile: material.path("app.key"), certificateFile: material.path("app.crt"))
    }

    @Test("A secret is sent as client_secret, and never shown by the credential's description")
    func secret() async throws {
        let authentication = ClientAuthentication(credential: .secret("s3cr3t-value"), clientID: clientID, clock: ManualClock())
        let fields = try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
        #expect(fields.map(\.0) == ["client_secret"] && fields.first?.1 == "s3cr3t-value")
        #expect(!MSALClientCredential.secret("s3cr3t-value").description.contains("s3cr3t"))
    }

    @Test("A certificate signs once per 540 s per token endpoint and header form; the assertion's aud, iss, sub and 600 s lifetime")
    func certificateAssertionIsReused() async throws {
        let material = try OpenSSLMaterial()
        let clock = ManualClock()
        let authentication = ClientAuthentication(
            credential: .certificate(try await certificateCredential(material)), clientID: clientID, clock: clock)
        let first = try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
        #expect(field("client_assertion_type", first) == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        let assertion = try #require(field("client_assertion", first))
        let claims = try payload(assertion)
        #expect(claims["aud"] as? String == endpoint)
        #expect(claims["iss"] as? String == clientID && claims["sub"] as? String == clientID)
        let issued = try #require(claims["iat"] as? Int)
        #expect(issued == Int(clock.now().timeIntervalSince1970))
        #expect(claims["exp"] as? Int == issued + 600)
        #expect(authentication.signatureCount == 1)

        for step in [100.0, 300, 139] {
            clock.advance(by: step)
            #expect(
                field("client_assertion", try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)) == assertion
            )
        }
        #expect(authentication.signatureCount == 1)

        clock.advance(by: 2)  // 541 s after signing
        let renewed = try #require(
            field("client_assertion", try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)))
        #expect(renewed != assertion)
        #expect(authentication.signatureCount == 2)

        let other = "https://login.microsoftonline.com/fabrikam.onmicrosoft.com/oauth2/v2.0/token"
        #expect(
            try payload(
                try #require(field("client_assertion", try await authentication.formFields(tokenEndpoint: other, sha256Thumbprint: true))))[
                    "aud"] as? String == other)
        _ = try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: false)
        #expect(authentication.signatureCount == 4)
    }

    @Test("For a provider that may refuse a replayed jti, every request gets a new assertion, with a new jti")
    func certificateAssertionNotReused() async throws {
        let material = try OpenSSLMaterial()
        let clock = ManualClock()
        let authentication = ClientAuthentication(
            credential: .certificate(try await certificateCredential(material)), clientID: clientID, clock: clock)
        let issuer = "http://127.0.0.1:4593/api/oidc/token"
        var identifiers: Set<String> = []
        for _ in 0..<3 {
            let fields = try await authentication.formFields(tokenEndpoint: issuer, sha256Thumbprint: false, reusesAssertion: false)
            let claims = try payload(try #require(field("client_assertion", fields)))
            #expect(claims["aud"] as? String == issuer)
            identifiers.insert(try #require(claims["jti"] as? String))
        }
        #expect(identifiers.count == 3)
        #expect(authentication.signatureCount == 3)
    }

    @Test("64 concurrent requests that find no assertion share one signature")
    func concurrentRequestsShareOneSignature() async throws {
        let material = try OpenSSLMaterial()
        let authentication = ClientAuthentication(
            credential: .certificate(try await certificateCredential(material), sendX5C: true), clientID: clientID, clock: ManualClock())
        let assertions = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    field("client_assertion", try await authentication.formFields(tokenEndpoint: self.endpoint, sha256Thumbprint: true))
                }
            }
            return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(assertions.count == 1)
        #expect(authentication.signatureCount == 1)
    }

    @Test("An app's provider is asked on every request, with the client id and token endpoint")
    func providerIsAskedEveryTime() async throws {
        let asked = Mutex<[MSALClientAssertionRequest]>([])
        let authentication = ClientAuthentication(
            credential: .assertion { request in
                asked.withLock { $0.append(request) }
                return "  eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln\n"
            }, clientID: clientID, clock: ManualClock())
        for _ in 0..<3 {
            let fields = try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
            #expect(field("client_assertion", fields) == "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln")
        }
        #expect(
            asked.withLock { $0 } == Array(repeating: MSALClientAssertionRequest(clientId: clientID, tokenEndpoint: endpoint), count: 3))
    }

    @Test(
        "A provider that throws or answers something else than a compact JWT: clientAssertionFailed or credentialTooLarge, the answer never quoted"
    )
    func badProviderAnswers() async throws {
        struct Refused: Error {}
        let thrown = await #expect(throws: MSALFailure.self) {
            try await ClientAuthentication(credential: .assertion { _ in throw Refused() }, clientID: clientID, clock: ManualClock())
                .formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
        }
        #expect(thrown?.internalCode == .clientAssertionFailed && thrown?.underlyingError is Refused)
        let answers: [(String, MSALInternalError)] = [
            ("", .clientAssertionFailed), ("secret-not-a-jwt", .clientAssertionFailed), ("a.b", .clientAssertionFailed),
            ("a.b.c.d", .clientAssertionFailed), (".b.c", .clientAssertionFailed), ("a.b.c d", .clientAssertionFailed),
            ("a.b+.c", .clientAssertionFailed), ("a.b.c\u{0}", .clientAssertionFailed),
            ("a." + String(repeating: "b", count: 16 * 1024) + ".c", .credentialTooLarge),
        ]
        for (answer, code) in answers {
            let error = await #expect(throws: MSALFailure.self, "\(answer.prefix(20))") {
                try await ClientAuthentication(credential: .assertion { _ in answer }, clientID: clientID, clock: ManualClock())
                    .formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
            }
            #expect(error?.internalCode == code, "\(answer.prefix(20))")
            #expect(answer.isEmpty || error?.message.contains(answer) == false)
        }
        // A JWE (five segments) is an assertion too.
        let jwe = "eyJhbGciOiJSU0EtT0FFUCJ9.a2V5.aXY.Y2lwaGVy.dGFn"
        let fields = try await ClientAuthentication(credential: .assertion { _ in jwe }, clientID: clientID, clock: ManualClock())
            .formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
        #expect(field("client_assertion", fields) == jwe)
    }

    @Test("Workload identity reads its token file again on every request; a missing or oversized file is a typed error")
    func workloadIdentityRereadsTheFile() async throws {
        let material = try OpenSSLMaterial()
        let file = URL(fileURLWithPath: material.path("token"))
        let authentication = ClientAuthentication(
            credential: .workloadIdentity(tokenFile: file.path), clientID: clientID, clock: ManualClock())
        try Data("aGVhZA.Zmlyc3Q.c2ln\n".utf8).write(to: file)
        #expect(
            field("client_assertion", try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true))
                == "aGVhZA.Zmlyc3Q.c2ln")
        try Data("aGVhZA.c2Vjb25k.c2ln".utf8).write(to: file)
        #expect(
            field("client_assertion", try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true))
                == "aGVhZA.c2Vjb25k.c2ln")

        try Data(repeating: UInt8(ascii: "a"), count: MSALClientCertificate.maximumSize + 1).write(to: file)
        let large = await #expect(throws: MSALFailure.self) {
            try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
        }
        #expect(large?.internalCode == .credentialTooLarge)
        try FileManager.default.removeItem(at: file)
        let missing = await #expect(throws: MSALFailure.self) {
            try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
        }
        #expect(missing?.internalCode == .clientAssertionFailed)
    }

    @Test(
        "MSALClientCertificate: the SHA-256 thumbprint openssl prints; files over 64 KiB, missing files and bad PEM are typed errors; the key is never described"
    )
    func publicCertificate() async throws {
        let material = try OpenSSLMaterial()
        let certificate = try await certificateCredential(material)
        try await material.openssl("x509", "-in", "app.crt", "-noout", "-fingerprint", "-sha256", "-out", "fingerprint.txt")
        let printed = String(decoding: try material.bytes("fingerprint.txt"), as: UTF8.self)
        let hex = try #require(printed.split(separator: "=").last).replacingOccurrences(of: ":", with: "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(certificate.sha256Thumbprint == hex.lowercased())
        #expect(certificate.description.contains(hex.lowercased()) && !certificate.description.contains("PRIVATE"))

        let big = material.path("big.crt")
        try Data(try material.bytes("app.crt") + [UInt8](repeating: 0x0A, count: MSALClientCertificate.maximumSize)).write(
            to: URL(fileURLWithPath: big))
        let large = #expect(throws: MSALFailure.self) {
            try MSALClientCertificate(privateKeyFile: material.path("app.key"), certificateFile: big)
        }
        #expect(large?.internalCode == .credentialTooLarge)
        let missing = #expect(throws: MSALFailure.self) {
            try MSALClientCertificate(privateKeyFile: material.path("none.key"), certificateFile: material.path("app.crt"))
        }
        #expect(missing?.internalCode == .invalidCredential)
        let swapped = #expect(throws: MSALFailure.self) {
            try MSALClientCertificate(privateKeyPEM: String(decoding: try material.bytes("app.crt"), as: UTF8.self), certificatePEM: "")
        }
        #expect(swapped?.internalCode == .invalidCredential && swapped?.code == .internal)
        try await material.rsaKeyAndCertificate("small", bits: 1024)
        let weak = #expect(throws: MSALFailure.self) {
            try MSALClientCertificate(privateKeyFile: material.path("small.key"), certificateFile: material.path("small.crt"))
        }
        #expect(weak?.internalCode == .unsupportedCredentialKey)
        try await material.rsaKeyAndCertificate("other")
        let mismatch = #expect(throws: MSALFailure.self) {
            try MSALClientCertificate(privateKeyFile: material.path("app.key"), certificateFile: material.path("other.crt"))
        }
        #expect(mismatch?.internalCode == .certificateKeyMismatch)
    }
}
