import Foundation
import MSALSupport

/// The parameters of ``MSALConfidentialClientApplication/initiateAuthorizationCodeFlow(with:)``:
/// a web app's sign-in of a user, by redirecting the user's browser to the authority.
///
/// ``MSALTokenParameters/scopes`` are the resource scopes the app wants a token for (the OpenID
/// Connect scopes are added); ``MSALTokenParameters/claimsRequest``, ``MSALTokenParameters/correlationId``
/// and ``MSALTokenParameters/extraQueryParameters`` apply. ``MSALTokenParameters/authority`` is
/// not used: the flow goes to the application's configured authority.
public final class MSALAuthorizationCodeParameters: MSALTokenParameters, @unchecked Sendable {
    // @unchecked Sendable: as MSALTokenParameters; `redirectUri` is immutable and the other
    // stored property is a Mutex.
    private struct Values: Sendable {
        var promptType: MSALPromptType = .default
        var loginHint: String?
        var domainHint: String?
    }

    /// Where the authority sends the browser back: the web app's registered redirect URI, which
    /// must be `https` (plain `http` only on a loopback host, for development).
    public let redirectUri: String
    private let values = Mutex(Values())

    /// Creates parameters for `scopes`, coming back to `redirectUri`.
    public init(scopes: [String], redirectUri: String) {
        self.redirectUri = redirectUri
        super.init(scopes: scopes)
    }

    /// The `prompt` sent (default: none, the service decides).
    public var promptType: MSALPromptType {
        get { values.withLock { $0.promptType } }
        set { values.withLock { $0.promptType = newValue } }
    }

    /// A username to fill in on the sign-in page (`login_hint`).
    public var loginHint: String? {
        get { values.withLock { $0.loginHint } }
        set { values.withLock { $0.loginHint = newValue } }
    }

    /// The domain of the user's home tenant (`domain_hint`), skipping the account picker.
    public var domainHint: String? {
        get { values.withLock { $0.domainHint } }
        set { values.withLock { $0.domainHint = newValue } }
    }
}
