import Foundation
import MSALSupport

/// What every token request says: the scopes, the account, the authority and the extras.
///
/// A reference type, as in MSAL for iOS, so `let parameters = …; parameters.account = account`
/// ports unchanged. Safe to share between tasks; a request reads the values once, when it starts.
public class MSALTokenParameters: MSALParameters, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` of a Sendable type or lives in the
    // `Mutex`; the class is `public` (not `open`), so only this module's subclasses exist, and they
    // follow the same rule.

    package struct Values: Sendable {
        var scopes: [String]
        var account: MSALAccount?
        var authority: MSALAuthority?
        var claimsRequest: MSALClaimsRequest?
        var extraQueryParameters: [String: String]?
        var correlationId: UUID?
        /// `nil`: bearer.
        var authenticationScheme: (any MSALAuthenticationSchemeProtocol)?
    }

    private let values: Mutex<Values>

    /// Creates parameters for `scopes`.
    public init(scopes: [String]) {
        values = Mutex(Values(scopes: scopes))
        super.init()
    }

    /// The scopes to request, such as `["User.Read"]` or `["https://graph.microsoft.com/.default"]`.
    /// `openid`, `profile` and `offline_access` are always added.
    public var scopes: [String] {
        get { values.withLock { $0.scopes } }
        set { values.withLock { $0.scopes = newValue } }
    }

    /// The account to get a token for. Required for silent requests; for interactive ones it
    /// pre-fills the username and the signed-in user must be this account.
    public var account: MSALAccount? {
        get { values.withLock { $0.account } }
        set { values.withLock { $0.account = newValue } }
    }

    /// The authority for this request, overriding the configuration's (for example the tenant of
    /// a guest account).
    public var authority: MSALAuthority? {
        get { values.withLock { $0.authority } }
        set { values.withLock { $0.authority = newValue } }
    }

    /// Additional claims to request, such as a claims challenge from a resource. A request with
    /// claims never answers from the cache.
    public var claimsRequest: MSALClaimsRequest? {
        get { values.withLock { $0.claimsRequest } }
        set { values.withLock { $0.claimsRequest = newValue } }
    }

    /// Extra query parameters sent to the authorization and token endpoints.
    public var extraQueryParameters: [String: String]? {
        get { values.withLock { $0.extraQueryParameters } }
        set { values.withLock { $0.extraQueryParameters = newValue } }
    }

    /// The correlation id sent with the request's HTTP calls and reported in its result and
    /// errors; a new one is made when `nil`.
    public override var correlationId: UUID? {
        get { values.withLock { $0.correlationId } }
        set { values.withLock { $0.correlationId = newValue } }
    }

    /// The scheme the token is asked for and presented with: ``MSALAuthenticationSchemeBearer``
    /// (the default) or ``MSALAuthenticationSchemePop`` (a token bound to the application's key,
    /// presented as a signed HTTP request). Setting `nil` is the default.
    public var authenticationScheme: (any MSALAuthenticationSchemeProtocol)? {
        get { values.withLock { $0.authenticationScheme } ?? MSALAuthenticationSchemeBearer.shared }
        set { values.withLock { $0.authenticationScheme = newValue } }
    }

    /// One consistent copy of the values, taken when a request starts.
    package var snapshot: Values { values.withLock { $0 } }

    /// `body`'s answer from the values, read under the lock without copying them all (a cache
    /// hit's fast path reads three of the six). `body` must not touch these parameters again.
    package func withValues<T>(_ body: (borrowing Values) -> T) -> T {
        values.withLock { body($0) }
    }
}
