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
    /// The RFC 7638 thumbprint of the DPoP key a public client's refresh token is bound to (RFC 9449 §5).
    var dpopThumbprint: String? = nil
    var status = Status.active
}
