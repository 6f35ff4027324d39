import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALJSON
import Testing

/// A web app's sign-in for DPoP-bound tokens (RFC 9449): the authorization request names the
/// application's DPoP key (`dpop_jkt`), the code is redeemed with a proof of it, and the user's
/// tokens are DPoP tokens, refreshed silently with proofs; a confidential client's refresh token
/// is not bound (RFC 9449 §5).
@Suite("Confidential client: a web app signs users in for DPoP tokens")
struct WebAppDPoPTests {
    typealias Web = WebAppTests

    static func dpopParameters() -> MSALAuthorizationCodeParameters {
        let parameters = MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Web.redirectURI)
        parameters.loginHint = EmulatorHarness.adele
        parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
        return parameters
    }

    static func jkt(_ accessToken: String) throws -> String? {
        try JWT.decodeUnverified(accessToken).claims.root["cnf"]?["jkt"]?.string
    }

    @Test(
        "Sign-in with dpop_jkt, the code redeemed with a proof: a DPoP token bound to the key; silently from the cache; a forced refresh with a proof; a bearer request gets a bearer token"
    )
    func signIn() async throws {
        try await EmulatorHarness.with(Web.configuration) { harness in
            let app = try Web.app(harness)
            let flow = try await app.initiateAuthorizationCodeFlow(with: Self.dpopParameters())
            let thumbprint = try #require(flow.dpopKeyThumbprint)
            #expect(Web.query(flow.authorizationURL)["dpop_jkt"] == thumbprint)
            let stored = try JSONDecoder().decode(MSALAuthorizationCodeFlow.self, from: try JSONEncoder().encode(flow))
            #expect(stored == flow && stored.dpopKeyThumbprint == thumbprint)

            let redirect = try await MSALEmulator.SignInDriver(username: EmulatorHarness.adele).signIn(
                authorizationURL: flow.authorizationURL)
            let result = try await app.acquireTokenByAuthorizationCode(flow: stored, redirectURL: redirect)
            #expect(result.authenticationScheme == "DPoP" && result.authorizationHeader == "DPoP \(result.accessToken)")
            #expect(try Self.jkt(result.accessToken) == thumbprint)
            let proof = try result.dpopProof(httpMethod: .GET, requestUrl: URL(string: "https://graph.example.com/me")!)
            #expect(try JWT.decodeUnverified(proof).header.root["typ"]?.string == "dpop+jwt")

            let identifier = try #require(result.account.identifier)
            let account = try #require(try await app.account(forIdentifier: identifier))
            let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
            silent.authenticationScheme = MSALAuthenticationSchemeDPoP()
            let cached = try await app.acquireTokenSilent(with: silent)
            #expect(cached.tokenSource == .cache && cached.accessToken == result.accessToken && cached.authenticationScheme == "DPoP")

            silent.forceRefresh = true
            let refreshed = try await app.acquireTokenSilent(with: silent)
            #expect(refreshed.tokenSource == .identityProvider && refreshed.accessToken != result.accessToken)
            #expect(try Self.jkt(refreshed.accessToken) == thumbprint)

            // The confidential client's refresh token is not bound: a bearer request uses it.
            let bearer = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(bearer.authenticationScheme == "Bearer" && bearer.tokenSource == .identityProvider)
            #expect(try Self.jkt(bearer.accessToken) == nil)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 2)
        }
    }

    @Test(
        "A flow started with another DPoP key (another application object) is refused before the code is redeemed; MSAL's PoP is still refused for a web sign-in; a flow stored before dpopKeyThumbprint existed decodes as a bearer flow"
    )
    func refusals() async throws {
        try await EmulatorHarness.with(Web.configuration) { harness in
            let starter = try Web.app(harness)
            let flow = try await starter.initiateAuthorizationCodeFlow(with: Self.dpopParameters())
            let redirect = try await MSALEmulator.SignInDriver(username: EmulatorHarness.adele).signIn(
                authorizationURL: flow.authorizationURL)
            let other = try Web.app(harness)
            let refused = await Web.msalError { _ = try await other.acquireTokenByAuthorizationCode(flow: flow, redirectURL: redirect) }
            #expect(refused?.internalCode == .internalErrorInvalidParameter)
            #expect(refused?.message.contains("another DPoP key") == true)
            #expect(Web.codeGrants(harness) == 0)
            // The application that started it redeems it.
            #expect(try await starter.acquireTokenByAuthorizationCode(flow: flow, redirectURL: redirect).authenticationScheme == "DPoP")

            let pop = MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Web.redirectURI)
            pop.authenticationScheme = MSALAuthenticationSchemePop(
                httpMethod: .GET, request: URL(string: "https://graph.microsoft.com/v1.0/me")!, nonce: nil, additionalParameters: nil)
            let popRefused = await Web.msalError { _ = try await starter.initiateAuthorizationCodeFlow(with: pop) }
            #expect(popRefused?.internalCode == .internalErrorInvalidParameter)

            var json = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(flow)) as? [String: Any])
            json["dpopKeyThumbprint"] = nil
            let old = try JSONDecoder().decode(MSALAuthorizationCodeFlow.self, from: try JSONSerialization.data(withJSONObject: json))
            #expect(old.dpopKeyThumbprint == nil && old.state == flow.state)
        }
    }
}
