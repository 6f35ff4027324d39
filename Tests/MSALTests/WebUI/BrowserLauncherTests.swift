import Foundation
import MSALSupport
import Testing

@testable import MSAL

#if canImport(Glibc)
import Glibc
#endif

/// A temporary directory with fake browser scripts that record the arguments they get.
struct FakeBrowsers {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-webui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Writes an executable script `name` that records its arguments (NUL-separated) to `<name>.args`, then runs `tail`.
    @discardableResult
    func script(_ name: String, then tail: String = "exit 0") throws -> String {
        let path = directory.appendingPathComponent(name).path
        let text = "#!/bin/sh\nprintf '%s\\0' \"$@\" > '\(recordPath(name))'\n\(tail)\n"
        // The executable is written by a `cp` child, never opened for writing in this process: a
        // process that another test forks at that moment would inherit the descriptor, and running the
        // script would then fail with ETXTBSY ("text file busy") — it did, once, in a full test run.
        let draft = path + ".draft"
        try Data(text.utf8).write(to: URL(fileURLWithPath: draft))
        guard try ChildProcess.run("/bin/cp", [draft, path], timeout: 30).exitCode == 0 else { throw CocoaError(.fileWriteUnknown) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    func recordPath(_ name: String) -> String {
        directory.appendingPathComponent("\(name).args").path
    }

    /// The arguments `name` was run with, or `nil` if it never ran.
    func arguments(of name: String) -> [String]? {
        guard let data = FileManager.default.contents(atPath: recordPath(name)) else { return nil }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    /// An environment whose `PATH` is this directory (then the system's, for `sleep` and friends, if asked).
    func environment(systemPath: Bool = true, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = ["PATH": directory.path + (systemPath ? ":/usr/bin:/bin" : "")]
        environment.merge(extra) { $1 }
        return environment
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

@Suite("Browser launchers: system browser, custom command, no shell")
struct BrowserLauncherTests {
    static let url = URL(
        string:
            "https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=1&state=s&redirect_uri=http%3A%2F%2Flocalhost%3A5000%2F"
    )!
    static let redirect = URL(string: "http://localhost:5000/")!

    @Test("A URL full of shell syntax is passed as one argument and runs nothing")
    func noShellInjection() async throws {
        let fakes = try FakeBrowsers()
        defer { fakes.remove() }
        let marker = fakes.directory.appendingPathComponent("pwned").path
        let hostile = try #require(
            URL(
                string:
                    "https://login.example/authorize?a=1;touch$IFS\(marker)&b=$(touch$IFS\(marker))&c=`touch$IFS\(marker)`|touch$IFS\(marker)&d='x'&e=%22q%22%20z"
            ))
        let browser = try fakes.script("browser")
        let result = try await MSALBrowserCommand(arguments: [browser], environment: fakes.environment())
            .present(authorizationURL: hostile, redirectURI: Self.redirect)
        #expect(result == nil)
        #expect(fakes.arguments(of: "browser") == [hostile.absoluteString])
        #expect(!FileManager.default.fileExists(atPath: marker))

        let system = MSALSystemBrowser(environment: fakes.environment(["BROWSER": "browser --x=%s"]))
        _ = try await system.present(authorizationURL: hostile, redirectURI: Self.redirect)
        #expect(fakes.arguments(of: "browser") == ["--x=\(hostile.absoluteString)"])
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test("%s is replaced in any argument and %% becomes %; without %s the URL is appended")
    func substitution() async throws {
        let fakes = try FakeBrowsers()
        defer { fakes.remove() }
        let browser = try fakes.script("browser")
        let url = Self.url.absoluteString
        _ = try await MSALBrowserCommand(arguments: [browser, "--app=%s", "--zoom=100%%", "%x", "%"], environment: fakes.environment())
            .present(authorizationURL: Self.url, redirectURI: Self.redirect)
        #expect(fakes.arguments(of: "browser") == ["--app=\(url)", "--zoom=100%", "%x", "%"])
        _ = try await MSALBrowserCommand(arguments: [browser, "--new-window"], environment: fakes.environment())
            .present(authorizationURL: Self.url, redirectURI: Self.redirect)
        #expect(fakes.arguments(of: "browser") == ["--new-window", url])
        _ = try await MSALBrowserCommand(arguments: ["browser", "%s", "%s"], environment: fakes.environment())
            .present(authorizationURL: Self.url, redirectURI: Self.redirect)
        #expect(fakes.arguments(of: "browser") == [url, url], "a name is looked up on PATH")
    }

    @Test("$BROWSER entries are tried in order: missing and failing ones are skipped")
    func browserVariable() async throws {
        let fakes = try FakeBrowsers()
        defer { fakes.remove() }
        try fakes.script("failing", then: "exit 3")
        try fakes.script("killed", then: "kill -9 $$")
        try fakes.script("good")
        try fakes.script("xdg-open")
        let environment = fakes.environment(["BROWSER": "::/nonexistent/browser:failing --a:killed:good --flag '%s' \"two words\":xdg-open"]
        )
        _ = try await MSALSystemBrowser(environment: environment).present(authorizationURL: Self.url, redirectURI: Self.redirect)
        #expect(fakes.arguments(of: "failing") == ["--a", Self.url.absoluteString])
        #expect(fakes.arguments(of: "killed") == [Self.url.absoluteString])
        #expect(fakes.arguments(of: "good") == ["--flag", Self.url.absoluteString, "two words"])
        #expect(fakes.arguments(of: "xdg-open") == nil, "stops at the first that launches")
    }

    @Test("Without $BROWSER, or when all its commands fail, xdg-open is used")
    func xdgOpenFallback() async throws {
        let fakes = try FakeBrowsers()
        defer { fakes.remove() }
        try fakes.script("xdg-open")
        try fakes.script("failing", then: "exit 1")
        _ = try await MSALSystemBrowser(environment: fakes.environment()).present(authorizationURL: Self.url, redirectURI: Self.redirect)
        #expect(fakes.arguments(of: "xdg-open") == [Self.url.absoluteString])
        try FileManager.default.removeItem(atPath: fakes.recordPath("xdg-open"))
        _ = try await MSALSystemBrowser(environment: fakes.environment(["BROWSER": "failing"]))
            .present(authorizationURL: Self.url, redirectURI: Self.redirect)
        #expect(fakes.arguments(of: "failing") == [Self.url.absoluteString])
        #expect(fakes.arguments(of: "xdg-open") == [Self.url.absoluteString])
    }

    @Test("No browser at all: browserLaunchFailed with the URL in the message, the error and userInfo")
    func noBrowser() async throws {
        let fakes = try FakeBrowsers()
        defer { fakes.remove() }
        try fakes.script("failing", then: "exit 2")
        let cases: [(String, any MSALWebUI)] = [
            ("empty PATH, no BROWSER", MSALSystemBrowser(environment: fakes.environment(systemPath: false))),
            (
                "unusable BROWSER",
                MSALSystemBrowser(environment: fakes.environment(systemPath: false, ["BROWSER": "nothere:'unbalanced:failing"]))
            ),
            ("missing command", MSALBrowserCommand(arguments: ["/nonexistent/firefox", "%s"], environment: fakes.environment())),
            ("directory", MSALBrowserCommand(arguments: [fakes.directory.path], environment: fakes.environment())),
            ("empty command", MSALBrowserCommand(arguments: [], environment: fakes.environment())),
            ("empty program", MSALBrowserCommand(arguments: [""], environment: fakes.environment())),
        ]
        for (name, webUI) in cases {
            let error = await LoopbackTest.error { _ = try await webUI.present(authorizationURL: Self.url, redirectURI: Self.redirect) }
            #expect(error?.code == .internal, "\(name)")
            #expect(error?.internalCode == .browserLaunchFailed, "\(name)")
            #expect(error?.authorizationURL == Self.url, "\(name)")
            #expect(error?.message.contains(Self.url.absoluteString) == true, "\(name)")
            let nsError = (try #require(error) as any Error) as NSError
            #expect(nsError.userInfo[MSALAuthorizationURLKey] as? URL == Self.url, "\(name)")
            #expect(nsError.userInfo[MSALInternalErrorCodeKey] as? Int == -49001, "\(name)")
        }
        let unusable = await LoopbackTest.error {
            _ = try await MSALSystemBrowser(environment: fakes.environment(systemPath: false, ["BROWSER": "nothere:'unbalanced:failing"]))
                .present(authorizationURL: Self.url, redirectURI: Self.redirect)
        }
        #expect(unusable?.message.contains("unbalanced quote") == true)
        #expect(unusable?.message.contains("nothere: not found") == true)
        #expect(unusable?.message.contains("failing: exited with status 2") == true)
        #expect(unusable?.message.contains("xdg-open: not found") == true)
    }

    @Test("Non-executable files are not run")
    func notExecutable() async throws {
        let fakes = try FakeBrowsers()
        defer { fakes.remove() }
        let path = try fakes.script("browser")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let error = await LoopbackTest.error {
            _ = try await MSALBrowserCommand(arguments: ["browser"], environment: fakes.environment())
                .present(authorizationURL: Self.url, redirectURI: Self.redirect)
        }
        #expect(error?.internalCode == .browserLaunchFailed)
        #expect(fakes.arguments(of: "browser") == nil)
    }

    @Test(
        "A launcher that keeps running counts as launched; swift-msal does not wait for it; it starts with no signal blocked, so SIGTERM stops it"
    )
    func longRunningLauncher() async throws {
        let fakes = try FakeBrowsers()
        defer { fakes.remove() }
        let pidFile = fakes.directory.appendingPathComponent("pid").path
        // 600 s: the test kills it, and a loaded parallel run once resumed this test only after a
        // 60-second launcher had ended on its own.
        let browser = try fakes.script("browser", then: "echo $$ > '\(pidFile)'\nexec sleep 600")
        let result = try await MSALBrowserCommand(arguments: [browser], environment: fakes.environment(), launchCheck: .milliseconds(200))
            .present(authorizationURL: Self.url, redirectURI: Self.redirect)
        #expect(result == nil)
        let pidText = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try #require(pid_t(pidText))
        #expect(kill(pid, 0) == 0, "the launcher is still running")
        // It starts with no signal blocked (Foundation's Process passes on the blocked mask of the
        // cooperative thread that started it), so SIGTERM stops it; it used to ignore it for good.
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.split(separator: "\n").contains("SigBlk:\t0000000000000000"), "\(status)")
        kill(pid, SIGTERM)
        var gone = false
        for _ in 0..<3000 where !gone {  // up to 30 s on a loaded machine
            gone = kill(pid, 0) != 0 || (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.contains(") Z ") == true
            if !gone { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(gone, "SIGTERM did not stop the launched browser")
        if !gone { kill(pid, SIGKILL) }
    }

    @Test("Only http and https URLs are handed to a browser")
    func onlyWebURLs() async throws {
        let fakes = try FakeBrowsers()
        defer { fakes.remove() }
        let browser = try fakes.script("browser")
        for text in ["file:///etc/passwd", "javascript:alert(1)", "-x", "mailto:a@b"] {
            let url = try #require(URL(string: text))
            let error = await LoopbackTest.error {
                _ = try await MSALBrowserCommand(arguments: [browser], environment: fakes.environment())
                    .present(authorizationURL: url, redirectURI: Self.redirect)
            }
            #expect(error?.internalCode == .internalErrorInvalidParameter, "\(text)")
        }
        #expect(fakes.arguments(of: "browser") == nil)
    }

    @Test("Word splitting of $BROWSER commands: quotes and escapes only, no shell syntax")
    func words() {
        #expect(BrowserCommandLine.words("firefox --new-window %s") == ["firefox", "--new-window", "%s"])
        #expect(BrowserCommandLine.words("  a\t b  ") == ["a", "b"])
        #expect(
            BrowserCommandLine.words("'/opt/My Browser/run' \"a \\\"b\\\" \\x\" c\\ d") == ["/opt/My Browser/run", "a \"b\" \\x", "c d"])
        #expect(BrowserCommandLine.words("a;b | c $(d) `e` > f &") == ["a;b", "|", "c", "$(d)", "`e`", ">", "f", "&"])
        #expect(BrowserCommandLine.words("''") == [""])
        #expect(BrowserCommandLine.words("") == [])
        #expect(BrowserCommandLine.words("'open") == nil)
        #expect(BrowserCommandLine.words("\"open") == nil)
        #expect(BrowserCommandLine.words("trailing\\") == nil)
    }

    @Test("$BROWSER is split on colons; empty entries are skipped; xdg-open comes last once")
    func commands() {
        let url = "https://x.example/a"
        #expect(MSALSystemBrowser.commands(environment: [:], url: url).commands == [["xdg-open", url]])
        #expect(MSALSystemBrowser.commands(environment: ["BROWSER": ""], url: url).commands == [["xdg-open", url]])
        #expect(MSALSystemBrowser.commands(environment: ["BROWSER": "xdg-open"], url: url).commands == [["xdg-open", url]])
        let (commands, notes) = MSALSystemBrowser.commands(environment: ["BROWSER": "a %s b::c:'d"], url: url)
        #expect(commands == [["a", url, "b"], ["c", url], ["xdg-open", url]])
        #expect(notes == ["BROWSER entry \"'d\": unbalanced quote"])
    }
}
