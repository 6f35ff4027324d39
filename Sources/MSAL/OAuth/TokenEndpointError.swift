import Foundation

/// Which grant a token endpoint error answers; the mapping differs slightly between them.
package enum TokenGrant: Sendable {
    /// Code redemption after interactive sign-in.
    case authorizationCode
    /// A silent refresh: every OAuth error the user can fix becomes `interactionRequired`.
    case refreshToken
    /// Device code polling (pending and slow-down are handled by the flow before mapping).
    case deviceCode
    /// An app token (client credentials): no user is involved, so no error asks for interaction.
    case clientCredentials
    /// The on-behalf-of grant: an error the user can fix (consent, multi-factor authentication,
    /// a conditional access claims challenge) is ``MSALError/interactionRequired``, which
    /// the middle tier passes back to its caller with the claims.
    case onBehalfOf
    /// A refresh token brought from elsewhere (`acquireToken(byRefreshToken:scopes:)`): mapped as
    /// a refresh is, since signing the user in is the way out when it is refused.
    case migration
    /// An agent identity's user federated identity credential (`user_fic`): a refused credential
    /// or user (`invalid_grant`) is the agent's to fix, not the user's, so it is
    /// ``MSALError/internal``; consent, multi-factor authentication or a conditional access
    /// challenge (`interaction_required`, `consent_required`, or `invalid_grant` with `claims` or
    /// a sub-error asking the user to act) is ``MSALError/interactionRequired``.
    case userFederatedCredential

    /// Whether the grant redeems a refresh token (a silent refresh or a migration).
    var redeemsRefreshToken: Bool { self == .refreshToken || self == .migration }
}

extension MSALFailure {
    /// The ``MSALFailure`` for a token endpoint response that is not a success (api.md "Errors").
    ///
    /// - `protection_policy_required` (sub-error) → ``MSALError/serverProtectionPoliciesRequired``.
    /// - `invalid_grant`, `interaction_required`, `login_required`, `consent_required` → ``MSALError/interactionRequired``,
    ///   with the server's error, sub-error and claims kept; for an app token `invalid_grant` is
    ///   ``MSALError/internal``, and for a user federated identity credential too unless it carries
    ///   `claims` or a sub-error asking the user to act (``TokenGrant/userFederatedCredential``).
    /// - `access_denied`, `authorization_declined` → ``MSALError/userCanceled``.
    /// - `server_error` → ``MSALError/internal`` with ``MSALInternalError/serverError``;
    ///   `temporarily_unavailable` → ``MSALError/internal`` with
    ///   ``MSALInternalError/internalErrorAuthorizationFailed`` (as MSAL for iOS).
    /// - `invalid_client`, `invalid_scope`, `unauthorized_client`, `invalid_request`, `unsupported_grant_type` → ``MSALError/internal``
    ///   with the matching internal code; on a refresh every error other than `invalid_client`,
    ///   `invalid_scope` and the protection policy is ``MSALError/interactionRequired``: signing in again is the way out.
    ///   An app token (client credentials) is never ``MSALError/interactionRequired``: there is no user.
    /// - `invalid_dpop_proof`, `use_dpop_nonce` → ``MSALError/internal`` with
    ///   ``MSALInternalError/dpopProofInvalid`` or ``MSALInternalError/dpopNonceRequired``, on every
    ///   grant: the client's DPoP proof was refused, not the grant, so it is never
    ///   ``MSALError/interactionRequired`` and never throttled.
    /// - A 4xx without an OAuth error → ``MSALError/internal`` with ``MSALInternalError/internalErrorUnhandledResponse``.
    package init(tokenEndpointResponse response: MSALHTTPResponse, grant: TokenGrant, correlationID: UUID) {
        let body = OAuthErrorResponse(body: response.body)
        let oauthError = body.error?.lowercased()
        let code: Code
        let internalCode: MSALInternalError?
        switch oauthError {
        case nil, "":
            code = .internal
            internalCode = .internalErrorUnhandledResponse
        case _ where body.subError?.lowercased() == "protection_policy_required":
            code = .serverProtectionPoliciesRequired
            internalCode = nil
        case "invalid_grant" where grant == .userFederatedCredential:
            // The user's to act on when the service says so (a claims challenge, consent,
            // multi-factor authentication: Entra's sub-errors for them); the agent's otherwise.
            let userAction: Set<String> = [
                "consent_required", "basic_action", "additional_action", "message_only", "user_password_expired",
            ]
            code = body.claims != nil || userAction.contains(body.subError?.lowercased() ?? "") ? .interactionRequired : .internal
            internalCode = .internalErrorInvalidGrant
        case "invalid_grant":
            code = grant == .clientCredentials ? .internal : .interactionRequired
            internalCode = .internalErrorInvalidGrant
        case "interaction_required", "login_required", "consent_required":
            // An app token has no user to interact with: the application's registration must change.
            code = grant == .clientCredentials ? .internal : .interactionRequired
            internalCode = grant == .clientCredentials ? .internalErrorUnhandledResponse : nil
        case "access_denied", "authorization_declined":
            code = .userCanceled
            internalCode = .internalErrorAuthorizationFailed
        case "server_error":
            // MSAL for iOS: `.internal`, with `MSALError.serverError`'s value as the internal code.
            code = .internal
            internalCode = .serverError
        case "temporarily_unavailable":
            // MSAL for iOS: an OAuth error it has no code for, reported as a failed authorization.
            code = .internal
            internalCode = .internalErrorAuthorizationFailed
        case "invalid_client":
            code = .internal
            internalCode = .internalErrorInvalidClient
        case "invalid_scope":
            code = .internal
            internalCode = .internalErrorInvalidScope
        case "unauthorized_client":
            code = grant.redeemsRefreshToken ? .interactionRequired : .internal
            internalCode = .internalErrorUnauthorizedClient
        case "invalid_request", "unsupported_grant_type":
            code = grant.redeemsRefreshToken ? .interactionRequired : .internal
            internalCode = .internalErrorInvalidRequest
        case "invalid_tenant":
            code = .internal
            internalCode = .invalidTenant
        case "invalid_dpop_proof":
            // The client's proof, not the grant, was refused (a skewed clock, a proxy that changed
            // the URL): signing in again would not help, and a new request carries a new proof.
            code = .internal
            internalCode = .dpopProofInvalid
        case "use_dpop_nonce":
            // Still asked for after the library answered it once with the nonce given.
            code = .internal
            internalCode = .dpopNonceRequired
        default:
            code = grant.redeemsRefreshToken ? .interactionRequired : .internal
            internalCode = .internalErrorUnhandledResponse
        }
        let context: String
        switch grant {
        case .authorizationCode: context = "Redeeming the authorization code"
        case .refreshToken: context = "Refreshing the token"
        case .deviceCode: context = "The device code sign-in"
        case .clientCredentials: context = "Getting an app token"
        case .onBehalfOf: context = "Getting a token on behalf of the caller"
        case .migration: context = "Redeeming the refresh token to migrate"
        case .userFederatedCredential: context = "Getting the user's token with the federated identity credential"
        }
        self.init(
            response: response, code: code, internalCode: internalCode ?? .internalErrorUnhandledResponse, context: context,
            correlationID: correlationID
        )
        if internalCode == nil { self.internalCode = nil }
        if self.correlationID == nil { self.correlationID = correlationID }
    }
}
