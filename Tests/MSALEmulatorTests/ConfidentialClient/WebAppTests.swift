import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// A web app's sign-in through `MSALConfidentialClientApplication` against the emulator: the
/// authorization code flow with PKCE and the client's secret, then silent tokens for the user
/// (refreshes authenticated with the secret), account lists and removal; redirects that do not
/// answer the flow; and the separation from tokens obtained on behalf of callers.
@Suite("Confidential client: a web app signs users in")
struct WebAppTests {
    static let webClientID = "4c6e8a0b-2d4f-4a6b-8c0d-1e3f5a7b9c2d"
    static let secret = "web~app.secret-value"
    static let redirectURI = "https://app.contoso.example/auth/callback"

    static var configuration: MSALEmulator.Configuration {
        var configuration = EmulatorHarness.configuration
        configuration.clients.append(
            MSALEmulator.Client(
                clientID: webClientID, displayName: "Contoso web app", redirectURIs: [redirectURI], credentials: [.secret(secret)]))
        return configuration
    }

    static func app(_ harness: EmulatorHarness) throws -> MSALConfidentialClientApplication {
        let configuration = MSALConfidentialClientApplicationConfig(
            clientId: webClientID, clientCredential: .secret(secret), authority: try harness.authority(EmulatorHarness.contoso))
        configuration.clock = harness.clock
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    static func query(_ url: URL) -> [String: String] {
        Dictionary(
            (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first })
    }

    static func msalError(_ body: () async throws -> Void) async -> MSALFailure? {
        do {
            try await body()
            return nil
        } catch {
            return error as? MSALFailure
        }
    }

    static func codeGrants(_ harness: EmulatorHarness) -> Int {
        harness.emulator.requestCount(.token, grantType: .authorizationCode)
    }

    @Test("Sign-in with PKCE and the secret; the user's tokens then silently (a refresh sends the secret); accounts; removal")
    func signInSilentRemove() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            let app = try Self.app(harness)
            let parameters = MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Self.redirectURI)
            parameters.loginHint = EmulatorHarness.adele
            let flow = try await app.initiateAuthorizationCodeFlow(with: parameters)
            let query = Self.query(flow.authorizationURL)
            #expect(query["client_id"] == Self.webClientID)
            #expect(query["response_type"] == "code")
            #expect(query["redirect_uri"] == Self.redirectURI)
            #expect(query["code_challenge_method"] == "S256")
            #expect(query["code_challenge"] == Base64URL.encode(try MessageDigest.sha256(Array(flow.codeVerifier.utf8))))
            #expect(query["state"] == flow.state && query["nonce"] == flow.nonce)
            #expect(query["login_hint"] == EmulatorHarness.adele)
            #expect(
                !flow.authorizationURL.absoluteString.contains(Self.secret)
                    && !flow.authorizationURL.absoluteString.contains(flow.codeVerifier))
            #expect(!"\(flow)".contains(flow.state) && !"\(flow)".contains(flow.codeVerifier) && !"\(flow)".contains(flow.nonce))

            // The flow survives a session store.
            let stored = try JSONDecoder().decode(MSALAuthorizationCodeFlow.self, from: try JSONEncoder().encode(flow))
            #expect(stored == flow)

            let redirect = try await MSALEmulator.SignInDriver(username: EmulatorHarness.adele).signIn(
                authorizationURL: flow.authorizationURL)
            #expect(redirect.absoluteString.hasPrefix(Self.redirectURI + "?"))
            let result = try await app.acquireTokenByAuthorizationCode(flow: stored, redirectURL: redirect)
            #expect(result.tokenSource == .identityProvider)
            #expect(result.account.username == EmulatorHarness.adele)
            #expect(result.idToken != nil)
            #expect(try JWT.decodeUnverified(result.accessToken).stringClaim("azp") == Self.webClientID)
            #expect(Self.codeGrants(harness) == 1)

            let accounts = try await app.allAccounts()
            #expect(accounts.map(\.username) == [EmulatorHarness.adele])
            let identifier = try #require(result.account.identifier)
            let account = try #require(try await app.account(forIdentifier: identifier))
            let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(silent.tokenSource == .cache)
            #expect(silent.accessToken == result.accessToken)
            let forced = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
            forced.forceRefresh = true
            let refreshed = try await app.acquireTokenSilent(with: forced)
            #expect(refreshed.tokenSource == .identityProvider)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)

            // (The provider refuses a confidential client's refresh without its credential: the secret was sent.)

            try await app.remove(account)
            #expect(try await app.allAccounts().isEmpty)
            let gone = await Self.msalError {
                _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            }
            #expect(gone?.code == .interactionRequired)
        }
    }

    @Test("Redirects that do not answer the flow: another state, an error, a reused code, a form_post body; an http redirect URI")
    func badRedirects() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            let app = try Self.app(harness)
            let flow = try await app.initiateAuthorizationCodeFlow(
                with: MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Self.redirectURI))
            let redirect = try await MSALEmulator.SignInDriver(username: EmulatorHarness.ben).signIn(
                authorizationURL: flow.authorizationURL)
            let code = try #require(Self.query(redirect)["code"])

            // Another sign-in's state: refused before anything is redeemed.
            let other = try await app.initiateAuthorizationCodeFlow(
                with: MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Self.redirectURI))
            let crossed = await Self.msalError { _ = try await app.acquireTokenByAuthorizationCode(flow: other, redirectURL: redirect) }
            #expect(crossed?.internalCode == .internalErrorInvalidState)
            let noState = await Self.msalError {
                _ = try await app.acquireTokenByAuthorizationCode(flow: flow, responseParameters: ["code": code])
            }
            #expect(noState?.internalCode == .internalErrorInvalidState)
            #expect(Self.codeGrants(harness) == 0)

            // The form_post shape works; the same code a second time is refused by the provider.
            let result = try await app.acquireTokenByAuthorizationCode(flow: flow, responseParameters: ["code": code, "state": flow.state])
            #expect(result.account.username == EmulatorHarness.ben)
            let replay = await Self.msalError { _ = try await app.acquireTokenByAuthorizationCode(flow: flow, redirectURL: redirect) }
            #expect(replay?.oauthError == "invalid_grant")

            // The user declined.
            let declined = try await app.initiateAuthorizationCodeFlow(
                with: MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Self.redirectURI))
            let cancel = try await MSALEmulator.SignInDriver().cancel(authorizationURL: declined.authorizationURL)
            let canceled = await Self.msalError { _ = try await app.acquireTokenByAuthorizationCode(flow: declined, redirectURL: cancel) }
            #expect(canceled?.code == .userCanceled)

            for bad in ["http://app.contoso.example/callback", "ftp://x/y", "https://app.contoso.example/cb#frag", "not a url"] {
                let error = await Self.msalError {
                    let parameters = MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: bad)
                    _ = try await app.initiateAuthorizationCodeFlow(with: parameters)
                }
                #expect(error?.internalCode == .internalErrorInvalidRedirectURI, "\(bad)")
            }
        }
    }

    @Test("A token obtained on behalf of a caller is never the signed-in user's silent token, nor removed with the account")
    func onBehalfOfStaysApart() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            let app = try Self.app(harness)
            // Adele calls the web app's API with a token for it; the app trades it for Graph.
            let caller = try harness.application(tenant: EmulatorHarness.contoso)
            let incoming = try await harness.signIn(caller, as: EmulatorHarness.adele, scopes: ["api://\(Self.webClientID)/access_as_user"])
            let obo = try await app.acquireTokenOnBehalfOf(userAssertion: incoming.accessToken, scopes: ["User.Read"])

            // Adele also signs in to the web app itself.
            let flow = try await app.initiateAuthorizationCodeFlow(
                with: MSALAuthorizationCodeParameters(scopes: ["Mail.Read"], redirectUri: Self.redirectURI))
            let driver = MSALEmulator.SignInDriver(username: EmulatorHarness.adele)
            let redirect = try await driver.signIn(authorizationURL: flow.authorizationURL)
            let signedIn = try await app.acquireTokenByAuthorizationCode(flow: flow, redirectURL: redirect)
            let account = signedIn.account
            let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(silent.accessToken != obo.accessToken, "the on-behalf-of token answers only its assertion")
            #expect(silent.tokenSource == .identityProvider)

            try await app.remove(account)
            let again = try await app.acquireTokenOnBehalfOf(userAssertion: incoming.accessToken, scopes: ["User.Read"])
            #expect(again.tokenSource == .cache)
            #expect(again.accessToken == obo.accessToken)
        }
    }
}
