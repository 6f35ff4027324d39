import MSALSupport

/// Which accounts ``MSALPublicClientApplication/accounts(for:)`` and
/// ``MSALPublicClientApplication/accountsFromDevice(for:completionBlock:)`` return.
///
/// A reference type, as in MSAL for iOS: the filters are fixed when it is made, and
/// ``returnOnlySignedInAccounts`` and the inherited ``MSALParameters/completionBlockQueue`` can be
/// set on a `let`. Safe to share between threads.
public final class MSALAccountEnumerationParameters: MSALParameters, @unchecked Sendable {
    // @unchecked Sendable: the stored properties are `let`s of Sendable types and a `Mutex`.

    /// Only the account with this home account id.
    public let identifier: String?
    /// Only accounts with this username (compared without regard to case).
    public let username: String?
    /// Only accounts with a tenant profile whose object id is this.
    public let tenantProfileIdentifier: String?

    private let signedInOnly = Mutex(true)

    /// Only accounts this application holds a refresh token for (default `true`); `false` also
    /// returns accounts known only from an ID token.
    public var returnOnlySignedInAccounts: Bool {
        get { signedInOnly.withLock { $0 } }
        set { signedInOnly.withLock { $0 = newValue } }
    }

    private init(identifier: String?, username: String?, tenantProfileIdentifier: String?) {
        self.identifier = identifier
        self.username = username
        self.tenantProfileIdentifier = tenantProfileIdentifier
        super.init()
    }

    /// All accounts.
    public convenience override init() {
        self.init(identifier: nil, username: nil, tenantProfileIdentifier: nil)
    }

    /// Accounts with this home account id.
    public convenience init(identifier: String) {
        self.init(identifier: identifier, username: nil, tenantProfileIdentifier: nil)
    }

    /// Accounts with this home account id (any, when `nil`) and username.
    public convenience init(identifier: String?, username: String) {
        self.init(identifier: identifier, username: username, tenantProfileIdentifier: nil)
    }

    /// Accounts with a tenant profile of this object id.
    public convenience init(tenantProfileIdentifier: String) {
        self.init(identifier: nil, username: nil, tenantProfileIdentifier: tenantProfileIdentifier)
    }
}
