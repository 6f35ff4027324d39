import Foundation
import MSALEmulator
import MSALJOSE
import Testing

/// `msal app-token` run as a process against an emulator in this process: each credential option,
/// the cache between runs, secrets only from files or standard input, and the errors.
@Suite("msal app-token: a confidential client's app token")
struct AppTokenCommandTests {
    static let clientID = "2b4d6f80-1a3c-4e5f-9a7b-8c9d0e1f2a3b"
    static let secret = "cli~secret.value-42"

    final class Setup {
        let folder: URL
        let emulator: MSALEmulator
        let certificate: (privateKeyPEM: String, certificatePEM: String)

        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-app-token-\(UUID().uuidString.lowercased())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            certificate = try MSALEmulator.Client.makeCertificate(commonName: "msal app-token")
            try Data((certificate.privateKeyPEM + certificate.certificatePEM).utf8).write(to: folder.appendingPathComponent("both.pem"))
            try Data(certificate.certificatePEM.utf8).write(to: folder.appendingPathComponent("cert.pem"))
            try Data(certificate.privateKeyPEM.utf8).write(to: folder.appendingPathComponent("key.pem"))
            try Data((AppTokenCommandTests.secret + "\n").utf8).write(to: folder.appendingPathComponent("secret.txt"))
            var configuration = MSALEmulator.Configuration.sample
            configuration.clients.append(
                MSALEmulator.Client(
                    clientID: AppTokenCommandTests.clientID, displayName: "CLI daemon",
                    credentials: [.secret(AppTokenCommandTests.secret), .certificate(pem: certificate.certificatePEM)]))
            emulator = try MSALEmulator(configuration: configuration)
            try await emulator.start()
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        var grants: Int { emulator.requestCount(.token, grantType: .clientCredentials) }

        /// `msal app-token` with the common options, JSON output and this setup's cache file.
        func run(_ arguments: [String], standardInput: Data? = nil) async throws -> CommandRunner.Result {
            let authority = emulator.authorityURL(tenant: MSALEmulator.Configuration.sampleContosoTenantID).absoluteString
            return try await CommandRunner.run(
                [
                    "app-token", "--client-id", AppTokenCommandTests.clientID, "--authority", authority, "--allow-http-loopback",
                    "--cache", path("cache.json"), "--output", "json",
                ] + arguments, standardInput: standardInput)
        }

        static func with(_ body: (Setup) async throws -> Void) async throws {
            let setup = try await Setup()
            do {
                try await body(setup)
            } catch {
                try? await setup.emulator.shutdown()
                throw error
            }
            try? await setup.emulator.shutdown()
        }
    }

    @Test("A secret file: a token from the provider, then from the cache file; --force-refresh asks again")
    func secretFileAndCache() async throws {
        try await Setup.with { setup in
            let first = try await setup.run(["--secret-file", setup.path("secret.txt")])
            #expect(first.status == 0, "\(first.standardOutput) \(first.standardError)")
            let json = try first.json()
            #expect(json["token_source"] as? String == "identity_provider")
            #expect(json["scopes"] as? [String] == ["https://graph.microsoft.com/.default"])
            let account = try #require(json["account"] as? [String: Any])
            #expect(account["identifier"] is NSNull)
            #expect(account["tenant_id"] as? String == MSALEmulator.Configuration.sampleContosoTenantID)
            #expect(json["id_token_claims"] is NSNull)

            let second = try await setup.run(["--secret-file", setup.path("secret.txt")])
            #expect(try second.json()["token_source"] as? String == "cache")
            #expect(try second.json()["access_token"] as? String == json["access_token"] as? String)
            #expect(setup.grants == 1)

            let forced = try await setup.run(["--secret-file", setup.path("secret.txt"), "--force-refresh"])
            #expect(try forced.json()["token_source"] as? String == "identity_provider")
            #expect(setup.grants == 2)
        }
    }

    @Test("--fmi-path: the path is sent, its token comes from the cache file in the next run, apart from the plain token; a bad path fails")
    func fmiPath() async throws {
        try await Setup.with { setup in
            let secret = ["--secret-file", setup.path("secret.txt"), "--scopes", "api://AzureADTokenExchange/.default"]
            let first = try await setup.run(secret + ["--fmi-path", "agents/one"])
            #expect(first.status == 0, "\(first.standardOutput) \(first.standardError)")
            let token = try #require(try first.json()["access_token"] as? String)
            #expect(try JWT.decodeUnverified(token).stringClaim("fmi_path") == "agents/one")
            #expect(setup.emulator.requests.last?.form["fmi_path"] == "agents/one")

            let again = try await setup.run(secret + ["--fmi-path", "agents/one"])
            #expect(try again.json()["token_source"] as? String == "cache")
            #expect(try again.json()["access_token"] as? String == token)
            let plain = try await setup.run(secret)
            #expect(try plain.json()["token_source"] as? String == "identity_provider")
            #expect(try plain.json()["access_token"] as? String != token)
            #expect(setup.grants == 2)

            let bad = try await setup.run(secret + ["--fmi-path", "agents/../root"])
            #expect(bad.status != 0)
            #expect(bad.standardError.contains("fmiPath") || bad.standardOutput.contains("fmiPath"), "\(bad.standardError)")
            #expect(setup.grants == 2, "nothing was sent for a bad path")
        }
    }

    @Test("The secret from standard input; a certificate with its key in the same file or apart; an assertion file")
    func otherCredentials() async throws {
        try await Setup.with { setup in
            let piped = try await setup.run(["--secret-file", "-", "--force-refresh"], standardInput: Data((Self.secret + "\r\n").utf8))
            #expect(piped.status == 0, "\(piped.standardOutput)")
            for arguments in [
                ["--certificate", setup.path("both.pem")],
                ["--certificate", setup.path("cert.pem"), "--private-key", setup.path("key.pem")],
                ["--certificate", setup.path("cert.pem"), "--private-key", setup.path("key.pem"), "--send-x5c"],
            ] {
                let result = try await setup.run(arguments + ["--force-refresh"])
                #expect(result.status == 0, "\(arguments): \(result.standardOutput)")
                #expect(try result.json()["token_source"] as? String == "identity_provider")
            }
            // A signed assertion in a file (as a workload identity token file holds one), read as it is.
            let signer = try ClientCertificate(
                privateKeyPEM: Array(setup.certificate.privateKeyPEM.utf8), certificatePEM: Array(setup.certificate.certificatePEM.utf8))
            let tokenEndpoint =
                setup.emulator.authorityURL(tenant: MSALEmulator.Configuration.sampleContosoTenantID).absoluteString + "/oauth2/v2.0/token"
            let assertion = try signer.signAssertion(
                clientID: Self.clientID, audience: tokenEndpoint, issuedAt: Int64(setup.emulator.now.timeIntervalSince1970), lifetime: 600,
                jwtID: UUID().uuidString, thumbprint: .sha256, sendX5C: false)
            try Data((assertion + "\n").utf8).write(to: setup.folder.appendingPathComponent("assertion.jwt"))
            let fromFile = try await setup.run(["--assertion-file", setup.path("assertion.jwt"), "--force-refresh"])
            #expect(fromFile.status == 0, "\(fromFile.standardOutput)")
            // The cache answers first; a request that needs the token endpoint reads the file.
            #expect(try await setup.run(["--assertion-file", setup.path("missing.jwt")]).status == 0)
            let missing = try await setup.run(["--assertion-file", setup.path("missing.jwt"), "--force-refresh"])
            #expect(missing.status == 1)
            let error = try #require(try missing.json()["error"] as? [String: Any])
            #expect(error["internal_code"] as? Int == -53005, "\(error)")
            #expect(setup.grants == 5)
        }
    }

    @Test(
        "Refused: a wrong secret (exit 1, invalidClient, nothing cached), no credential, two credentials, key options without a certificate"
    )
    func refusals() async throws {
        try await Setup.with { setup in
            let wrongSecret = "wrong-s3cret-value-9"
            try Data((wrongSecret + "\n").utf8).write(to: setup.folder.appendingPathComponent("wrong.txt"))
            let wrong = try await setup.run(["--secret-file", setup.path("wrong.txt")])
            #expect(wrong.status == 1)
            let error = try #require(try wrong.json()["error"] as? [String: Any], "\(wrong.standardOutput)")
            #expect(error["oauth_error"] as? String == "invalid_client", "\(error)")
            #expect(error["internal_code"] as? Int == -42003, "\(error)")
            #expect(!wrong.standardOutput.contains(wrongSecret) && !wrong.standardError.contains(wrongSecret), "the secret is never shown")

            try Data().write(to: setup.folder.appendingPathComponent("empty.txt"))
            let empty = try await setup.run(["--secret-file", setup.path("empty.txt")])
            #expect(empty.status == 1)
            #expect((try empty.json()["error"] as? [String: Any])?["internal_code"] as? Int == -53001)

            for arguments in [
                [String](), ["--secret-file", setup.path("secret.txt"), "--certificate", setup.path("both.pem")],
                ["--secret-file", setup.path("secret.txt"), "--private-key", setup.path("key.pem")], ["--secret", Self.secret],
            ] {
                let result = try await setup.run(arguments)
                #expect(result.status == 64, "\(arguments): \(result.standardError)")
            }
            #expect(setup.grants == 1, "only the wrong secret reached the provider")
            let cached = FileManager.default.fileExists(atPath: setup.path("cache.json")) ? try setup.cachedTokens() : 0
            #expect(cached == 0)
        }
    }
}

extension AppTokenCommandTests.Setup {
    /// How many access tokens the cache file holds.
    func cachedTokens() throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path("cache.json")))
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (json?["AccessToken"] as? [String: Any])?.count ?? 0
    }
}
