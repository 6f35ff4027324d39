import Foundation
import MSALSupport

/// The parameters of ``MSALPublicClientApplication/acquireToken(with:completionBlock:)``.
public final class MSALInteractiveTokenParameters: MSALTokenParameters, @unchecked Sendable {
    /// The interactive values, copied at once when a request starts (``interactiveSnapshot``).
    package struct Interactive: Sendable {
        var promptType: MSALPromptType = .default
        var loginHint: String?
        var domainHint: String?
        var extraScopesToConsent: [String]?
        var webviewParameters: MSALWebviewParameters
        var preferredAuthMethod: MSALPreferredAuthMethod = .none
    }

    private let interactive: Mutex<Interactive>

    /// Creates parameters for `scopes` that reach the user as `webviewParameters` says.
    public init(scopes: [String], webviewParameters: MSALWebviewParameters) {
        interactive = Mutex(Interactive(webviewParameters: webviewParameters))
        super.init(scopes: scopes)
    }

    /// Creates parameters for `scopes` that open the system browser.
    public override init(scopes: [String]) {
        interactive = Mutex(Interactive(webviewParameters: MSALWebviewParameters()))
        super.init(scopes: scopes)
    }

    /// What the sign-in page asks of the user. Default ``MSALPromptType/promptIfNecessary`` (no `prompt`), as in MSAL for iOS.
    public var promptType: MSALPromptType {
        get { interactive.withLock { $0.promptType } }
        set { interactive.withLock { $0.promptType = newValue } }
    }

    /// The username to pre-fill (`login_hint`); defaults to the ``MSALTokenParameters/account``'s.
    public var loginHint: String? {
        get { interactive.withLock { $0.loginHint } }
        set { interactive.withLock { $0.loginHint = newValue } }
    }

    /// The tenant or identity provider to go to directly (`domain_hint`), such as `consumers`.
    public var domainHint: String? {
        get { interactive.withLock { $0.domainHint } }
        set { interactive.withLock { $0.domainHint = newValue } }
    }

    /// Scopes of other resources to consent to now, so later silent requests for them succeed.
    public var extraScopesToConsent: [String]? {
        get { interactive.withLock { $0.extraScopesToConsent } }
        set { interactive.withLock { $0.extraScopesToConsent = newValue } }
    }

    /// The sign-in method to offer first, as MSAL for iOS's `preferredAuthMethod`: with
    /// ``MSALPreferredAuthMethod/QRPIN`` the sign-in page opens on the QR code and PIN method
    /// (the authorization request carries `pc=18`, as MSAL for iOS sends it). Default
    /// ``MSALPreferredAuthMethod/none``.
    public var preferredAuthMethod: MSALPreferredAuthMethod {
        get { interactive.withLock { $0.preferredAuthMethod } }
        set { interactive.withLock { $0.preferredAuthMethod = newValue } }
    }

    /// How the user is reached: the system browser, a command, or the app's own web UI.
    public var webviewParameters: MSALWebviewParameters {
        get { interactive.withLock { $0.webviewParameters } }
        set { interactive.withLock { $0.webviewParameters = newValue } }
    }

    /// One consistent copy of the interactive values, taken when a request starts.
    package var interactiveSnapshot: Interactive { interactive.withLock { $0 } }
}
