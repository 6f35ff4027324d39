/// Which managed identity of an Azure resource asks for tokens.
///
/// A resource (a VM, an App Service app, a container) has at most one system-assigned identity,
/// created and deleted with it, and any number of user-assigned identities, each named by its
/// client id, object (principal) id or ARM resource id.
public enum MSALManagedIdentity: Sendable, Hashable, CustomStringConvertible {
    /// How a user-assigned identity is named.
    public enum UserAssignedID: Sendable, Hashable {
        /// The identity's client (application) id.
        case clientID(String)
        /// The identity's object (principal) id.
        case objectID(String)
        /// The identity's ARM resource id:
        /// `/subscriptions/…/resourceGroups/…/providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>`.
        case resourceID(String)

        /// The id itself.
        public var value: String {
            switch self {
            case .clientID(let id), .objectID(let id), .resourceID(let id): id
            }
        }
    }

    /// The resource's system-assigned identity.
    case systemAssigned
    /// A user-assigned identity attached to the resource.
    case userAssigned(UserAssignedID)

    /// The client id the token cache stores the identity's tokens under: the user-assigned id as
    /// given, or `system_assigned_managed_identity` (as MSAL.NET writes it).
    public var cacheClientID: String {
        switch self {
        case .systemAssigned: "system_assigned_managed_identity"
        case .userAssigned(let id): id.value
        }
    }

    /// `system-assigned`, or the kind of user-assigned id and the id (ids are not secrets).
    public var description: String {
        switch self {
        case .systemAssigned: "system-assigned"
        case .userAssigned(.clientID(let id)): "user-assigned (client id \(id))"
        case .userAssigned(.objectID(let id)): "user-assigned (object id \(id))"
        case .userAssigned(.resourceID(let id)): "user-assigned (resource id \(id))"
        }
    }
}
