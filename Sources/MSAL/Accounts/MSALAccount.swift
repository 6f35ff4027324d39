/// A signed-in account, as the cache knows it: one home account (`uid.utid`) in one cloud, with a
/// tenant profile per tenant it signed in to.
///
/// Accounts come from ``MSALPublicClientApplication/allAccounts()`` and friends; pass one back in
/// ``MSALSilentTokenParameters`` or to ``MSALPublicClientApplication/remove(_:)``. Instances are
/// immutable snapshots.
public final class MSALAccount: Sendable, Hashable, CustomStringConvertible {
    /// The home account id, `<objectId>.<tenantId>`.
    public let identifier: String?
    /// The username in the home tenant: `preferred_username`, else `email`, else `upn`.
    public let username: String?
    /// The cloud host the account was stored under, such as `login.windows.net`.
    public let environment: String
    /// The parts of ``identifier``.
    public let homeAccountId: MSALAccountId?
    /// One profile per tenant the account signed in to, the home tenant's first.
    public let tenantProfiles: [MSALTenantProfile]?
    /// The claims an app's external account provider gave for the account, which
    /// ``accountClaims`` answers instead of the cached ID token's (as MSAL for iOS keeps them);
    /// `nil` for an account known from the cache alone.
    let providedClaims: [String: any Sendable]?
    /// Whether the Linux identity broker knows the account (it listed it, or answered a token for
    /// it): its silent requests go to the broker (``MSALLinuxBrokerOptions``).
    package let isKnownToBroker: Bool

    /// Creates an account, for instance to test an app's own code without an identity provider.
    ///
    /// - Parameters:
    ///   - identifier: The home account id, `<objectId>.<tenantId>` (for a generic OpenID Connect
    ///     provider, the ID token's `sub`); ``homeAccountId`` is split from it.
    ///   - username: The username, or `nil`.
    ///   - environment: The cloud host, such as `login.microsoftonline.com`.
    ///   - tenantProfiles: The account's profiles, the home tenant's first.
    public convenience init(identifier: String, username: String?, environment: String, tenantProfiles: [MSALTenantProfile]) {
        self.init(
            identifier: identifier, username: username, environment: environment, tenantProfiles: tenantProfiles,
            homeAccountId: MSALAccountId(identifier: identifier))
    }

    /// An account whose identifier's parts the caller already split (`homeAccountId` is `identifier`'s).
    package convenience init(
        identifier: String, username: String?, environment: String, tenantProfiles: [MSALTenantProfile], homeAccountId: MSALAccountId
    ) {
        self.init(
            identifier: identifier, username: username, environment: environment, tenantProfiles: tenantProfiles,
            homeAccountId: homeAccountId, providedClaims: nil)
    }

    /// An account of an app's external account provider, or a cached one it enriched: any part
    /// may be missing, and `providedClaims` (when not `nil`) are the account's claims.
    package init(
        identifier: String?, username: String?, environment: String, tenantProfiles: [MSALTenantProfile]?,
        homeAccountId: MSALAccountId?, providedClaims: [String: any Sendable]?, isKnownToBroker: Bool = false
    ) {
        self.identifier = identifier
        self.username = username
        self.environment = environment
        self.homeAccountId = homeAccountId
        self.tenantProfiles = tenantProfiles
        self.providedClaims = providedClaims
        self.isKnownToBroker = isKnownToBroker
    }

    /// This account, marked as known to the Linux identity broker.
    package func knownToBroker() -> MSALAccount {
        isKnownToBroker
            ? self
            : MSALAccount(
                identifier: identifier, username: username, environment: environment, tenantProfiles: tenantProfiles,
                homeAccountId: homeAccountId, providedClaims: providedClaims, isKnownToBroker: true)
    }

    /// The account of an app token (client credentials, managed identity): no user, so no
    /// identifier, username, home account id or tenant profiles.
    package convenience init(application environment: String) {
        self.init(identifier: nil, username: nil, environment: environment, tenantProfiles: nil, homeAccountId: nil, providedClaims: nil)
    }

    /// The claims of the home tenant's ID token (of any tenant's, when the home tenant has none
    /// for this application), decoded on each access; for an account an app's external account
    /// provider described, the claims it gave.
    public var accountClaims: [String: any Sendable]? {
        if let providedClaims { return providedClaims }
        let profiles = tenantProfiles ?? []
        let home = profiles.first { $0.isHomeTenantProfile && $0.hasIDToken } ?? profiles.first { $0.hasIDToken }
        return home?.claims
    }

    /// Accounts are equal when their identifiers are, ignoring case.
    public static func == (lhs: MSALAccount, rhs: MSALAccount) -> Bool {
        lhs.identifier.map(CacheText.lowercased) == rhs.identifier.map(CacheText.lowercased)
    }

    /// Hashes the identifier, ignoring case, as `==` compares it.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier.map(CacheText.lowercased))
    }

    /// The identifier and environment; the username only as `<redacted>`, since it is personal data.
    public var description: String {
        "MSALAccount(identifier: \(identifier ?? "nil"), environment: \(environment), username: \(username == nil ? "nil" : "<redacted>"))"
    }
}
