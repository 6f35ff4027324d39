extension MSALEmulator {
    /// An Azure managed identity the emulator issues tokens for at its managed-identity endpoints
    /// (IMDS, App Service, Azure Arc; see `docs/emulator.md`).
    ///
    /// Its tokens are app tokens signed by the emulator's key: `aud` the requested resource,
    /// `appid` and `azp` ``clientID``, `oid` and `sub` ``objectID``, `tid` ``tenantID``, `xms_mirid`
    /// ``resourceID``, `idtyp: app`.
    public struct ManagedIdentity: Sendable, Hashable {
        /// The client (application) id of the identity's service principal: a GUID, written in lower case.
        public var clientID: String
        /// The object (principal) id of the identity's service principal: a GUID, written in lower case.
        public var objectID: String
        /// The Azure resource id: for a user-assigned identity
        /// `/subscriptions/<id>/resourcegroups/<group>/providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>`,
        /// for a system-assigned one the id of the resource it belongs to (a virtual machine, an app).
        public var resourceID: String
        /// The tenant the identity lives in: a hosted tenant's id.
        public var tenantID: String
        /// Whether this is the system-assigned identity, the one a request without an identity
        /// parameter gets. At most one identity of a configuration may be system-assigned.
        public var isSystemAssigned: Bool

        /// Creates a managed identity.
        ///
        /// - Parameters:
        ///   - clientID: A GUID.
        ///   - objectID: A GUID.
        ///   - resourceID: An Azure resource id starting with `/subscriptions/`.
        ///   - tenantID: The id of a tenant of the configuration.
        ///   - isSystemAssigned: `true` for the system-assigned identity; default `false` (user-assigned).
        public init(clientID: String, objectID: String, resourceID: String, tenantID: String, isSystemAssigned: Bool = false) {
            self.clientID = clientID.lowercased()
            self.objectID = objectID.lowercased()
            self.resourceID = resourceID
            self.tenantID = tenantID.lowercased()
            self.isSystemAssigned = isSystemAssigned
        }
    }
}
