import Foundation

/// A web UI that opens the authorization URL with a launcher command of the app's choice.
///
/// `arguments` is an argument vector, not a shell command: the first element is the program (a path, or a
/// name looked up on `PATH`), and `%s` in any argument is replaced by the URL (`%%` by `%`); with no `%s`
/// the URL is appended as the last argument. No shell is involved, so the URL is never interpreted.
///
/// ```swift
/// let webview = MSALWebviewParameters(browserCommand: ["firefox", "--new-window", "%s"])
/// ```
///
/// Like ``MSALSystemBrowser`` it returns `nil` from ``present(authorizationURL:redirectURI:)`` and throws
/// ``MSALInternalError/browserLaunchFailed`` with ``MSALFailure/authorizationURL`` set when the command
/// cannot be started or exits with a failure at once.
public struct MSALBrowserCommand: MSALWebUI {
    /// The launcher's argument vector.
    public let arguments: [String]
    private let environment: [String: String]?
    private let launchCheck: Duration

    /// Creates a web UI running `arguments`.
    public init(arguments: [String]) {
        self.arguments = arguments
        self.environment = nil
        self.launchCheck = .milliseconds(500)
    }

    /// Creates a web UI running `arguments` with `environment` instead of the process's.
    package init(arguments: [String], environment: [String: String], launchCheck: Duration = .milliseconds(500)) {
        self.arguments = arguments
        self.environment = environment
        self.launchCheck = launchCheck
    }

    /// `true`: the URL goes on a launched program's command line, so swift-msal hands a single-use start URL
    /// on the loopback listener instead of the authorization URL.
    public var launchesExternalBrowser: Bool { true }

    /// Runs the command for `authorizationURL` and returns `nil`: the redirect arrives at the loopback listener.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/browserLaunchFailed`` and
    ///   ``MSALFailure/authorizationURL`` set when the command does not launch.
    public func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let commands = arguments.isEmpty ? [] : [BrowserCommandLine.arguments(arguments, url: authorizationURL.absoluteString)]
        try await BrowserLauncher(environment: environment, launchCheck: launchCheck)
            .launchFirst(of: commands, url: authorizationURL, notes: arguments.isEmpty ? ["empty browser command"] : [])
        return nil
    }
}
