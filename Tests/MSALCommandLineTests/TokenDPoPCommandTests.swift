import Foundation
import Testing

/// `msal login --dpop` and `msal token --auth-scheme dpop`, run as processes against `msal emulator`.
@Suite("msal login --dpop and msal token --auth-scheme dpop against the local provider")
struct TokenDPoPCommandTests {
    /// Calls the emulator's resource with an `Authorization` and a `DPoP` header; prints the status and body.
    static let resourceCall = """
        import sys, urllib.error, urllib.request
        request = urllib.request.Request(sys.argv[1], headers={"Authorization": sys.argv[2], "DPoP": sys.argv[3]})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                print(answer.status, answer.read().decode())
        except urllib.error.HTTPError as error:
            print(error.code, error.read().decode())
        """

    @Test(
        "login --dpop binds the tokens to the key kept beside the cache; token --auth-scheme dpop --url prints the DPoP header and a proof the emulator's resource accepts (from the cache in the next process); a bearer token request for the account is refused; misuse exits 64"
    )
    func dpopAcrossProcesses() async throws {
        let emulator = try await EmulatorCommandTests.RunningEmulator.start(["--auto-sign-in", "ben@contoso.example", "--output", "json"])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cli-dpop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(emulator.firstLine.utf8)) as? [String: Any])
        let base = try #require(summary["base_url"] as? String)
        let browser = directory.appendingPathComponent("browser.py")
        try Data(TokenProofOfPossessionCommandTests.formBrowser.utf8).write(to: browser)
        let call = directory.appendingPathComponent("call.py")
        try Data(Self.resourceCall.utf8).write(to: call)
        let cache = directory.appendingPathComponent("cache.json").path
        let app = [
            "--client-id", "9f3a5c1e-2b4d-4e6f-8a7c-1d2e3f4a5b6c", "--authority", "\(base)/common", "--allow-http-loopback", "--cache",
            cache,
        ]

        let login = try await CommandRunner.run(
            ["login", "--dpop", "--browser", "python3 \(browser.path)", "--timeout", "60", "--output", "json"] + app)
        #expect(login.status == 0, "\(login.standardError)")
        let signedIn = try login.json()
        #expect(signedIn["authentication_scheme"] as? String == "DPoP")
        #expect(FileManager.default.fileExists(atPath: cache + ".dpop-key.pem"))

        let resource = "\(base)/resource/me"
        let token = try await CommandRunner.run(["token", "--auth-scheme", "dpop", "--url", resource] + app)
        #expect(token.status == 0, "\(token.standardError)")
        let lines = token.standardOutput.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "the DPoP header, then the proof")
        #expect(lines[0] == "DPoP \(try #require(signedIn["access_token"] as? String))")
        #expect(token.standardError.contains("from cache"))
        let accepted = try await CommandRunner.run(
            [call.path, resource, lines[0], lines[1]], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(accepted.standardOutput.hasPrefix("200 "), "\(accepted.standardOutput) \(accepted.standardError)")
        // The same proof again is a replay, and the resource says so.
        let replayed = try await CommandRunner.run(
            [call.path, resource, lines[0], lines[1]], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(replayed.standardOutput.hasPrefix("401 ") && replayed.standardOutput.contains("invalid_dpop_proof"))

        let json = try await CommandRunner.run(
            ["token", "--auth-scheme", "dpop", "--url", resource, "--http-method", "post", "--nonce", "n-1", "--output", "json"] + app)
        #expect(json.status == 0, "\(json.standardError)")
        let proof = try #require(try json.json()["dpop_proof"] as? String)
        let claims = try TokenProofOfPossessionCommandTests.claims(try #require(proof.split(separator: ".").dropFirst().first))
        #expect(claims["htm"] as? String == "POST" && claims["nonce"] as? String == "n-1" && claims["htu"] as? String == resource)

        // The refresh token is bound to the key: a bearer request is refused, and says why.
        let bearer = try await CommandRunner.run(["token", "--force-refresh"] + app)
        #expect(bearer.status != 0 && bearer.standardError.contains("DPoP"), "\(bearer.standardError)")

        for misuse in [["--auth-scheme", "dpop", "--nonce", "n"], ["--auth-scheme", "dpop", "--http-method", "GET"]] {
            let run = try await CommandRunner.run(["token"] + misuse + app)
            #expect(run.status == 64, "\(misuse): \(run.standardError)")
        }
        _ = try await emulator.stop()
    }
}
