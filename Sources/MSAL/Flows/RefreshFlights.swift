import MSALSupport

/// Lets concurrent silent requests that need the same refresh share one token request: the first
/// starts it, the others wait for its result; a caller whose task is cancelled stops waiting, and
/// the refresh goes on and is stored.
package typealias RefreshFlights = SingleFlight<RefreshFlightKey, MSALResult>

/// What makes two token requests the same: whose token, its scheme, cloud, tenant, scopes and claims.
package struct RefreshFlightKey: Hashable, Sendable {
    /// Whose token a flight obtains. The kinds never meet, whatever their strings hold.
    package enum Subject: Hashable, Sendable {
        /// A signed-in user's, by home account id (a refresh-token redemption).
        case account(home: String)
        /// The application's own (client credentials), by the application cache's home for the tenant.
        case application(home: String)
        /// A user's, obtained on behalf of a caller, by the hash of the caller's assertion.
        case onBehalfOf(assertionHash: String)
        /// A managed identity's, by the identity's cache client id.
        case managedIdentity(clientID: String)
    }

    var subject: Subject
    var scheme: TokenScheme
    var environment: String
    var realm: String
    var scopes: [String]
    var claims: String?
    /// The request's extended cache key (``CacheExtendedKey``): requests for tokens cached apart
    /// never share a flight.
    var extendedKey: String? = nil
}
