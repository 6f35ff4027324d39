extension MSALEmulator {
    /// A person who can sign in.
    ///
    /// The user belongs to a home tenant (``tenantID``, with ``objectID`` as `oid` there) and may be a
    /// guest in other tenants (``guestProfiles``), with another object id in each — as on Microsoft
    /// Entra. Tokens for the home tenant and for a guest tenant share the home account
    /// (`client_info` = `{uid: objectID, utid: tenantID}`) but differ in `oid` and `tid`.
    public struct User: Sendable, Hashable {
        /// A profile of the user in a tenant other than the home one.
        public struct GuestProfile: Sendable, Hashable {
            /// The tenant the user is a guest in.
            public var tenantID: String
            /// The user's object id (`oid`) in that tenant.
            public var objectID: String

            /// Creates a guest profile.
            public init(tenantID: String, objectID: String) {
                self.tenantID = tenantID.lowercased()
                self.objectID = objectID.lowercased()
            }
        }

        /// The object id (`oid`) in the home tenant, a GUID; also the `uid` of `client_info`.
        public var objectID: String
        /// The home tenant's id (`tid` of home-tenant tokens, `utid` of `client_info`).
        public var tenantID: String
        /// The sign-in name (`preferred_username`), such as `adele@contoso.example`; unique, case-insensitive.
        public var username: String
        /// The display name (`name`).
        public var name: String
        /// The tenants the user is a guest in.
        public var guestProfiles: [GuestProfile]

        /// Creates a user.
        public init(objectID: String, tenantID: String, username: String, name: String, guestProfiles: [GuestProfile] = []) {
            self.objectID = objectID.lowercased()
            self.tenantID = tenantID.lowercased()
            self.username = username
            self.name = name
            self.guestProfiles = guestProfiles
        }

        /// The object id the user has in `tenantID`, or `nil` when the user has no profile there.
        public func objectID(inTenant tenantID: String) -> String? {
            let tenant = tenantID.lowercased()
            if tenant == self.tenantID { return objectID }
            return guestProfiles.first { $0.tenantID == tenant }?.objectID
        }
    }
}
