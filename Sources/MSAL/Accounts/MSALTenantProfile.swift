/// An account's presence in one tenant: its home tenant or a tenant it is a guest in.
public struct MSALTenantProfile: Sendable, Hashable {
    /// The account's object id in this tenant (`local_account_id`: the `oid` claim, else `sub`).
    package let objectID: String
    /// The cloud host the profile was stored under.
    package let cloud: String
    /// The tenant id (the cache entry's realm).
    package let realm: String

    /// The account's object id in this tenant (`local_account_id`: the `oid` claim, else `sub`).
    /// Optional, as MSAL for iOS declares it; swift-msal always knows it.
    public var identifier: String? { objectID }
    /// The cloud host the profile was stored under. Optional, as MSAL for iOS declares it;
    /// swift-msal always knows it.
    public var environment: String? { cloud }
    /// The tenant id (the cache entry's realm). Optional, as MSAL for iOS declares it; swift-msal
    /// always knows it.
    public var tenantId: String? { realm }
    /// Whether this is the account's home tenant.
    public let isHomeTenantProfile: Bool
    /// The raw ID token issued in this tenant to this application, when the cache holds one: a
    /// string of its own, so a profile an app keeps never keeps the cache document in memory.
    let idToken: String?

    /// Whether the cache holds an ID token for this tenant and application.
    var hasIDToken: Bool { idToken != nil }

    /// Creates a tenant profile, for instance to test an app's own code without an identity provider.
    ///
    /// - Parameters:
    ///   - identifier: The account's object id in the tenant.
    ///   - environment: The cloud host.
    ///   - tenantId: The tenant id.
    ///   - isHomeTenantProfile: Whether the tenant is the account's home tenant.
    ///   - idToken: A raw ID token whose claims ``claims`` decodes, or `nil`.
    public init(identifier: String, environment: String, tenantId: String, isHomeTenantProfile: Bool, idToken: String?) {
        self.objectID = identifier
        self.cloud = environment
        self.realm = tenantId
        self.isHomeTenantProfile = isHomeTenantProfile
        self.idToken = idToken
    }

    /// The claims of the ID token issued in this tenant, decoded on each access; `nil` when the
    /// cache holds no ID token for this tenant and application.
    public var claims: [String: any Sendable]? {
        idToken.flatMap { MSALClaims.dictionary(fromIDToken: $0) }
    }

    /// Profiles are equal when their account, cloud, tenant and home flag are.
    public static func == (lhs: MSALTenantProfile, rhs: MSALTenantProfile) -> Bool {
        lhs.objectID == rhs.objectID && lhs.cloud == rhs.cloud && lhs.realm == rhs.realm
            && lhs.isHomeTenantProfile == rhs.isHomeTenantProfile
    }

    /// Hashes the account identifier and the tenant.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(realm)
    }
}
