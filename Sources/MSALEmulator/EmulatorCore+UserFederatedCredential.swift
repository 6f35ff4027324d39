import Foundation
import MSALJOSE

extension EmulatorCore {
    /// The audience of a federated identity credential: the token exchange's.
    static let tokenExchangeAudience = "api://AzureADTokenExchange"

    /// `grant_type=user_fic`: a user's tokens for an agent identity that presents a federated
    /// identity credential (`user_federated_identity_credential`) and names the user (`username`
    /// or `user_id`), as Microsoft Entra ID answers agent identities (MSAL.NET 4.83.3, MSAL Go
    /// 1.8, MSAL for Python send it).
    ///
    /// The credential must be an app token of this emulator's, issued to the requesting client
    /// itself (`azp`, an agent's instance token) for `api://AzureADTokenExchange`, in the tenant
    /// asked, unexpired and not revoked; the user must have a profile in that tenant. The answer
    /// is a sign-in's: access, ID and refresh tokens and `client_info`.
    func redeemUserFederatedCredential(
        _ form: EmulatorParameters, client: MSALEmulator.Client, selector: TenantSelector, proof: ClientProof, now: Date
    ) throws(EmulatorOAuthError) -> TokenIssue {
        guard proof != .none else {
            throw Self.invalidClient(
                7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
        }
        guard case .tenant(let tenant) = selector else {
            throw EmulatorOAuthError(
                "invalid_request", 9001023,
                "The grant type is not supported over the /\(selector.pathSegment) endpoint. Please use a tenant-specific endpoint.")
        }
        guard let credential = form.nonEmpty("user_federated_identity_credential") else {
            throw .missing("user_federated_identity_credential")
        }
        let scope = try EmulatorScope.parse(form.nonEmpty("scope") ?? "")
        let token: JWT
        do {
            token = try JWTVerifier(keySet: keySet, allowedAlgorithms: [.rs256]).verify(credential)
        } catch {
            throw .invalidGrant(50013, "The federated identity credential failed signature validation: it is not a token of this emulator.")
        }
        guard token.stringClaim("tid") == tenant.id, token.stringClaim("iss") == issuer(tenantID: tenant.id) else {
            throw .invalidGrant(50013, "The federated identity credential was not issued by the tenant asked.")
        }
        guard let expiry = token.numberClaim("exp"), expiry > now.timeIntervalSince1970 else {
            throw .invalidGrant(500133, "The federated identity credential is not within its valid time range.")
        }
        let revoked = state.withLock { state in token.stringClaim("uti").map { state.revokedAccessTokens.contains($0) } ?? false }
        guard !revoked else { throw .invalidGrant(50013, "The federated identity credential was revoked.") }
        guard token.stringClaim("idtyp") == "app", (token.stringListClaim("aud") ?? []).contains(Self.tokenExchangeAudience) else {
            throw .invalidGrant(
                700212,
                "No matching federated identity record found for presented assertion audience: it is not a token exchange credential.")
        }
        guard token.stringClaim("azp") == client.clientID else {
            throw .invalidGrant(
                700213, "No matching federated identity record found for presented assertion subject: it was issued to another client.")
        }
        let username = form.nonEmpty("username")
        let userID = form.nonEmpty("user_id")
        guard (username == nil) != (userID == nil) else {
            throw EmulatorOAuthError("invalid_request", 900144, "The request must name the user with exactly one of username and user_id.")
        }
        let user: MSALEmulator.User?
        if let username {
            user = configuration.user(named: username)
        } else {
            user = configuration.users.first { $0.objectID(inTenant: tenant.id)?.lowercased() == userID?.lowercased() }
        }
        guard let user, user.objectID(inTenant: tenant.id) != nil else {
            throw .invalidGrant(50034, "The user account does not exist in the \(tenant.id) directory.")
        }
        return TokenIssue(
            user: user, tenantID: tenant.id, client: client, scope: scope, nonce: nil, includesClientInfo: form["client_info"] == "1",
            lineage: Self.randomToken())
    }
}
