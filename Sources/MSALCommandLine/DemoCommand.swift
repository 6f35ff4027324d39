import ArgumentParser
import Foundation
import Logging
import MSAL
import MSALEmulator

/// `msal demo`: an app's life against the local identity provider, in one process, step by step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Walk through sign-in, a protected call, silent and refreshed tokens, a fallback and sign-out against a local identity provider.",
        discussion: """
            Starts the local identity provider (msal emulator) in this process on a free port of \
            127.0.0.1 and runs an app against it: configure, sign in interactively, call the \
            provider's protected resource with the Bearer token, get the token silently from the \
            cache, let it expire and refresh it, fall back to interactive sign-in when the provider \
            answers interaction_required, list the accounts and sign out. Every step checks what it \
            expects. Exit status 0 when every step passed, 1 otherwise. No network is used. \
            See docs/emulator.md.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Open the sign-in page with this browser command (the URL is appended, or replaces %s); the page signs the user in by itself. Default: answer the page in this process.",
            valueName: "command"))
    var browser: String?

    @Option(
        help: ArgumentHelp(
            "The user who signs in: adele@contoso.example, ben@contoso.example or grace@fabrikam.example.", valueName: "username"))
    var user: String = "adele@contoso.example"

    @Option(
        help: ArgumentHelp("The token cache file. Default: a file in a new temporary directory, removed at the end.", valueName: "file"))
    var cache: String?

    @Option(help: "Output format: text or json (one object per step).")
    var output: OutputFormat = .text

    @Flag(help: "Print the SDK's verbose log to standard error (personal data masked).")
    var verbose = false

    func validate() throws {
        let users = MSALEmulator.Configuration.sample.users.map(\.username)
        guard users.contains(where: { $0.lowercased() == user.lowercased() }) else {
            throw ValidationError("--user must be one of \(users.joined(separator: ", ")).")
        }
        if let browser {
            guard let words = BrowserCommandLine.words(browser), !words.isEmpty else {
                throw ValidationError("--browser must name a command (quotes balanced).")
            }
        }
        if let cache, cache.isEmpty { throw ValidationError("--cache must name a file.") }
    }

    func run() async throws {
        if verbose { Self.enableVerboseLogging() }
        let started = Date()
        let reporter = DemoReporter(format: output)
        let username = MSALEmulator.Configuration.sample.users.first { $0.username.lowercased() == user.lowercased() }?.username ?? user

        var configuration = MSALEmulator.Configuration.sample
        // A real browser gets a page that signs this user in by itself.
        configuration.autoSignIn = username
        let emulator: MSALEmulator
        do {
            emulator = try MSALEmulator(configuration: configuration)
        } catch let error as MSALEmulatorError {
            CommandOutput.write("msal demo: \(error.message)", toStandardError: true)
            throw ExitCode.failure
        }

        let temporaryDirectory: URL?
        let cachePath: String
        if let cache {
            temporaryDirectory = nil
            cachePath = cache.hasPrefix("/") ? cache : FileManager.default.currentDirectoryPath + "/" + cache
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-demo-\(UUID().uuidString.lowercased())")
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            temporaryDirectory = directory
            cachePath = directory.appendingPathComponent("token_cache.json").path
        }

        let settings = DemoWalkthrough.Settings(
            username: username, browserCommand: browser.flatMap(BrowserCommandLine.words), cachePath: cachePath,
            cacheIsTemporary: temporaryDirectory != nil)
        reporter.introduction([
            "msal demo: swift-msal signs \(username) in to a local identity provider and uses the token.",
            "Everything runs on 127.0.0.1 in this process; no Microsoft account or network is needed.",
        ])
        var walkthrough = DemoWalkthrough(settings: settings, emulator: emulator, reporter: reporter)
        let passed = await walkthrough.run()
        try? await emulator.shutdown()
        if let temporaryDirectory {
            try? FileManager.default.removeItem(at: temporaryDirectory)
        }
        reporter.conclusion(
            passed: passed, steps: walkthrough.steps, total: DemoWalkthrough.Stage.allCases.count,
            seconds: Date().timeIntervalSince(started))
        if !passed { throw ExitCode.failure }
    }

    /// The SDK's log at verbose, personal data masked, one line per message on standard error.
    private static func enableVerboseLogging() {
        let logger = MSALGlobalConfig.loggerConfig
        logger.logMaskingLevel = .settingsMaskAllPII
        logger.logLevel = .verbose
        // The callback writes every message; the swift-log logger is silenced so none is printed twice.
        logger.logger = Logger(label: MSALLoggerConfig.defaultLoggerLabel, factory: { _ in SwiftLogNoOpLogHandler() })
        logger.setLogCallback { level, message, _ in
            guard let message else { return }
            FileHandle.standardError.write(Data("[msal \(level)] \(message)\n".utf8))
        }
    }
}
