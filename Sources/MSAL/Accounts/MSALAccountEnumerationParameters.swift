/// Which accounts ``MSALPublicClientApplication/accounts(for:)`` returns.
public struct MSALAccountEnumerationParameters: Sendable, Hashable {
    /// Only the account with this home account id.
    public var identifier: String?
    /// Only accounts with this username (compared without regard to case).
    public var username: String?
    /// Only accounts with a tenant profile whose object id is this.
    public var tenantProfileIdentifier: String?
    /// Only accounts this application holds a refresh token for (default `true`); `false` also
    /// returns accounts known only from an ID token.
    public var returnOnlySignedInAccounts: Bool = true

    /// All accounts.
    public init() {}

    /// Accounts with this home account id.
    public init(identifier: String?) {
        self.identifier = identifier
    }

    /// Accounts with this home account id and username.
    public init(identifier: String?, username: String) {
        self.identifier = identifier
        self.username = username
    }

    /// Accounts with a tenant profile of this object id.
    public init(tenantProfileIdentifier: String) {
        self.tenantProfileIdentifier = tenantProfileIdentifier
    }
}
