import Foundation
import MSALSupport
import Testing

/// Standard input and `--jwks` files that are not what they should be (issue 19, findings 5, 6 and
/// 9): each is a typed error and exit status 1 within a bounded time, never a trap or a hang.
@Suite("msal: closed or odd standard input, and --jwks naming a FIFO or a directory")
struct InputReaderBadInputTests {
    /// Runs `msal jwt decode -` through `/bin/sh` with standard input redirected by `redirection`.
    static func decodeStandardInput(_ redirection: String) async throws -> CommandRunner.Result {
        try await CommandRunner.offCooperativePool {
            let outcome = try ChildProcess.run(
                "/bin/sh", ["-c", "exec \"$0\" jwt decode - --output json \(redirection)", CommandRunner.executable.path], timeout: 30)
            return CommandRunner.Result(
                status: outcome.status, standardOutput: String(decoding: outcome.standardOutput, as: UTF8.self),
                standardError: String(decoding: outcome.standardError, as: UTF8.self))
        }
    }

    @Test("Standard input closed or a directory: exit 1 with a typed error, no trap", arguments: ["<&-", "< /"])
    func standardInput(redirection: String) async throws {
        let result = try await Self.decodeStandardInput(redirection)
        #expect(result.status == 1, "\(redirection): status \(result.status) \(result.standardError)")
        let error = try #require(try result.json()["error"] as? [String: Any], "\(result.standardOutput)")
        #expect(error["internal_code"] as? Int == -42000)
        let message = error["message"] as? String ?? ""
        #expect(message.contains("standard input"), "\(message)")
        #expect(message.contains(redirection == "<&-" ? "closed or not open for reading" : "directory"), "\(message)")
    }

    @Test("--jwks naming a FIFO fails at once instead of waiting for a writer")
    func jwksFIFO() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-fifo-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("keys.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let token = try CommandRunner.fixtureText("Samples/id-token-rs256.jwt")
        // A hang would be ended by the runner's watchdog with SIGTERM (status 15), not exit 1.
        let result = try await CommandRunner.run(["jwt", "verify", token, "--jwks", fifo, "--output", "json"], timeout: 60)
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any], "\(result.standardOutput)")
        #expect((error["message"] as? String)?.contains("not a regular file") == true, "\(error)")
    }

    @Test("--jwks naming a directory: a clear message, not Foundation's error text")
    func jwksDirectory() async throws {
        let token = try CommandRunner.fixtureText("Samples/id-token-rs256.jwt")
        let result = try await CommandRunner.run(["jwt", "verify", token, "--jwks", NSTemporaryDirectory(), "--output", "json"])
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any], "\(result.standardOutput)")
        let message = error["message"] as? String ?? ""
        #expect(message.contains("is a directory"), "\(message)")
        #expect(!message.contains("NSCocoaErrorDomain") && !message.contains("Error Domain"), "\(message)")
    }
}

/// Text a provider chose reaching the terminal (issue 19, finding 7): `msal accounts` prints a
/// username with terminal escapes and a name with a bidi override escaped; JSON output stays exact.
@Suite("msal: provider text on the terminal is escaped, JSON stays exact")
struct TerminalInjectionTests {
    @Test("A username with an OSC escape and a right-to-left override is shown escaped in text, exact in JSON")
    func accountsOutput() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-injection-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let home = "uid.utid"
        let env = "login.microsoftonline.com"
        let username = "mallory\u{1b}]0;sudo rm\u{07}@evil\u{202E}moc.example"
        let document: [String: Any] = [
            "Account": [
                "\(home)-\(env)-utid": [
                    "home_account_id": home, "environment": env, "realm": "utid", "local_account_id": "uid",
                    "username": username, "authority_type": "MSSTS",
                ]
            ],
            "RefreshToken": [
                "\(home)-\(env)-refreshtoken-client--": [
                    "credential_type": "RefreshToken", "home_account_id": home, "environment": env, "client_id": "client", "secret": "rt",
                ]
            ],
            "AccessToken": [:], "IdToken": [:], "AppMetadata": [:],
        ]
        let cache = directory.appendingPathComponent("cache.json").path
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: cache))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: cache)

        let text = try await CommandRunner.run(["accounts", "--cache", cache])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(!text.standardOutput.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        #expect(text.standardOutput.contains("mallory\\u{1b}]0;sudo rm\\u{7}@evil\\u{202e}moc.example"), "\(text.standardOutput)")

        let json = try await CommandRunner.run(["accounts", "--cache", cache, "--output", "json"])
        let accounts = try #require(try json.json()["accounts"] as? [[String: Any]])
        #expect(accounts.first?["username"] as? String == username)
    }
}
