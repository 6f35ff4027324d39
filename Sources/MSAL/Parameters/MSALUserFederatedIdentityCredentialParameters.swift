import Foundation
import MSALSupport

/// The parameters of
/// ``MSALConfidentialClientApplication/acquireTokenByUserFederatedIdentityCredential(with:)``: an
/// agent identity's request for a user's tokens, presenting a federated identity credential (the
/// `user_fic` grant of Microsoft Entra's agent identities; MSAL.NET's
/// `AcquireTokenByUserFederatedIdentityCredential`, MSAL for Python's
/// `acquire_token_by_user_federated_identity_credential`).
///
/// ``assertion`` is the credential — typically the agent instance token the agent identity got
/// for `api://AzureADTokenExchange/.default` — and the user is named by ``username`` (UPN) or
/// ``userObjectId``, exactly one. ``MSALTokenParameters/scopes`` name the downstream API's
/// delegated scopes; ``MSALTokenParameters/account`` is not used.
public final class MSALUserFederatedIdentityCredentialParameters: MSALTokenParameters, @unchecked Sendable {
    // @unchecked Sendable: as MSALTokenParameters; the `let`s are immutable Strings and the other
    // stored properties are Mutexes.
    private let refresh = Mutex(false)
    private let chain = Mutex<Bool?>(nil)

    /// The federated identity credential (a signed JWT). Never logged or quoted in an error.
    public let assertion: String
    /// The user's UPN, when the user is named by it.
    public let username: String?
    /// The user's object id in the tenant, when the user is named by it.
    public let userObjectId: String?

    /// Parameters for the user whose UPN is `username`.
    public init(scopes: [String], assertion: String, username: String) {
        self.assertion = assertion
        self.username = username
        self.userObjectId = nil
        super.init(scopes: scopes)
    }

    /// Parameters for the user whose object id is `userObjectId`.
    public init(scopes: [String], assertion: String, userObjectId: String) {
        self.assertion = assertion
        self.username = nil
        self.userObjectId = userObjectId
        super.init(scopes: scopes)
    }

    /// Ignore the user's cached access token and present the credential again. Default `false`.
    ///
    /// A request with ``MSALTokenParameters/claimsRequest`` does the same.
    public var forceRefresh: Bool {
        get { refresh.withLock { $0 } }
        set { refresh.withLock { $0 = newValue } }
    }

    /// Whether this request's certificate assertion carries the certificate chain (`x5c`):
    /// overrides the credential's `sendX5C`, as MSAL.NET's `WithSendX5C` does per request. `nil`
    /// (the default) keeps the credential's; other credentials ignore it.
    public var sendX5C: Bool? {
        get { chain.withLock { $0 } }
        set { chain.withLock { $0 = newValue } }
    }
}
