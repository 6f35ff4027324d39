import Foundation

/// The default web UI: opens the authorization URL in the user's browser.
///
/// Each command of `$BROWSER` (a colon-separated list; `%s` in a command stands for the URL, else the URL is
/// appended) is tried in order, then `xdg-open`. Commands run without a shell, so the URL is always one
/// argument. A command counts as launched when it starts and does not exit with a failure within half a
/// second; swift-msal does not wait for the browser to close. The browser then follows the redirect to
/// the loopback listener, so ``present(authorizationURL:redirectURI:)`` returns `nil`.
///
/// When nothing launches (no `$BROWSER`, no `xdg-open` on `PATH`, or every command failed) it throws
/// an ``MSALFailure`` with code ``MSALError/internal``, internal code
/// ``MSALInternalError/browserLaunchFailed`` and the URL in ``MSALFailure/authorizationURL``, so the app can
/// ask the user to open it.
public struct MSALSystemBrowser: MSALWebUI {
    /// The fallback launcher after `$BROWSER`.
    package static let fallbackCommand = ["xdg-open"]

    /// The environment to read `$BROWSER` and `PATH` from; `nil` is the process's, read at each presentation.
    private let environment: [String: String]?
    private let launchCheck: Duration

    /// Creates the system browser web UI.
    public init() {
        self.environment = nil
        self.launchCheck = .milliseconds(500)
    }

    /// Creates a system browser web UI reading `environment` instead of the process's.
    package init(environment: [String: String], launchCheck: Duration = .milliseconds(500)) {
        self.environment = environment
        self.launchCheck = launchCheck
    }

    /// Whether it reads the process's environment (``init()``).
    package var readsProcessEnvironment: Bool { environment == nil }

    /// `true`: the URL goes on a launched program's command line, so swift-msal hands a single-use start URL
    /// on the loopback listener instead of the authorization URL.
    public var launchesExternalBrowser: Bool { true }

    /// Opens `authorizationURL` in the browser and returns `nil`: the redirect arrives at the loopback listener.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/browserLaunchFailed`` and
    ///   ``MSALFailure/authorizationURL`` set when no browser could be launched.
    public func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let (commands, notes) = Self.commands(environment: environment, url: authorizationURL.absoluteString)
        try await BrowserLauncher(environment: environment, launchCheck: launchCheck)
            .launchFirst(of: commands, url: authorizationURL, notes: notes)
        return nil
    }

    /// The argument vectors to try for `url`, in order, and notes on `$BROWSER` entries that could not be used.
    package static func commands(environment: [String: String], url: String) -> (commands: [[String]], notes: [String]) {
        var commands: [[String]] = []
        var notes: [String] = []
        if let browser = environment["BROWSER"] {
            for (entry, words) in BrowserCommandLine.browserCommands(browser) {
                guard let words else {
                    notes.append("BROWSER entry \"\(entry)\": unbalanced quote")
                    continue
                }
                commands.append(BrowserCommandLine.arguments(words, url: url))
            }
        }
        let fallback = BrowserCommandLine.arguments(fallbackCommand, url: url)
        if !commands.contains(fallback) {
            commands.append(fallback)
        }
        return (commands, notes)
    }
}
