import Foundation
import MSALSupport
import Testing

/// `msal login` where no browser can be started (an SSH session, a container): it prints the
/// sign-in URL with the port-forwarding hint and keeps listening, and a user agent that opens the
/// printed URL completes the sign-in.
@Suite("msal login without a browser")
struct BrowserUnavailableTests {
    /// A running `msal login` whose standard error is read line by line while it waits.
    final class RunningLogin: Sendable {
        let child: ChildProcess

        /// Starts `msal arguments…` with `environment` as its whole environment.
        init(_ arguments: [String], environment: [String: String]) throws {
            child = try ChildProcess.start(CommandRunner.executable.path, arguments, environment: environment, timeout: 300)
        }

        /// Reads standard error until it holds a line starting with four spaces and `http`: the URL.
        func printedURL() async throws -> URL? {
            try await firstLine { $0.hasPrefix("    http") }.flatMap { URL(string: $0.trimmingCharacters(in: .whitespaces)) }
        }

        /// Reads standard error until a complete line satisfies `predicate`; `nil` if the process exited first.
        func firstLine(where predicate: @escaping @Sendable (Substring) -> Bool) async throws -> String? {
            try await CommandRunner.offCooperativePool {
                func match(_ bytes: [UInt8]) -> Substring? {
                    let text = String(decoding: bytes, as: UTF8.self)
                    let complete = text.hasSuffix("\n") ? text[...] : text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
                    return complete.split(separator: "\n").first(where: predicate)
                }
                _ = self.child.readError { match($0) != nil }
                return match(self.child.standardErrorSoFar).map(String.init)
            }
        }

        /// Waits for the exit; the status, standard output and all of standard error.
        func finish() async throws -> (status: Int32, standardOutput: String, standardError: String) {
            try await CommandRunner.offCooperativePool {
                let outcome = self.child.finish()
                return (
                    outcome.status, String(decoding: outcome.standardOutput, as: UTF8.self),
                    String(decoding: outcome.standardError, as: UTF8.self)
                )
            }
        }

        func kill() {
            child.kill()
        }
    }

    /// An environment where no browser starts: `$BROWSER` fails and `PATH` holds no `xdg-open`.
    static func withoutBrowser(home: URL) -> [String: String] {
        var environment = ["BROWSER": "/bin/false", "PATH": home.path, "HOME": home.path, "XDG_CACHE_HOME": home.path]
        // The sanitizer stages' options (ThreadSanitizer's suppressions, exit code) reach the child too,
        // with the symbolizer the suppressions need to match function names (it is not on this PATH).
        let parent = ProcessInfo.processInfo.environment
        let symbolizer = (parent["PATH"] ?? "").split(separator: ":").map { "\($0)/llvm-symbolizer" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        for name in ["TSAN_OPTIONS", "ASAN_OPTIONS"] {
            guard var options = parent[name] else { continue }
            if let symbolizer { options += ":external_symbolizer_path=\(symbolizer)" }
            environment[name] = options
        }
        environment["SWIFT_BACKTRACE"] = parent["SWIFT_BACKTRACE"]
        return environment
    }

    @Test(
        "$BROWSER fails and there is no xdg-open: the URL and the ssh -L hint are printed, and a user agent that opens it signs the user in",
        .enabled(if: ChromiumProcessGroups.shouldRun, "Chromium is not installed: bash scripts/setup.sh"))
    func userOpensPrintedURL() async throws {
        let emulator = try await EmulatorCommandTests.RunningEmulator.start(["--auto-sign-in", "ben@contoso.example", "--output", "json"])
        let chromium = try ChromiumProcessGroups()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("msal-no-browser-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer {
            chromium.stop()
            try? FileManager.default.removeItem(at: home)
        }
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(emulator.firstLine.utf8)) as? [String: Any])
        let base = try #require(summary["base_url"] as? String)

        let login = try RunningLogin(
            [
                "login", "--client-id", "9f3a5c1e-2b4d-4e6f-8a7c-1d2e3f4a5b6c", "--authority", "\(base)/common", "--allow-http-loopback",
                "--cache", home.appendingPathComponent("cache.json").path, "--timeout", "120", "--output", "json",
            ],
            environment: Self.withoutBrowser(home: home))
        defer { login.kill() }
        let url = try #require(try await login.printedURL(), "msal login printed no URL")
        // The listener's single-use start URL, which redirects to \(base)/common/oauth2/v2.0/authorize: no
        // state, nonce or code challenge on the terminal.
        #expect(url.host == "localhost" && url.path.hasPrefix("/msal-start/") && url.query == nil, "\(url) (emulator at \(base))")

        // The user opens the printed URL in a browser of their own.
        let browser = try await CommandRunner.offCooperativePool {
            try ChildProcess.run(
                "/bin/sh",
                [ChromiumProcessGroups.script.path, "--pid-file", chromium.pidFile.path, "--time-limit", "90", url.absoluteString],
                timeout: 120
            ).status
        }
        #expect(browser == 0)

        let (status, standardOutput, standardError) = try await login.finish()
        _ = try await emulator.stop()
        #expect(status == 0, "\(standardError)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(standardOutput.utf8)) as? [String: Any], "\(standardOutput)")
        #expect((result["account"] as? [String: Any])?["username"] as? String == "ben@contoso.example")
        #expect(result["token_source"] as? String == "identity_provider")

        let port = try #require(url.port)
        #expect(standardError.contains("No browser could be started"))
        #expect(standardError.contains("ssh -L \(port):localhost:\(port)"))
        #expect(standardError.contains("--device-code"))
    }

    @Test("Nobody opens the URL: the wait ends after --timeout with redirectTimeout, the URL having been printed")
    func nobodyOpensIt() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("msal-no-browser-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: home) }
        // The recorded `organizations` discovery and metadata, so the sign-in gets as far as the browser.
        let fixture = CommandRunner.fixtures.appendingPathComponent("Conformance/Authority/aad-organizations.json").path
        let login = try RunningLogin(
            [
                "login", "--client-id", TokenCommandTests.client, "--authority", TokenCommandTests.authority, "--replay", fixture,
                "--cache", home.appendingPathComponent("cache.json").path, "--timeout", "1", "--output", "json",
            ],
            environment: Self.withoutBrowser(home: home))
        defer { login.kill() }
        let (status, standardOutput, standardError) = try await login.finish()
        #expect(status == 1)
        let error = try #require(
            (try JSONSerialization.jsonObject(with: Data(standardOutput.utf8)) as? [String: Any])?["error"] as? [String: Any],
            "\(standardOutput)")
        #expect(error["internal_code"] as? Int == -49002)
        #expect(standardError.contains("    http://localhost:"), "\(standardError)")
        #expect(standardError.contains("/msal-start/") && !standardError.contains("state="), "\(standardError)")
    }
}
