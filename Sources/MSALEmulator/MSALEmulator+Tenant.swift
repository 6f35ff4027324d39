extension MSALEmulator {
    /// A directory (tenant) the emulator hosts.
    ///
    /// Its authority is `http://127.0.0.1:<port>/<id>` (or `/<domain>`); tokens it issues carry
    /// `tid` = ``id`` and the issuer `http://127.0.0.1:<port>/<id>/v2.0`.
    public struct Tenant: Sendable, Hashable {
        /// The tenant id: a GUID, compared case-insensitively and written in lower case.
        public var id: String
        /// A domain that names the tenant in URLs too, such as `contoso.example`; `nil` for none.
        public var domain: String?
        /// The name shown on the emulator's pages and by `msal emulator`.
        public var displayName: String

        /// Creates a tenant.
        ///
        /// - Parameters:
        ///   - id: A GUID such as `7f2b6a55-3c1d-4e8f-9a0b-1c2d3e4f5a6b`.
        ///   - domain: Another name of the tenant in URLs; letters, digits, `-` and `.` only.
        ///   - displayName: `nil` uses the domain, else the id.
        public init(id: String, domain: String? = nil, displayName: String? = nil) {
            self.id = id.lowercased()
            self.domain = domain?.lowercased()
            self.displayName = displayName ?? domain ?? id
        }
    }
}
