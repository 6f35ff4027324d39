import Testing

@testable import MSAL

/// `RefreshFailurePolicy` alone: what each refused refresh does to the cache and the throttling
/// cache, without a cache, a server or a clock (the silent flow's tests run the same cases end to end).
@Suite("Refresh failure policy: a refused refresh's effect on the cache, as a value")
struct RefreshFailurePolicyTests {
    static func action(
        _ error: String?, _ subError: String? = nil, code: MSALError = .interactionRequired, family: String? = nil, assumed: Bool = false
    ) -> RefreshFailurePolicy.Action {
        RefreshFailurePolicy.action(oauthError: error, subError: subError, code: code, familyID: family, familyAssumed: assumed)
    }

    @Test("invalid_grant removes the refresh token, whatever its sub-error, except protection_policy_required")
    func invalidGrant() {
        for subError in [nil, "bad_token", "token_expired", "basic_action", "consent_required"] {
            #expect(Self.action("invalid_grant", subError) == .removeRefreshToken, "\(String(describing: subError))")
        }
        #expect(Self.action("INVALID_GRANT") == .removeRefreshToken, "the error is compared without case")
        #expect(
            Self.action("invalid_grant", "protection_policy_required", code: .serverProtectionPoliciesRequired) == .none,
            "the token works again once the app applies the policies")
    }

    @Test("client_mismatch: a family token's app leaves the family and the token stays; any other token stays")
    func clientMismatch() {
        #expect(Self.action("invalid_grant", "client_mismatch", family: "1") == .leaveFamily)
        #expect(Self.action("invalid_grant", "CLIENT_MISMATCH", family: "1") == .leaveFamily)
        #expect(Self.action("invalid_grant", "client_mismatch") == .none)
        #expect(Self.action("invalid_grant", "client_mismatch", family: "1", assumed: true) == .leaveFamily)
    }

    @Test("A family token tried only because the app had no AppMetadata stays, and repeats are throttled for 120 s")
    func assumedFamily() {
        #expect(Self.action("invalid_grant", family: "1", assumed: true) == .keepAndThrottle(seconds: 120))
        #expect(Self.action("invalid_grant", "bad_token", family: "1", assumed: true) == .keepAndThrottle(seconds: 120))
    }

    @Test("Other answers that need the user are throttled for 120 s; service failures and others change nothing")
    func others() {
        #expect(Self.action("interaction_required") == .throttle(seconds: 120))
        #expect(Self.action("consent_required", code: .interactionRequired) == .throttle(seconds: 120))
        #expect(Self.action("server_error", code: .internal) == .none)
        #expect(Self.action(nil, code: .internal) == .none)
        #expect(Self.action("invalid_client", code: .internal) == .none)
    }
}
