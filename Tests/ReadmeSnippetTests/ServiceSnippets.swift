// README.md, "Services", and the DocC article "Calling APIs from a service": a daemon's app token,
// a web API calling another API on behalf of its caller, a web app signing users in, and a managed
// identity. They need a real tenant or Azure resource, so they are compiled here, not run; the
// same calls run against the local provider in MSALEmulatorTests (ConfidentialClientTests,
// OnBehalfOfTests, WebAppTests, ManagedIdentityEndToEndTests).

import Foundation
import MSAL

/// A daemon's app token, with a certificate.
func daemonAppToken() async throws -> String {
    let certificate = try MSALClientCertificate(privateKeyFile: "/etc/myservice/key.pem", certificateFile: "/etc/myservice/cert.pem")
    let app = try MSALConfidentialClientApplication(
        clientId: "11111111-2222-3333-4444-555555555555",
        clientCredential: .certificate(certificate),
        authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com")!))
    let result = try await app.acquireTokenForClient(scopes: ["https://graph.microsoft.com/.default"])
    return result.authorizationHeader
}

/// A web API calling Microsoft Graph as the user who called it.
func callGraphOnBehalfOf(_ app: MSALConfidentialClientApplication, authorizationHeader: String) async throws -> String {
    // The caller's token, already validated by the API (signature, issuer, audience, expiry).
    let incoming = String(authorizationHeader.dropFirst("Bearer ".count))
    do {
        let result = try await app.acquireTokenOnBehalfOf(userAssertion: incoming, scopes: ["https://graph.microsoft.com/User.Read"])
        return result.accessToken
    } catch let error as MSALFailure where error.code == .interactionRequired {
        // Answer the caller 401 with error.claims: it signs the user in again.
        throw error
    }
}

/// A web app's sign-in, in two requests of the user's browser.
func webAppSignIn(_ app: MSALConfidentialClientApplication, session: inout [String: Data], callbackURL: URL?) async throws -> URL? {
    guard let callbackURL else {
        // GET /login: send the browser to the sign-in page, keep the flow in the server-side session.
        let flow = try await app.initiateAuthorizationCodeFlow(
            with: MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: "https://app.contoso.com/auth/callback"))
        session["msal.flow"] = try JSONEncoder().encode(flow)
        return flow.authorizationURL
    }
    // GET /auth/callback?code=…&state=…: the flow is used once.
    let flow = try JSONDecoder().decode(MSALAuthorizationCodeFlow.self, from: session.removeValue(forKey: "msal.flow") ?? Data())
    let result = try await app.acquireTokenByAuthorizationCode(flow: flow, redirectURL: callbackURL)
    session["user"] = Data((result.account.identifier ?? "").utf8)
    return nil
}

/// The signed-in user's token in any later request of the web app.
func webAppUserToken(_ app: MSALConfidentialClientApplication, userID: String) async throws -> String? {
    guard let account = try await app.account(forIdentifier: userID) else { return nil }
    let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
    return result.accessToken
}

/// A token for the Azure resource's own managed identity: no secret at all.
func managedIdentityToken() async throws -> String {
    let app = try MSALManagedIdentityApplication(identity: .systemAssigned)
    let result = try await app.acquireToken(forResource: "https://vault.azure.net")
    return result.accessToken
}

/// An agent identity acting for a user: its blueprint's credential for the agent (an FMI path),
/// the agent's instance token, then the user's token (the user_fic grant).
func agentUserToken(blueprint: MSALConfidentialClientApplication, agentID: String, authority: MSALAuthority) async throws -> String {
    let exchange = ["api://AzureADTokenExchange/.default"]
    let agent = try MSALConfidentialClientApplication(
        clientId: agentID,
        clientCredential: .assertion { request in
            let parameters = MSALClientCredentialParameters(scopes: exchange)
            parameters.fmiPath = request.clientAssertionFmiPath ?? agentID
            return try await blueprint.acquireTokenForClient(with: parameters).accessToken
        },
        authority: authority)
    let instanceToken = try await agent.acquireTokenForClient(scopes: exchange).accessToken
    let user = MSALUserFederatedIdentityCredentialParameters(
        scopes: ["https://graph.microsoft.com/User.Read"], assertion: instanceToken, username: "adele@contoso.com")
    return try await agent.acquireTokenByUserFederatedIdentityCredential(with: user).accessToken
}

/// Moving a user from another library: its refresh token, redeemed once, becomes an account.
func migrateUser(_ app: MSALPublicClientApplication, refreshTokenFile: String) async throws -> MSALAccount {
    let refreshToken = try String(contentsOfFile: refreshTokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    return try await app.acquireToken(byRefreshToken: refreshToken, scopes: ["User.Read"]).account
}
