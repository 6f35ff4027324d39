import Foundation
import MSAL
import MSALSupport
import Testing

/// A web app (``MSALConfidentialClientApplication`` with a client secret) signs a user in at
/// glewlwyd, which nobody here wrote: the authorization code flow with PKCE through glewlwyd's own
/// login and consent pages (the scripted agent, which hands back the redirect), the code redeemed
/// with the secret, the user's tokens cached and refreshed silently; with DPoP, the authorization
/// request names the app's key (`dpop_jkt`) and every token is bound to it. glewlwyd also binds
/// the web app's refresh token to that key, which RFC 9449 §5 leaves unbound for a confidential
/// client: a bearer request after a DPoP sign-in is refused by glewlwyd, typed, with nothing lost.
@Suite("Web app sign-in against glewlwyd")
struct ProviderWebAppTests {
    /// Signs alice in on glewlwyd's pages for `flow` and returns the redirect glewlwyd sent her to.
    static func signIn(_ provider: LocalOIDCProvider, _ flow: MSALAuthorizationCodeFlow) async throws -> URL {
        let agent = try await CommandRunner.run(
            [
                LocalOIDCProvider.providersDirectory.appendingPathComponent("glewlwyd/login_agent.py").path,
                flow.authorizationURL.absoluteString, "--username", "alice", "--password=" + (try provider.password("alice")),
                "--no-deliver",
            ], executable: LocalOIDCProvider.python)
        #expect(agent.status == 0, "\(agent.standardError)")
        return try #require(agent.standardOutput.split(separator: "\n").last.flatMap { URL(string: String($0)) }, "\(agent.standardOutput)")
    }

    /// `cnf.jkt` of a JWT access token, if any.
    static func jkt(_ accessToken: String) throws -> String? {
        (try OIDCProviderLibraryTests.jwtPart(accessToken, segment: 1)["cnf"] as? [String: Any])?["jkt"] as? String
    }

    @Test(
        "Sign-in (bearer, then DPoP): the code redeemed with the secret and the PKCE verifier, the user's tokens cached under her account; silent hits send nothing; two refreshes in a row; with DPoP, dpop_jkt names the key, every token is bound to it, and glewlwyd's refusal of a bearer refresh (it binds the refresh token too) is typed and loses nothing",
        arguments: [false, true])
    func signIn(dpop: Bool) async throws {
        try await LocalOIDCProvider.with(.glewlwyd) { provider, directory in
            let client = try ProviderClientCredentialsTests.Client(provider, "web_app")
            let secret = try #require(client.secret)
            let clients = provider.summary["confidential_clients"] as? [String: Any]
            let redirectURI = try #require((clients?["web_app"] as? [String: Any])?["redirect_uri"] as? String)
            let cachePath = directory.appendingPathComponent("cache.json").path
            let app = try ProviderClientCredentialsTests.application(
                provider, clientID: client.clientID, credential: .secret(secret), cachePath: cachePath)
            let scheme: (any MSALAuthenticationSchemeProtocol)? = dpop ? MSALAuthenticationSchemeDPoP() : nil

            let parameters = MSALAuthorizationCodeParameters(scopes: ["email"], redirectUri: redirectURI)
            parameters.authenticationScheme = scheme
            let flow = try await app.initiateAuthorizationCodeFlow(with: parameters)
            let query = URLComponents(url: flow.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "dpop_jkt" }?.value == flow.dpopKeyThumbprint)
            #expect((flow.dpopKeyThumbprint != nil) == dpop)
            let redirect = try await Self.signIn(provider, flow)
            try await provider.resetStats()

            let result = try await app.acquireTokenByAuthorizationCode(flow: flow, redirectURL: redirect)
            #expect(result.tokenSource == .identityProvider)
            #expect(result.account.username == "alice")
            #expect(result.idToken != nil)
            #expect(result.authenticationScheme == (dpop ? "DPoP" : "Bearer"))
            #expect(try Self.jkt(result.accessToken) == flow.dpopKeyThumbprint, "bound to the flow's key exactly when DPoP")
            #expect(try await provider.tokenRequestCount() == 1)

            let account = try #require(try await app.allAccounts().first)
            #expect(account.username == "alice")
            let silent = MSALSilentTokenParameters(scopes: ["email"], account: account)
            silent.authenticationScheme = scheme
            let hit = try await app.acquireTokenSilent(with: silent)
            #expect(hit.tokenSource == .cache && hit.accessToken == result.accessToken)
            #expect(try await provider.tokenRequestCount() == 1)

            // glewlwyd uses each refresh token once: two refreshes in a row prove the rotated one was kept.
            var current = result
            for round in 1...2 {
                silent.forceRefresh = true
                let refreshed = try await app.acquireTokenSilent(with: silent)
                #expect(refreshed.tokenSource == .identityProvider && refreshed.accessToken != current.accessToken)
                #expect(try Self.jkt(refreshed.accessToken) == flow.dpopKeyThumbprint)
                #expect(try await provider.tokenRequestCount() == 1 + round)
                current = refreshed
            }
            silent.forceRefresh = false
            #expect(try await app.acquireTokenSilent(with: silent).accessToken == current.accessToken)

            if dpop {
                // RFC 9449 §5 leaves a confidential client's refresh token unbound, and swift-msal
                // sends it without a proof for a bearer request. glewlwyd binds it anyway and refuses:
                // a typed error that says what to do, the cache file as it was, and the DPoP refresh
                // still works with the refresh token kept.
                let before = try Data(contentsOf: URL(fileURLWithPath: cachePath))
                let bearer = MSALSilentTokenParameters(scopes: ["email"], account: account)
                bearer.correlationId = UUID()
                let refused = await ProviderClientCredentialsTests.refusal { try await app.acquireTokenSilent(with: bearer) }
                #expect(
                    refused?.internalCode == .dpopProofInvalid && refused?.oauthError == "invalid_dpop_proof",
                    "\(String(describing: refused))")
                #expect(refused?.message.contains("MSALAuthenticationSchemeDPoP") == true, "\(String(describing: refused?.message))")
                #expect(refused?.correlationID == bearer.correlationId && refused?.homeAccountID == account.identifier)
                #expect(refused?.isThrottlingCacheHit == false)
                #expect(try Data(contentsOf: URL(fileURLWithPath: cachePath)) == before, "a refusal changed the cache")
                silent.forceRefresh = true
                let after = try await app.acquireTokenSilent(with: silent)
                #expect(after.tokenSource == .identityProvider)
                #expect(try Self.jkt(after.accessToken) == flow.dpopKeyThumbprint)
            }
        }
    }
}
