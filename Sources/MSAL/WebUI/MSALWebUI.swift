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
    /// - Throws: An ``MSALError`` (or any error) when the URL could not be shown.
    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL?
}
