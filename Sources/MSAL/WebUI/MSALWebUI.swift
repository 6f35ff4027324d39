import Foundation

/// How an interactive request reaches the user on Linux.
///
/// swift-msal ships two: ``MSALSystemBrowser`` (the default: `$BROWSER`, then `xdg-open`) and
/// ``MSALBrowserCommand`` (a launcher command of the app's choice). An app can supply its own, for an
/// embedded web view or to drive sign-in from tests; pass it with ``MSALWebviewParameters/init(webUI:)``.
public protocol MSALWebUI: Sendable {
    /// Shows `authorizationURL` to the user.
    ///
    /// Return the final redirect URL if this web UI captured it itself (an embedded web view, a test
    /// driver); return `nil` if it handed the URL to something (a browser) that will follow the redirect
    /// to `redirectURI`, where the SDK's loopback listener waits for it.
    ///
    /// - Parameters:
    ///   - authorizationURL: The authorization endpoint URL with every request parameter.
    ///   - redirectURI: The `redirect_uri` the request carries.
    /// - Throws: An ``MSALFailure`` (or any error) when the URL could not be shown.
    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL?

    /// Whether ``present(authorizationURL:redirectURI:)`` hands its URL to another program, such as a
    /// browser started as a process, where other local users can read it (on a command line in
    /// `/proc/<pid>/cmdline`, in a shell history).
    ///
    /// When `true` and a loopback listener waits for the redirect, swift-msal does not pass the
    /// authorization URL (whose `state`, `nonce` and `code_challenge` would let another user on the
    /// machine sign the app in as themselves) but a single-use start URL on the listener,
    /// `http://localhost:<port>/msal-start/<random>`, that redirects the browser to it. A second request
    /// for the start URL means someone else read it, and the sign-in ends with
    /// ``MSALInternalError/startURLReused``. ``MSALSystemBrowser`` and ``MSALBrowserCommand`` return
    /// `true`; the default is `false` (an app's own web UI gets the authorization URL itself).
    var launchesExternalBrowser: Bool { get }
}

extension MSALWebUI {
    /// `false`: an app's own web UI receives the authorization URL itself.
    public var launchesExternalBrowser: Bool { false }
}
