import Foundation
import MSALSupport

/// The parameters of ``MSALPublicClientApplication/signout(with:signoutParameters:completionBlock:)``.
///
/// A reference type, as in MSAL for iOS; safe to share between threads.
public final class MSALSignoutParameters: MSALParameters, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` `Mutex` of Sendable values.

    private struct Values: Sendable {
        var webviewParameters: MSALWebviewParameters
        var signoutFromBrowser = false
        var wipeAccount = false
        var wipeCacheForAllAccounts = false
        var extraQueryParameters: [String: String]?
    }

    private let values: Mutex<Values>

    /// Creates sign-out parameters; the browser is only opened when ``signoutFromBrowser`` is set.
    public init(webviewParameters: MSALWebviewParameters) {
        values = Mutex(Values(webviewParameters: webviewParameters))
        super.init()
    }

    /// Creates sign-out parameters that use the system browser when ``signoutFromBrowser`` is set.
    public convenience override init() {
        self.init(webviewParameters: MSALWebviewParameters())
    }

    /// How the end-session page reaches the user.
    public var webviewParameters: MSALWebviewParameters {
        get { values.withLock { $0.webviewParameters } }
        set { values.withLock { $0.webviewParameters = newValue } }
    }

    /// Also end the identity provider's browser session by opening its end-session endpoint.
    /// Default `false`: only this application's cache is cleared.
    public var signoutFromBrowser: Bool {
        get { values.withLock { $0.signoutFromBrowser } }
        set { values.withLock { $0.signoutFromBrowser = newValue } }
    }

    /// Also remove the account from every application that shares this token cache: its accounts,
    /// ID tokens, access tokens and refresh tokens of every client id, not only this
    /// application's. Default `false`. (MSAL for iOS removes it from a shared keychain group; on
    /// Linux the shared store is the cache file or Secret Service item the applications share.)
    public var wipeAccount: Bool {
        get { values.withLock { $0.wipeAccount } }
        set { values.withLock { $0.wipeAccount = newValue } }
    }

    /// Also empty the whole token cache this application uses, every account of every client id
    /// and cloud. Default `false`; a destructive operation, meant for resetting a device. (MSAL for
    /// iOS also wipes its broker's and partner apps' keychain locations, which do not exist on Linux.)
    public var wipeCacheForAllAccounts: Bool {
        get { values.withLock { $0.wipeCacheForAllAccounts } }
        set { values.withLock { $0.wipeCacheForAllAccounts = newValue } }
    }

    /// Extra query parameters for the end-session endpoint, not URL-encoded (swift-msal encodes
    /// them). Used only with ``signoutFromBrowser``.
    public var extraQueryParameters: [String: String]? {
        get { values.withLock { $0.extraQueryParameters } }
        set { values.withLock { $0.extraQueryParameters = newValue } }
    }
}
