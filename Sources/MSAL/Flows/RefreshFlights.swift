import MSALSupport

/// Lets concurrent silent requests that need the same refresh share one token request: the first
/// starts it, the others wait for its result; a caller whose task is cancelled stops waiting, and
/// the refresh goes on and is stored.
package typealias RefreshFlights = SingleFlight<RefreshFlightKey, MSALResult>

/// What makes two refreshes the same: account, cloud, tenant, scopes and claims.
package struct RefreshFlightKey: Hashable, Sendable {
    var home: String
    var environment: String
    var realm: String
    var scopes: [String]
    var claims: String?
}
