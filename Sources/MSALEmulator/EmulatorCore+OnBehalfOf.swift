import Foundation
import MSALJOSE

extension EmulatorCore {
    /// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` with `requested_token_use=on_behalf_of`
    /// (the on-behalf-of flow): a confidential client — a middle-tier API — trades the user's access
    /// token it was called with for the user's tokens for a downstream resource.
    ///
    /// The `assertion` must be an access token this emulator issued (its signature, a hosted
    /// tenant's issuer, unexpired, not revoked), for a user (not an app token), whose audience is
    /// the calling client itself: its client id or `api://<client id>`.
    func redeemOnBehalfOf(
        _ form: EmulatorParameters, client: MSALEmulator.Client, selector: TenantSelector, proof: ClientProof, now: Date
    ) throws(EmulatorOAuthError) -> TokenIssue {
        guard proof != .none else {
            throw Self.invalidClient(
                7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
        }
        guard let use = form.nonEmpty("requested_token_use") else { throw .missing("requested_token_use") }
        guard use == "on_behalf_of" else {
            throw EmulatorOAuthError(
                "invalid_request", 900144,
                "The requested_token_use '\(EmulatorText.sanitized(use, limit: 32))' is not supported; use on_behalf_of.")
        }
        guard let assertion = form.nonEmpty("assertion") else { throw .missing("assertion") }
        let scope = try EmulatorScope.parse(form.nonEmpty("scope") ?? "")
        let token: JWT
        do {
            token = try JWTVerifier(keySet: keySet, allowedAlgorithms: [.rs256]).verify(assertion)
        } catch {
            throw .invalidGrant(50013, "Assertion failed signature validation: it is not a token of this emulator (\(error.message)).")
        }
        guard let tenantID = token.stringClaim("tid"), let tenant = configuration.tenant(named: tenantID), tenant.id == tenantID,
            token.stringClaim("iss") == issuer(tenantID: tenantID)
        else {
            throw .invalidGrant(50013, "Assertion is invalid: its issuer is not a tenant of this emulator.")
        }
        guard let expiry = token.numberClaim("exp"), expiry > now.timeIntervalSince1970 else {
            throw .invalidGrant(500133, "Assertion is not within its valid time range.")
        }
        let revoked = state.withLock { state in token.stringClaim("uti").map { state.revokedAccessTokens.contains($0) } ?? false }
        guard !revoked else { throw .invalidGrant(50013, "Assertion is invalid: the access token was revoked.") }
        guard token.stringClaim("idtyp") != "app", let username = token.stringClaim("preferred_username"),
            let user = configuration.user(named: username), user.objectID(inTenant: tenantID) == token.stringClaim("oid")
        else {
            throw .invalidGrant(50013, "Assertion is invalid: it is not a user's access token.")
        }
        let audiences = token.stringListClaim("aud") ?? []
        guard audiences.contains(where: { $0 == client.clientID || $0 == "api://\(client.clientID)" }) else {
            throw .invalidGrant(50013, "Assertion audience does not match the Client app presenting the assertion.")
        }
        if case .tenant(let requested) = selector, requested.id != tenantID {
            throw .invalidGrant(50013, "Assertion is invalid: it was issued by another tenant than the one asked.")
        }
        return TokenIssue(
            user: user, tenantID: tenantID, client: client, scope: scope, nonce: nil, includesClientInfo: form["client_info"] == "1",
            lineage: Self.randomToken())
    }
}
