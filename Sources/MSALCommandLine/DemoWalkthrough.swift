import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALJSON

/// `msal demo`'s walk through an app's life against the emulator running in this process: each
/// ``Stage`` runs in order, checks what it expects, and is reported; the first unexpected outcome
/// ends the walk.
struct DemoWalkthrough: Sendable {
    /// The steps, in order.
    enum Stage: String, CaseIterable, Sendable {
        case start = "start_provider"
        case configure = "configure_app"
        case signIn = "sign_in"
        case callResource = "call_resource"
        case silent = "silent_from_cache"
        case refresh = "expiry_refresh"
        case interactionRequired = "interaction_required_fallback"
        case accounts = "accounts"
        case signOut = "sign_out"

        var title: String {
            switch self {
            case .start: "Start the local identity provider"
            case .configure: "Configure the app"
            case .signIn: "Sign in interactively"
            case .callResource: "Call the protected resource with the token"
            case .silent: "Get the token again, silently"
            case .refresh: "Let the token expire, then refresh it silently"
            case .interactionRequired: "The provider asks for the user: fall back to interactive sign-in"
            case .accounts: "List the accounts"
            case .signOut: "Sign out"
            }
        }
    }

    /// What the user chose on the command line.
    struct Settings: Sendable {
        /// The sample user who signs in.
        var username: String
        /// The browser command (`--browser`), or `nil` to answer the sign-in page in-process.
        var browserCommand: [String]?
        /// The token cache file.
        var cachePath: String
        /// Whether ``cachePath`` is in a directory of the demo's own, removed at the end.
        var cacheIsTemporary: Bool
    }

    /// The scopes the app asks for: Microsoft Graph's `User.Read`, which the emulator's resource accepts.
    static let scopes = ["User.Read"]
    /// How long a real browser has to come back to the loopback listener.
    static let browserTimeout: TimeInterval = 120

    let settings: Settings
    let emulator: MSALEmulator
    let reporter: DemoReporter

    /// The emulator's protected resource (its port is known once it started).
    var resource: DemoResource { DemoResource(url: emulator.resourceURL) }

    /// Set by ``Stage/configure``.
    var application: MSALPublicClientApplication?
    /// The latest token result.
    var result: MSALResult?
    /// The steps run so far.
    private(set) var steps: [DemoStep] = []

    init(settings: Settings, emulator: MSALEmulator, reporter: DemoReporter) {
        self.settings = settings
        self.emulator = emulator
        self.reporter = reporter
    }

    /// Runs every step; `true` when each behaved as expected.
    mutating func run() async -> Bool {
        let total = Stage.allCases.count
        for (index, stage) in Stage.allCases.enumerated() {
            var step = DemoStep(number: index + 1, name: stage.rawValue, title: stage.title)
            reporter.started(step, of: total)
            do {
                try await perform(stage, &step)
            } catch {
                step.failure = Self.describe(error)
            }
            reporter.finished(step)
            steps.append(step)
            if !step.passed { return false }
        }
        return true
    }

    private mutating func perform(_ stage: Stage, _ step: inout DemoStep) async throws {
        switch stage {
        case .start: try await startProvider(&step)
        case .configure: try configure(&step)
        case .signIn: try await signIn(&step)
        case .callResource: try await callResource(&step)
        case .silent: try await silentFromCache(&step)
        case .refresh: try await expiryAndRefresh(&step)
        case .interactionRequired: try await interactionRequiredFallback(&step)
        case .accounts: try listAccounts(&step)
        case .signOut: try await signOut(&step)
        }
    }

    /// The application, once configured.
    func app() throws -> MSALPublicClientApplication {
        guard let application else { throw DemoFailure("the app was not configured") }
        return application
    }

    /// Interactive parameters: the in-process page driver, or the browser command.
    func interactiveParameters() -> MSALInteractiveTokenParameters {
        let webview: MSALWebviewParameters
        if let command = settings.browserCommand {
            webview = MSALWebviewParameters(browserCommand: command)
            webview.timeout = Self.browserTimeout
        } else {
            webview = MSALWebviewParameters(webUI: DemoSignInWebUI(username: settings.username))
        }
        return MSALInteractiveTokenParameters(scopes: Self.scopes, webviewParameters: webview)
    }

    /// How the sign-in page is answered, for the notes.
    var signInMethod: String {
        if let command = settings.browserCommand {
            return "sign-in page opened with `\(command.joined(separator: " "))`; it signs \(settings.username) in by itself"
        }
        return "sign-in page answered in this process as \(settings.username) (--browser COMMAND opens a real one)"
    }

    /// A token shown without giving it away: its first 8 characters and its length.
    static func redacted(_ token: String) -> String {
        "\(token.prefix(8))… (\(token.count) chars)"
    }

    static func tokenJSON(_ token: String) -> JSON {
        .object(["prefix": .string(String(token.prefix(8))), "length": .integer(token.count)])
    }

    /// An error as one line.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let failure as DemoFailure:
            return failure.description
        case let error as MSALFailure:
            return "unexpected MSALError \(describeCode(error)): \(error.message)"
        case let error as MSALEmulatorError:
            return "the local identity provider failed: \(error.message)"
        default:
            let error = error as NSError
            let text = error.userInfo[NSLocalizedDescriptionKey] as? String ?? error.localizedDescription
            return "unexpected error: \(text)"
        }
    }

    /// `interactionRequired (invalidGrant)` style: the code, and the internal code when there is one.
    static func describeCode(_ error: MSALFailure) -> String {
        "\(error.code)" + (error.internalCode.map { " (\($0))" } ?? "")
    }

    /// A count as words: "1 request", "2 requests".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
