/// The kind of Apple web view MSAL for iOS signs in with (MSAL for iOS's `MSALWebviewType`), with
/// its raw values.
///
/// It exists only so that code written for MSAL for iOS compiles: on Linux the web UI is chosen
/// by the ``MSALWebviewParameters`` initializer (the system browser, a browser command or an
/// app-supplied ``MSALWebUI``), and ``MSALWebviewParameters/webviewType`` is stored but never read.
public enum MSALWebviewType: Int, Sendable, Hashable, CaseIterable {
    /// MSAL for iOS's own choice of web view. Changes nothing on Linux.
    case `default` = 0
    /// Apple's `ASWebAuthenticationSession`. Changes nothing on Linux.
    case authenticationSession = 1
    /// Apple's `SFSafariViewController` (iOS only). Changes nothing on Linux.
    case safariViewController = 2
    /// A `WKWebView` that MSAL for iOS embeds. Changes nothing on Linux; an embedded web view is an
    /// app-supplied ``MSALWebUI`` there.
    case wkWebView = 3
}
