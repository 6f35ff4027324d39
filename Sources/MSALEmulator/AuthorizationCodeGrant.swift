import Foundation

/// An authorization code the authorize endpoint issued, until redeemed or expired.
struct AuthorizationCodeGrant: Sendable {
    var clientID: String
    var redirectURI: String
    var codeChallenge: String
    var nonce: String?
    var scope: String
    /// The signed-in user's home object id.
    var userID: String
    /// The tenant the tokens are for.
    var tenantID: String
    var expiresAt: Date
    /// Shared by the code and every refresh token descended from it, so a replayed code can revoke them.
    var lineage: String
    /// The `dpop_jkt` of the authorization request: the DPoP key whose proof must redeem the code (RFC 9449 §10).
    var dpopThumbprint: String? = nil
    var isRedeemed = false
}
