import Foundation

/// A device authorization (RFC 8628) waiting for its user.
struct DeviceCodeGrant: Sendable {
    enum Status: Sendable {
        case pending
        /// Approved for the user (home object id) in the tenant.
        case approved(userID: String, tenantID: String)
        case declined
        /// Redeemed for tokens; further polls fail.
        case redeemed
    }

    var userCode: String
    var clientID: String
    var scope: String
    /// The tenant of the request path (a hosted tenant's id, `common` or `organizations`).
    var tenantSegment: String
    var expiresAt: Date
    /// Seconds the client must wait between polls (grows by 5 on each `slow_down`).
    var interval: Int
    var lastPoll: Date?
    var status = Status.pending
}
