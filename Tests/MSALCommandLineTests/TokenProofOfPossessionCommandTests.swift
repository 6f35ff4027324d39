import Foundation
import Testing

/// `msal token --auth-scheme pop`, run as processes against `msal emulator`.
@Suite("msal token --auth-scheme pop against the local provider")
struct TokenProofOfPossessionCommandTests {
    /// A browser for `msal login --browser`: opens the sign-in page and submits its form, as the
    /// emulator's auto-sign-in page would have a browser do (it submits by script).
    static let formBrowser = """
        import html.parser, sys, urllib.parse, urllib.request

        class Form(html.parser.HTMLParser):
            def __init__(self):
                super().__init__()
                self.action, self.fields = None, []
            def handle_starttag(self, tag, attrs):
                a = dict(attrs)
                if tag == "form":
                    self.action = a.get("action")
                elif (tag == "input" and a.get("type") == "hidden") or (tag == "button" and a.get("name")):
                    self.fields.append((a.get("name"), a.get("value") or ""))

        with urllib.request.urlopen(sys.argv[1], timeout=30) as response:
            page, final = response.read().decode(), response.geturl()
        form = Form()
        form.feed(page)
        data = urllib.parse.urlencode(form.fields).encode()
        with urllib.request.urlopen(urllib.request.Request(urllib.parse.urljoin(final, form.action), data=data), timeout=30) as answer:
            answer.read()
        """

    /// The claims of a JWS segment.
    static func claims(_ segment: Substring) throws -> [String: Any] {
        var text = String(segment).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(
        "login, then token --auth-scheme pop prints PoP <signed request> for the URL, method and nonce; the next process reuses the kept key and the cached bound token; misuse of the flags exits 64"
    )
    func popHeaderAcrossProcesses() async throws {
        let emulator = try await EmulatorCommandTests.RunningEmulator.start(["--auto-sign-in", "ben@contoso.example", "--output", "json"])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cli-pop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(emulator.firstLine.utf8)) as? [String: Any])
        let base = try #require(summary["base_url"] as? String)
        let browser = directory.appendingPathComponent("browser.py")
        try Data(Self.formBrowser.utf8).write(to: browser)
        let cache = directory.appendingPathComponent("cache.json").path
        let app = [
            "--client-id", "9f3a5c1e-2b4d-4e6f-8a7c-1d2e3f4a5b6c", "--authority", "\(base)/common", "--allow-http-loopback", "--cache",
            cache,
        ]

        let login = try await CommandRunner.run(["login", "--browser", "python3 \(browser.path)", "--timeout", "60"] + app)
        #expect(login.status == 0, "\(login.standardError)")

        func pop(_ extra: [String]) async throws -> (header: [String: Any], claims: [String: Any], stderr: String) {
            let run = try await CommandRunner.run(
                ["token", "--auth-scheme", "pop", "--url", "https://graph.example.com/v1.0/me"] + extra + app)
            #expect(run.status == 0, "\(run.standardError)")
            let line = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(line.hasPrefix("PoP "), "\(line.prefix(40))")
            let segments = line.dropFirst(4).split(separator: ".")
            try #require(segments.count == 3)
            return (try Self.claims(segments[0]), try Self.claims(segments[1]), run.standardError)
        }
        let first = try await pop(["--http-method", "post", "--nonce", "n-1"])
        #expect(first.claims["m"] as? String == "POST" && first.claims["nonce"] as? String == "n-1")
        #expect(first.claims["u"] as? String == "graph.example.com" && first.claims["p"] as? String == "/v1.0/me")
        #expect(first.stderr.contains("from identity_provider"))
        let second = try await pop([])
        #expect(second.claims["m"] as? String == "GET")
        #expect(second.header["kid"] as? String == first.header["kid"] as? String)
        #expect(second.claims["at"] as? String == first.claims["at"] as? String)
        #expect(second.stderr.contains("from cache"))
        #expect(FileManager.default.fileExists(atPath: cache + ".shr-key.pem"))

        for misuse in [
            ["--url", "https://graph.example.com/"], ["--auth-scheme", "pop"],
            ["--auth-scheme", "pop", "--url", "https://x/", "--http-method", "FETCH"],
        ] {
            let run = try await CommandRunner.run(["token"] + misuse + app)
            #expect(run.status == 64, "\(misuse): \(run.standardError)")
        }
        _ = try await emulator.stop()
    }
}
