import Foundation
import MSALSupport

/// The parameters of ``MSALPublicClientApplication/signout(with:signoutParameters:completionBlock:)``.
public final class MSALSignoutParameters: Sendable {
    private struct Values: Sendable {
        var webviewParameters: MSALWebviewParameters
        var signoutFromBrowser = false
        var correlationId: UUID?
    }

    private let values: Mutex<Values>

    /// Creates sign-out parameters; the browser is only opened when ``signoutFromBrowser`` is set.
    public init(webviewParameters: MSALWebviewParameters) {
        values = Mutex(Values(webviewParameters: webviewParameters))
    }

    /// Creates sign-out parameters that use the system browser when ``signoutFromBrowser`` is set.
    public convenience init() {
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

    /// The correlation id for the sign-out's calls; a new one when `nil`.
    public var correlationId: UUID? {
        get { values.withLock { $0.correlationId } }
        set { values.withLock { $0.correlationId = newValue } }
    }
}
