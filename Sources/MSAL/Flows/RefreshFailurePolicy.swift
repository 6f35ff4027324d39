/// What a refused refresh-token redemption does besides failing: decided from the error and the
/// refresh token's family, without I/O; ``SilentFlow`` carries it out.
///
/// - `invalid_grant` with sub-error `client_mismatch`: the service says this client is not in the
///   family whose refresh token it sent. The token is fine for the family's real members, so it
///   stays, and this client leaves the family (when the token was a family one).
/// - `invalid_grant` for a family refresh token tried only because this app had no AppMetadata
///   yet: it belongs to the family's apps, whose sign-in still works, so it stays, and repeats are
///   throttled (MSAL for Python does the same).
/// - Any other `invalid_grant` but `protection_policy_required`: the refresh token is dead and is
///   removed, unless another writer has replaced it meanwhile. (`protection_policy_required` is
///   not: once the app applies the policies, it works again.)
/// - Any other answer that needs the user (`interactionRequired`): the same request fails the same
///   way until the user acts, so repeats are throttled for ``interactionThrottle`` seconds (MSAL.NET: 120).
package enum RefreshFailurePolicy {
    /// What to do.
    package enum Action: Sendable, Equatable {
        /// The application leaves the refresh token's family; the token stays.
        case leaveFamily
        /// The token stays; repeats of the request are answered by the throttling cache for `seconds`.
        case keepAndThrottle(seconds: Double)
        /// The refresh token is removed from the cache, if it is still the one sent.
        case removeRefreshToken
        /// Repeats of the request are answered by the throttling cache for `seconds`.
        case throttle(seconds: Double)
        /// Nothing beyond the error.
        case none
    }

    /// How long a refresh that needs the user is not sent again, in seconds.
    package static let interactionThrottle: Double = 120

    /// The action after the token endpoint refused a refresh with `error` (its OAuth error,
    /// sub-error and code), for a refresh token of `familyID` (`nil`: not a family token) that was
    /// tried as a family token only because this app had no AppMetadata (`familyAssumed`).
    package static func action(
        oauthError: String?, subError: String?, code: MSALError, familyID: String?, familyAssumed: Bool
    ) -> Action {
        let invalidGrant = oauthError?.lowercased() == "invalid_grant"
        if invalidGrant, subError?.lowercased() == "client_mismatch" {
            return familyID != nil ? .leaveFamily : .none
        }
        if invalidGrant, familyAssumed {
            return .keepAndThrottle(seconds: interactionThrottle)
        }
        if invalidGrant, code != .serverProtectionPoliciesRequired {
            return .removeRefreshToken
        }
        if code == .interactionRequired {
            return .throttle(seconds: interactionThrottle)
        }
        return .none
    }
}
