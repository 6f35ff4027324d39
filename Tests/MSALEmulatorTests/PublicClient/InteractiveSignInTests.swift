import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

@Suite("Emulator end to end: interactive sign-in, the cache and refresh through the public API")
struct InteractiveSignInTests {
    @Test("Interactive sign-in through the page over HTTP gives a verified token for the chosen user; one code redemption")
    func interactiveSignIn() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let (parameters, webUI) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            let result = try await app.acquireToken(with: parameters)

            let user = try #require(harness.emulator.configuration.user(named: EmulatorHarness.ben))
            #expect(result.tokenSource == .identityProvider)
            #expect(result.account.username == EmulatorHarness.ben)
            #expect(result.account.identifier == "\(user.objectID).\(user.tenantID)")
            #expect(result.tenantProfile.tenantId == user.tenantID)
            #expect(result.scopes.contains("User.Read"))
            let claims = try #require(result.idTokenClaims)
            #expect(claims["oid"] as? String == user.objectID)
            #expect(claims["tid"] as? String == user.tenantID)
            #expect(claims["preferred_username"] as? String == user.username)
            #expect(claims["iss"] as? String == "\(harness.emulator.baseURL.absoluteString)/\(user.tenantID)/v2.0")

            // The authorization request the SDK built went to the emulator's authorize endpoint with PKCE.
            let url = try #require(webUI.authorizationURLs.first)
            #expect(url.absoluteString.hasPrefix(harness.emulator.baseURL.absoluteString + "/common/oauth2/v2.0/authorize?"))
            #expect(url.absoluteString.contains("code_challenge_method=S256"))

            // Discovery happened over HTTP once each; exactly one code redemption.
            #expect(harness.emulator.requestCount(.instanceDiscovery) == 1)
            #expect(harness.emulator.requestCount(.openIDConfiguration) == 1)
            #expect(harness.emulator.requestCount(.keys) == 1)
            #expect(harness.emulator.requestCount(.token) == 1)
            #expect(harness.emulator.requestCount(.token, grantType: .authorizationCode) == 1)
            let redemption = try #require(harness.emulator.requests.last { $0.endpoint == .token })
            #expect(redemption.status == 200)
            #expect(redemption.username == EmulatorHarness.ben)
            #expect(redemption.clientID == EmulatorHarness.clientID)
            #expect(redemption.correlationID == result.correlationId.uuidString.lowercased())

            // The access token works at the protected resource.
            let me = try await harness.resource(result.authorizationHeader)
            #expect(me.status == 200)
            #expect(me.json["userPrincipalName"] as? String == EmulatorHarness.ben)
            #expect(me.json["id"] as? String == user.objectID)
        }
    }

    @Test("Silent acquisition after sign-in is answered from the cache: no token request")
    func silentFromCache() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let signedIn = try await harness.signIn(app, as: EmulatorHarness.adele)
            let tokenRequests = harness.emulator.requestCount(.token)

            let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
            #expect(silent.tokenSource == .cache)
            #expect(silent.accessToken == signedIn.accessToken)
            #expect(silent.account.identifier == signedIn.account.identifier)
            #expect(harness.emulator.requestCount(.token) == tokenRequests)

            let accounts = try app.allAccounts()
            #expect(accounts.map(\.username) == [EmulatorHarness.adele])
            #expect(accounts.first?.environment == harness.emulator.baseURL.host.map { "\($0):\(harness.emulator.port)" })
        }
    }

    @Test("Forced refresh redeems the refresh token; the emulator rotates it and the SDK keeps the new one")
    func forcedRefreshRotates() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let signedIn = try await harness.signIn(app, as: EmulatorHarness.adele)
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
            parameters.forceRefresh = true

            let first = try await app.acquireTokenSilent(with: parameters)
            #expect(first.tokenSource == .identityProvider)
            #expect(first.accessToken != signedIn.accessToken)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)

            // The emulator accepts each refresh token once; a second forced refresh works only if the
            // SDK stored the rotated token from the first.
            let second = try await app.acquireTokenSilent(with: parameters)
            #expect(second.tokenSource == .identityProvider)
            #expect(second.accessToken != first.accessToken)
            let refreshes = harness.emulator.requests.filter { $0.grantType == .refreshToken }
            #expect(refreshes.map(\.status) == [200, 200])
            #expect(refreshes.allSatisfy { $0.oauthError == nil && !$0.faulted })

            let me = try await harness.resource(second.authorizationHeader)
            #expect(me.status == 200)
        }
    }

    @Test("An expired access token is refreshed by a silent request; the new one is served from the cache afterwards")
    func expiryThenRefresh() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let signedIn = try await harness.signIn(app, as: EmulatorHarness.adele)
            harness.emulator.advanceClock(by: TimeInterval(harness.emulator.lifetimes.accessToken))

            // The protected resource now refuses the old token.
            let refused = try await harness.resource(signedIn.authorizationHeader)
            #expect(refused.status == 401)
            #expect(refused.headers["www-authenticate"]?.contains("invalid_token") == true)

            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
            let refreshed = try await app.acquireTokenSilent(with: parameters)
            #expect(refreshed.tokenSource == .identityProvider)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)
            #expect(try await harness.resource(refreshed.authorizationHeader).status == 200)

            let cached = try await app.acquireTokenSilent(with: parameters)
            #expect(cached.tokenSource == .cache)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)
        }
    }

    @Test("A guest signs in to the tenant that invited her: that tenant's oid and tid, her home account")
    func guestTenant() async throws {
        try await EmulatorHarness.with { harness in
            let grace = try #require(harness.emulator.configuration.user(named: EmulatorHarness.grace))
            let guestProfile = try #require(grace.guestProfiles.first)
            let app = try harness.application(tenant: "contoso.example")
            let result = try await harness.signIn(app, as: EmulatorHarness.grace)
            #expect(result.tenantProfile.tenantId == EmulatorHarness.contoso)
            #expect(result.idTokenClaims?["oid"] as? String == guestProfile.objectID)
            #expect(result.idTokenClaims?["tid"] as? String == EmulatorHarness.contoso)
            #expect(result.account.identifier == "\(grace.objectID).\(grace.tenantID)")
            #expect(result.tenantProfile.isHomeTenantProfile == false)

            // The same account in her home tenant, silently: the refresh token works across tenants.
            let home = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
            home.authority = try harness.authority(EmulatorHarness.fabrikam)
            let homeResult = try await app.acquireTokenSilent(with: home)
            #expect(homeResult.tokenSource == .identityProvider)
            #expect(homeResult.tenantProfile.tenantId == EmulatorHarness.fabrikam)
            #expect(homeResult.idTokenClaims?["oid"] as? String == grace.objectID)
            #expect(Set(homeResult.account.tenantProfiles?.map(\.tenantId) ?? []) == [EmulatorHarness.contoso, EmulatorHarness.fabrikam])

            // Ben is not a guest in Fabrikam: the page of that tenant does not offer him.
            let fabrikamApp = try harness.application(tenant: EmulatorHarness.fabrikam)
            await #expect {
                _ = try await harness.signIn(fabrikamApp, as: EmulatorHarness.ben)
            } throws: { error in
                "\(error)".contains("does not list ben@contoso.example")
            }
        }
    }

    @Test("Cancel on the sign-in page ends the request as canceled by the user; no token request")
    func cancel() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let parameters = MSALInteractiveTokenParameters(
                scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: EmulatorPageWebUI(.cancel)))
            await #expect {
                _ = try await app.acquireToken(with: parameters)
            } throws: { error in
                (error as? MSALFailure)?.code == .userCanceled && (error as? MSALFailure)?.oauthError == "access_denied"
            }
            #expect(harness.emulator.requestCount(.token) == 0)
            #expect(harness.emulator.requests.last { $0.endpoint == .authorize }?.oauthError == "access_denied")
        }
    }

    @Test("Family refresh tokens: a family app signs in silently with the other's token; an app outside the family cannot")
    func familyOfClientIDs() async throws {
        try await EmulatorHarness.with { harness in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-emulator-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let cache = MSALCacheConfig(storage: .file(path: directory.appendingPathComponent("cache.json").path))
            func app(_ clientID: String) throws -> MSALPublicClientApplication {
                let configuration = MSALPublicClientApplicationConfig(
                    clientId: clientID, redirectUri: nil, authority: try harness.authority())
                configuration.cacheConfig = cache
                configuration.clock = harness.clock
                return try MSALPublicClientApplication(configuration: configuration)
            }
            let first = try app(EmulatorHarness.clientID)
            let signedIn = try await harness.signIn(first, as: EmulatorHarness.adele)
            // The SDK learns an app's family from its own first token response (app metadata), so
            // the companion first signs another user in; then Adele's family refresh token serves it.
            let companion = try app(EmulatorHarness.familyClientID)
            _ = try await harness.signIn(companion, as: EmulatorHarness.ben)
            let account = try companion.account(forUsername: EmulatorHarness.adele)
            let result = try await companion.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(result.tokenSource == .identityProvider)
            let redemption = try #require(harness.emulator.requests.last { $0.grantType == .refreshToken })
            #expect(redemption.clientID == EmulatorHarness.familyClientID)
            #expect(redemption.username == EmulatorHarness.adele)
            #expect(redemption.status == 200)
            #expect(result.idTokenClaims?["aud"] as? String == EmulatorHarness.familyClientID)
            #expect(signedIn.account.identifier == account.identifier)

            // An app outside the family holds no refresh token for Adele: interaction, no request.
            let outsider = try app(EmulatorHarness.standaloneClientID)
            _ = try await harness.signIn(outsider, as: EmulatorHarness.ben)
            let before = harness.emulator.requestCount(.token)
            await #expect {
                _ = try await outsider.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            } throws: { error in
                (error as? MSALFailure)?.code == .interactionRequired
            }
            #expect(harness.emulator.requestCount(.token) == before)
        }
    }

    @Test("Sign-out through the browser ends the emulator's session and removes the account")
    func signOut() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let signedIn = try await harness.signIn(app, as: EmulatorHarness.adele)
            let signout = MSALSignoutParameters(webviewParameters: MSALWebviewParameters(webUI: LogoutWebUI()))
            signout.signoutFromBrowser = true
            try await app.signout(with: signedIn.account, signoutParameters: signout)
            #expect(try app.allAccounts().isEmpty)
            let logout = try #require(harness.emulator.requests.last { $0.endpoint == .logout })
            #expect(logout.status == 200)
            #expect(logout.clientID == EmulatorHarness.clientID)
        }
    }
}

/// Loads the end-session URL the way a browser would.
struct LogoutWebUI: MSALWebUI {
    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        let response = try await RawResponse.send("GET", authorizationURL)
        guard response.status == 200 else { throw MSALEmulatorError(.signInFailed, "logout answered \(response.status)") }
        return nil
    }
}
