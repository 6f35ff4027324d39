import Foundation
import Testing

@Suite("msal demo")
struct DemoCommandTests {
    static let stepNames = [
        "start_provider", "configure_app", "sign_in", "call_resource", "silent_from_cache", "expiry_refresh",
        "interaction_required_fallback", "accounts", "sign_out",
    ]

    /// Runs `msal arguments…`, allowing a minute.
    static func run(_ arguments: [String], timeout: TimeInterval = 60) async throws -> CommandRunner.Result {
        try await CommandRunner.run(arguments, timeout: timeout)
    }

    /// Whether `text` shows more of a token than its first 8 characters (`eyJ` + 5).
    static func showsToken(_ text: String) -> Bool {
        text.contains(/eyJ[A-Za-z0-9_-]{6,}/)
    }

    /// The sample output README.md shows: the code block after "Each step prints what it did".
    static func readmeSample() throws -> [String] {
        let readme = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let mention = try #require(lines.firstIndex { $0.contains("Each step prints what it did") })
        let open = try #require(lines[mention...].firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        let sample = Array(lines[(open + 1)..<close])
        #expect(sample.count >= 3)
        return sample
    }

    static func digitsHidden(_ text: String) -> String {
        text.replacing(/[0-9]+/, with: "N")
    }

    /// Each line of standard output as a JSON object.
    static func jsonSteps(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test("The walkthrough passes every step and exits 0; its text names each step and shows no token")
    func textWalkthrough() async throws {
        let result = try await Self.run(["demo"], timeout: 60)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let output = result.standardOutput
        for title in [
            "1/9  Start the local identity provider", "2/9  Configure the app", "3/9  Sign in interactively",
            "4/9  Call the protected resource with the token", "5/9  Get the token again, silently",
            "6/9  Let the token expire, then refresh it silently",
            "7/9  The provider asks for the user: fall back to interactive sign-in", "8/9  List the accounts", "9/9  Sign out",
        ] {
            #expect(output.contains(title), "missing \(title)")
        }
        #expect(output.contains("✓ acquireToken(with:) signed in adele@contoso.example (Adele Vance)"))
        #expect(output.contains("✓ with Authorization: Bearer <token>: 200, Adele Vance <adele@contoso.example>"))
        #expect(output.contains("✓ acquireTokenSilent(with:) answered from the cache (tokenSource .cache)"))
        #expect(output.contains("✓ acquireTokenSilent(with:) redeemed the refresh token: one refresh_token grant"))
        #expect(output.contains("✓ acquireTokenSilent(with:) threw MSALFailure .interactionRequired (OAuth error interaction_required)"))
        #expect(output.contains("✓ allAccounts() is empty"))
        #expect(output.contains("All 9 steps passed"))
        #expect(!output.contains("✗"))
        // The sample in README.md is this output (numbers aside: ports, token lengths).
        for line in try Self.readmeSample() {
            #expect(Self.digitsHidden(output).contains(Self.digitsHidden(line)), "README.md's sample line is not printed: \(line)")
        }
        #expect(!Self.showsToken(output + result.standardError))
        // The temporary cache directory is gone.
        let cacheLine = try #require(output.split(separator: "\n").first { $0.contains("token cache: ") })
        let path = String(cacheLine.split(separator: " ")[3])
        #expect(path.hasSuffix("/token_cache.json"))
        #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path))
    }

    @Test("--output json: one object per step, every one passed; --user, --cache and --verbose (masked SDK log on standard error)")
    func jsonWalkthrough() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-demo-test-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache.json").path
        let result = try await Self.run(
            ["demo", "--output", "json", "--user", "Grace@Fabrikam.example", "--cache", cache, "--verbose"], timeout: 60)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let steps = try Self.jsonSteps(result.standardOutput)
        #expect(steps.map { $0["name"] as? String } == Self.stepNames)
        #expect(steps.map { $0["step"] as? Int } == Array(1...9))
        for step in steps {
            #expect(step["passed"] as? Bool == true, "\(step)")
            #expect(step["error"] is NSNull)
            #expect((step["checks"] as? [String])?.isEmpty == false, "\(step)")
        }
        let signIn = try #require(steps.first { $0["name"] as? String == "sign_in" }?["details"] as? [String: Any])
        #expect(signIn["username"] as? String == "grace@fabrikam.example")
        #expect(signIn["token_source"] as? String == "identity_provider")
        #expect(signIn["tenant_id"] as? String == "5d1c2a8e-94b0-4e6f-8c21-7a9e3b4f6d22")
        let token = try #require(signIn["access_token"] as? [String: Any])
        #expect((token["prefix"] as? String)?.count == 8)
        #expect((token["length"] as? Int ?? 0) > 100)
        let silent = try #require(steps.first { $0["name"] as? String == "silent_from_cache" }?["details"] as? [String: Any])
        #expect(silent["token_source"] as? String == "cache")
        #expect(silent["token_requests"] as? Int == 0)
        let configure = try #require(steps.first { $0["name"] as? String == "configure_app" }?["details"] as? [String: Any])
        #expect(configure["cache_file"] as? String == cache)
        // The chosen cache file stays; after sign-out it holds no account.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cache))) as? [String: Any])
        #expect((document["Account"] as? [String: Any] ?? [:]).isEmpty)
        // --verbose: the SDK's log, with personal data masked and no token.
        #expect(result.standardError.contains("[msal verbose]"))
        #expect(result.standardError.contains("Masked("))
        #expect(!result.standardError.lowercased().contains("grace@fabrikam.example"))
        #expect(!Self.showsToken(result.standardOutput + result.standardError))
    }

    @Test("An unexpected outcome is reported with what went wrong and exit status 1: a browser command that fails")
    func failingStep() async throws {
        let text = try await Self.run(["demo", "--browser", "/bin/false"], timeout: 60)
        #expect(text.status == 1)
        #expect(text.standardOutput.contains("3/9  Sign in interactively"))
        #expect(text.standardOutput.contains("✗ unexpected MSALError internal (browserLaunchFailed)"))
        #expect(!text.standardOutput.contains("4/9"))
        #expect(text.standardError.contains("The demo failed at step 3/9 (Sign in interactively)"))

        let json = try await Self.run(["demo", "--browser", "/bin/false", "--output", "json"], timeout: 60)
        #expect(json.status == 1)
        let steps = try Self.jsonSteps(json.standardOutput)
        #expect(steps.map { $0["passed"] as? Bool } == [true, true, false])
        #expect((steps.last?["error"] as? String)?.contains("browserLaunchFailed") == true)
    }

    @Test("Bad options are usage errors (status 64): an unknown user, an unknown output format, an empty browser command")
    func badOptions() async throws {
        let user = try await Self.run(["demo", "--user", "nobody@example"])
        #expect(user.status == 64)
        #expect(user.standardError.contains("adele@contoso.example"))
        #expect(try await Self.run(["demo", "--output", "xml"]).status == 64)
        #expect(try await Self.run(["demo", "--browser", "  "]).status == 64)
        #expect(try await Self.run(["demo", "--browser", "'unbalanced"]).status == 64)
    }

    @Test(
        "--browser with headless Chromium: both interactive sign-ins go through the real browser and the loopback listener",
        .enabled(
            if: ChromiumProcessGroups.shouldRun,
            "Chromium is not installed: bash scripts/setup.sh installs it (in CI its absence fails the test)"),
        .timeLimit(.minutes(4)))
    func realBrowser() async throws {
        try #require(
            ChromiumProcessGroups.isInstalled,
            "Chromium is not installed and CI=true: bash scripts/setup.sh must install Debian's chromium package")
        let chromium = try ChromiumProcessGroups()
        defer { chromium.stop() }
        let result = try await Self.run(["demo", "--browser", chromium.browserOption, "--user", "ben@contoso.example"], timeout: 200)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains("sign-in page opened with `\(ChromiumProcessGroups.script.path) --pid-file"))
        #expect(result.standardOutput.contains("✓ acquireToken(with:) signed in ben@contoso.example (Ben Walters)"))
        #expect(result.standardOutput.contains("All 9 steps passed"))
        // The sign-in and the interactive fallback each started Chromium.
        #expect(chromium.runs == 2)
    }
}
