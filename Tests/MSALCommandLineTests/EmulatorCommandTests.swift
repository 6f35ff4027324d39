import Foundation
import MSALSupport
import Testing

@Suite("msal emulator")
struct EmulatorCommandTests {
    /// A running `msal emulator` process and the first line it printed.
    ///
    /// Its blocking reads and waits run on a Dispatch thread (`start`, `stop`), not on one of the
    /// few cooperative threads every other test of a parallel run needs.
    final class RunningEmulator: Sendable {
        let child: ChildProcess
        let firstLine: String

        /// Starts `msal emulator arguments…` and reads its first line.
        static func start(_ arguments: [String]) async throws -> RunningEmulator {
            try await CommandRunner.offCooperativePool { try RunningEmulator(arguments) }
        }

        private init(_ arguments: [String]) throws {
            child = try ChildProcess.start(CommandRunner.executable.path, ["emulator"] + arguments, timeout: 300)
            _ = child.readOutput { $0.contains(UInt8(ascii: "\n")) }  // False when it exited before printing.
            firstLine = String(decoding: child.standardOutputSoFar.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        }

        /// Sends SIGTERM (or SIGINT), waits for the exit, and returns the status, all of standard output and standard error.
        func stop(interrupt: Bool = false) async throws -> (status: Int32, standardOutput: String, standardError: String) {
            try await CommandRunner.offCooperativePool { self.stopNow(interrupt: interrupt) }
        }

        private func stopNow(interrupt: Bool) -> (Int32, String, String) {
            child.kill(interrupt ? SIGINT : SIGTERM)
            let outcome = child.finish()
            return (
                outcome.status, String(decoding: outcome.standardOutput, as: UTF8.self),
                String(decoding: outcome.standardError, as: UTF8.self)
            )
        }
    }

    @Test("Prints its authorities as JSON, answers the SDK's discovery (msal authority show), and exits 0 on SIGTERM")
    func jsonSummaryDiscoveryAndSIGTERM() async throws {
        let emulator = try await RunningEmulator.start(["--output", "json"])
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(emulator.firstLine.utf8)) as? [String: Any], "\(emulator.firstLine)")
        let base = try #require(summary["base_url"] as? String)
        #expect(base.hasPrefix("http://127.0.0.1:"))
        let authorities = try #require(summary["authorities"] as? [[String: Any]])
        #expect(authorities.compactMap { $0["url"] as? String }.contains("\(base)/common"))
        #expect((summary["users"] as? [[String: Any]])?.count == 3)
        #expect(
            (summary["clients"] as? [[String: Any]])?.compactMap { $0["client_id"] as? String }.contains(
                "9f3a5c1e-2b4d-4e6f-8a7c-1d2e3f4a5b6c") == true)
        let identities = try #require(summary["managed_identities"] as? [[String: Any]])
        #expect(
            identities.compactMap { $0["client_id"] as? String } == [
                "6b8f2d4a-3c5e-4f7a-9b1d-2e4f6a8c0d13", "2d4f6a8c-0e1b-4c3d-8e5f-7a9b1c3d5e46",
            ])
        #expect(identities.compactMap { $0["system_assigned"] as? Bool } == [true, false])
        let endpoints = try #require(summary["managed_identity_endpoints"] as? [[String: Any]])
        func endpoint(_ name: String) -> [String: Any] { endpoints.first { $0["name"] as? String == name } ?? [:] }
        #expect(endpoint("IMDS")["url"] as? String == "\(base)/metadata/identity/oauth2/token")
        #expect(endpoint("IMDS")["environment"] as? [String: String] == ["AZURE_POD_IDENTITY_AUTHORITY_HOST": base])
        #expect(endpoint("App Service")["url"] as? String == "\(base)/msi/token")
        #expect(
            endpoint("App Service")["environment"] as? [String: String] == [
                "IDENTITY_ENDPOINT": "\(base)/msi/token", "IDENTITY_HEADER": "c7d1e94a0b3f58e26a4d9c17f0b8e35d",
            ])
        #expect(
            endpoint("Azure Arc")["environment"] as? [String: String] == [
                "IDENTITY_ENDPOINT": "\(base)/arc/metadata/identity/oauth2/token", "IMDS_ENDPOINT": "\(base)/arc",
            ])
        #expect(summary["arc_token_directory"] is NSNull)

        let shown = try await CommandRunner.run(["authority", "show", "\(base)/common", "--allow-http-loopback", "--output", "json"])
        #expect(shown.status == 0, "\(shown.standardError)")
        let authority = try #require(try shown.json()["authority"] as? [String: Any])
        #expect(authority["token_endpoint"] as? String == "\(base)/common/oauth2/v2.0/token")
        #expect(authority["issuer"] as? String == "\(base)/{tenantid}/v2.0")

        let (status, _, standardError) = try await emulator.stop()
        #expect(status == 0)
        #expect(standardError.contains("stopped (SIGTERM)"))
    }

    @Test("Text summary names the authority, clients and users; --auto-sign-in marks the user; SIGINT stops it with status 0")
    func textSummaryAndSIGINT() async throws {
        let arcDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-arc-\(UUID().uuidString)").path
        let emulator = try await RunningEmulator.start(["--auto-sign-in", "ben@contoso.example", "--arc-token-directory", arcDirectory])
        #expect(emulator.firstLine.hasPrefix("MSAL Emulator listening on http://127.0.0.1:"))
        let base = String(emulator.firstLine.dropFirst("MSAL Emulator listening on ".count))
        let (status, text, standardError) = try await emulator.stop(interrupt: true)
        #expect(status == 0)
        #expect(text.contains("IMDS         \(base)/metadata/identity/oauth2/token  AZURE_POD_IDENTITY_AUTHORITY_HOST=\(base)\n"))
        #expect(
            text.contains(
                "App Service  \(base)/msi/token  IDENTITY_ENDPOINT=\(base)/msi/token IDENTITY_HEADER=c7d1e94a0b3f58e26a4d9c17f0b8e35d\n"))
        #expect(
            text.contains(
                "Azure Arc    \(base)/arc/metadata/identity/oauth2/token  IDENTITY_ENDPOINT=\(base)/arc/metadata/identity/oauth2/token IMDS_ENDPOINT=\(base)/arc\n"
            ))
        #expect(text.contains("Azure Arc key files: \(arcDirectory)\n"))
        #expect(
            text.contains(
                "system-assigned  client 6b8f2d4a-3c5e-4f7a-9b1d-2e4f6a8c0d13  object e5f7a9c1-3b5d-4e7f-8a9b-1c3d5e7f9a24  tenant Contoso")
        )
        #expect(text.contains("user-assigned    client 2d4f6a8c-0e1b-4c3d-8e5f-7a9b1c3d5e46"))
        #expect(text.contains("/common  any account"))
        #expect(text.contains("9f3a5c1e-2b4d-4e6f-8a7c-1d2e3f4a5b6c  MSAL Emulator Sample (family)"))
        #expect(text.contains("ben@contoso.example  Ben Walters, home Contoso (signed in automatically)"))
        #expect(text.contains("grace@fabrikam.example  Grace Taylor, home Fabrikam, guest in Contoso"))
        #expect(text.contains("/devicelogin"))
        #expect(standardError.contains("stopped (SIGINT)"))
    }

    @Test("A bad port or an unknown auto-sign-in user fails without listening")
    func badArguments() async throws {
        let badPort = try await CommandRunner.run(["emulator", "--port", "70000"])
        #expect(badPort.status == 64)
        let unknownUser = try await CommandRunner.run(["emulator", "--auto-sign-in", "nobody@example"])
        #expect(unknownUser.status == 1)
        #expect(unknownUser.standardError.contains("autoSignIn"))
    }

    @Test("--web-api needs its secret file, a GUID and a readable secret; each mistake fails without listening")
    func badWebAPIArguments() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-web-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("secret").path
        try Data("s3cret".utf8).write(to: URL(fileURLWithPath: secret))
        let api = "1c3e5a7b-9d2f-4b6a-8c0e-2f4a6c8e0a1b"

        let withoutSecret = try await CommandRunner.run(["emulator", "--web-api", api])
        #expect(withoutSecret.status == 64)
        #expect(withoutSecret.standardError.contains("--web-api-secret-file"))
        let withoutAPI = try await CommandRunner.run(["emulator", "--web-api-secret-file", secret])
        #expect(withoutAPI.status == 64)
        let missingFile = try await CommandRunner.run(["emulator", "--web-api", api, "--web-api-secret-file", secret + ".missing"])
        #expect(missingFile.status == 1)
        #expect(missingFile.standardError.contains("--web-api-secret-file"))
        let notAGUID = try await CommandRunner.run(["emulator", "--web-api", "orders-api", "--web-api-secret-file", secret])
        #expect(notAGUID.status == 64)
        #expect(notAGUID.standardError.contains("GUID"))
    }
}
