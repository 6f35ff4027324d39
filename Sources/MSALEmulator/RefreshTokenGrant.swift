import Foundation

/// A refresh token the token endpoint issued.
struct RefreshTokenGrant: Sendable {
    enum Status: Sendable {
        case active
        /// Used once and replaced by a new token.
        case rotated
        /// Revoked by an admin call or a replayed authorization code.
        case revoked
    }

    var clientID: String
    /// A family refresh token: any family client may redeem it.
    var isFamily: Bool
    var userID: String
    var tenantID: String
    var expiresAt: Date
    var lineage: String
    var status = Status.active
}
