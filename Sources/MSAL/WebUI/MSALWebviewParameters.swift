import Foundation
import MSALSupport

/// How an interactive request reaches the user on Linux, and how long it waits for them.
///
/// Three ways, one initializer each:
/// - ``init()``: the system browser (`$BROWSER`, then `xdg-open`), see ``MSALSystemBrowser``;
/// - ``init(browserCommand:)``: a launcher command of the app's choice, see ``MSALBrowserCommand``;
/// - ``init(webUI:)``: an app-supplied ``MSALWebUI`` (an embedded web view, a test driver).
///
/// When the browser follows the redirect, swift-msal's loopback listener receives it on
/// `http://localhost:<port>` and answers the browser with a small page (``successPageHTML``,
/// ``failurePageHTML``). A reference type, as in MSAL for iOS; safe to share between tasks.
public final class MSALWebviewParameters: Sendable {
    private struct Values: Sendable {
        var timeout: TimeInterval = MSALWebviewParameters.defaultTimeout
        var successPageHTML: String?
        var failurePageHTML: String?
        var browserUnavailableHandler: (@Sendable (URL) -> Void)?
        // MSAL for iOS's settings, kept only so that they read back as set (see `webviewType`).
        var webviewType: MSALWebviewType = .default
        var prefersEphemeralWebBrowserSession = false
    }

    /// The default ``timeout``: 300 seconds.
    public static let defaultTimeout: TimeInterval = 300

    /// The web UI that presents the authorization URL: the system browser launcher, a command launcher or
    /// the app's own.
    package let webUI: any MSALWebUI
    private let values = Mutex(Values())

    /// Presents sign-in in the system browser: each command of `$BROWSER`, then `xdg-open`.
    public init() {
        self.webUI = MSALSystemBrowser()
    }

    /// Presents sign-in with a custom launcher.
    ///
    /// - Parameter browserCommand: An argument vector run without a shell; `%s` in an argument is replaced by
    ///   the URL, else the URL is appended. For example `["firefox", "--private-window", "%s"]`.
    public init(browserCommand: [String]) {
        self.webUI = MSALBrowserCommand(arguments: browserCommand)
    }

    /// Presents sign-in with an app-supplied web UI.
    public init(webUI: any MSALWebUI) {
        self.webUI = webUI
    }

    /// An independent copy (MSAL for iOS's `copy()`, from `NSCopying`): the same web UI and the
    /// settings as they are now; changing either object later does not change the other.
    public func copy() -> MSALWebviewParameters {
        let copy = MSALWebviewParameters(webUI: webUI)
        let settings = values.withLock { $0 }
        copy.values.withLock { $0 = settings }
        return copy
    }

    /// How long the loopback listener waits for the browser's redirect, in seconds. Default 300.
    ///
    /// When it passes, the request fails with ``MSALInternalError/redirectTimeout`` and the port is closed.
    /// A value that is not positive and finite makes the request fail with
    /// ``MSALInternalError/internalErrorInvalidParameter``; one longer than a day is shortened to a day.
    public var timeout: TimeInterval {
        get { values.withLock { $0.timeout } }
        set { values.withLock { $0.timeout = newValue } }
    }

    /// The HTML page the browser shows after a successful redirect; `nil` is a small built-in page.
    ///
    /// Served as `text/html; charset=utf-8` exactly as given.
    public var successPageHTML: String? {
        get { values.withLock { $0.successPageHTML } }
        set { values.withLock { $0.successPageHTML = newValue } }
    }

    /// Called with the sign-in URL to show the user when no browser could be started (an SSH session, a
    /// container, a server without a desktop).
    ///
    /// For the built-in launchers the URL is the loopback listener's single-use start URL,
    /// `http://localhost:PORT/msal-start/…`, which redirects to the authorization URL (see
    /// ``MSALWebUI/launchesExternalBrowser``); it can be opened once.
    ///
    /// With a handler the sign-in goes on: the loopback listener keeps waiting for the redirect for
    /// ``timeout`` seconds while the user opens the URL in a browser of their own — on this
    /// machine, or on another one through `ssh -L PORT:localhost:PORT` for the redirect URI's
    /// port. Without one (the default), the request fails at once with
    /// ``MSALInternalError/browserLaunchFailed`` and the URL in ``MSALFailure/authorizationURL``.
    /// The handler is called at most once per request, on an arbitrary thread; it is not called
    /// when an app-supplied web UI captures redirects itself (no loopback listener waits then).
    public var browserUnavailableHandler: (@Sendable (URL) -> Void)? {
        get { values.withLock { $0.browserUnavailableHandler } }
        set { values.withLock { $0.browserUnavailableHandler = newValue } }
    }

    /// The HTML page the browser shows when the redirect carries an error; `nil` is a small built-in page.
    ///
    /// `{{error}}` and `{{error_description}}` in it are replaced by the redirect's `error` and
    /// `error_description`, HTML-escaped, stripped of control characters and shortened to 512 characters.
    public var failurePageHTML: String? {
        get { values.withLock { $0.failurePageHTML } }
        set { values.withLock { $0.failurePageHTML = newValue } }
    }

    // MARK: MSAL for iOS's settings of Apple web views, which Linux does not have

    /// The Apple web view MSAL for iOS signs in with. Default ``MSALWebviewType/default``.
    ///
    /// Kept so that code written for MSAL for iOS compiles: the value reads back as set, but nothing
    /// reads it on Linux. The web UI is the one this object was created with: the system browser
    /// (``init()``), a command (``init(browserCommand:)``) or an app-supplied ``MSALWebUI``
    /// (``init(webUI:)``), which is how to embed a web view.
    @available(*, deprecated, message: "No Apple web views on Linux: stored, never read; the initializer chooses the web UI")
    public var webviewType: MSALWebviewType {
        get { values.withLock { $0.webviewType } }
        set { values.withLock { $0.webviewType = newValue } }
    }

    /// Whether MSAL for iOS asks `ASWebAuthenticationSession` for a private browser session, one that
    /// shares no cookies with the browser. Default `false`.
    ///
    /// Kept so that code written for MSAL for iOS compiles: the value reads back as set, but nothing
    /// reads it on Linux. For a private window, give the browser its own flag with
    /// ``init(browserCommand:)``, such as `["firefox", "--private-window", "%s"]` or
    /// `["chromium", "--incognito", "%s"]`.
    @available(*, deprecated, message: "No ASWebAuthenticationSession on Linux: stored, never read; use a private-window browser command")
    public var prefersEphemeralWebBrowserSession: Bool {
        get { values.withLock { $0.prefersEphemeralWebBrowserSession } }
        set { values.withLock { $0.prefersEphemeralWebBrowserSession = newValue } }
    }
}

extension MSALWebviewParameters {
    /// Whether the web UI is the app's own (which may capture a non-loopback redirect itself)
    /// rather than a browser launcher.
    package var isAppSuppliedWebUI: Bool {
        !(webUI is MSALSystemBrowser) && !(webUI is MSALBrowserCommand)
    }
}
