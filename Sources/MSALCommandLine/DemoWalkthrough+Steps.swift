import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALJSON

extension DemoWalkthrough {
    /// 1. The emulator listens on loopback, in this process.
    func startProvider(_ step: inout DemoStep) async throws {
        try await emulator.start()
        let configuration = emulator.configuration
        step.note("MSALEmulator (Microsoft identity platform v2.0 protocol) at \(emulator.baseURL.absoluteString)")
        step.note("tenants: \(configuration.tenants.map(\.displayName).joined(separator: ", "))")
        step.note("users: \(configuration.users.map(\.username).joined(separator: ", "))")
        try step.expect(
            emulator.isRunning && emulator.port > 0, "listening on 127.0.0.1:\(emulator.port) (a free port)",
            otherwise: "the provider is not listening")
        try step.expect(
            configuration.user(named: settings.username) != nil, "\(settings.username) is one of its users",
            otherwise: "\(settings.username) is not a user of the provider")
        step.detail("base_url", .string(emulator.baseURL.absoluteString))
        step.detail("users", .array(configuration.users.map { .string($0.username) }))
    }

    /// 2. The app's configuration: client id, the emulator's authority, a cache file, the shared clock.
    mutating func configure(_ step: inout DemoStep) throws {
        let clientID = MSALEmulator.Configuration.sampleClientID
        let authorityURL = emulator.authorityURL(tenant: "common")
        let authority = try MSALAADAuthority(url: authorityURL, options: .allowInsecureLoopback)
        let configuration = MSALPublicClientApplicationConfig(clientId: clientID, redirectUri: nil, authority: authority)
        configuration.cacheConfig = MSALCacheConfig(storage: .file(path: settings.cachePath))
        configuration.clock = DemoClock(emulator: emulator)
        let application = try MSALPublicClientApplication(configuration: configuration)
        self.application = application

        step.note("client id \(clientID) (\(emulator.configuration.client(withID: clientID)?.displayName ?? "sample client"))")
        step.note("authority \(authorityURL.absoluteString) (plain http on loopback: .allowInsecureLoopback)")
        step.note("token cache: \(settings.cachePath)\(settings.cacheIsTemporary ? " (temporary)" : "")")
        step.note("clock: the provider's, so the demo moves time forward instead of waiting")
        let accounts = try application.allAccounts()
        try step.expect(
            accounts.isEmpty, "MSALPublicClientApplication created; no account signed in yet",
            otherwise: "the cache already holds \(Self.count(accounts.count, "account")) for this authority")
        step.detail("client_id", .string(clientID))
        step.detail("authority", .string(authorityURL.absoluteString))
        step.detail("cache_file", .string(settings.cachePath))
    }

    /// 3. Interactive sign-in: the authorization code flow with PKCE, a verified ID token, cached tokens.
    mutating func signIn(_ step: inout DemoStep) async throws {
        let app = try app()
        step.note(signInMethod)
        let codesBefore = emulator.requestCount(.token, grantType: .authorizationCode)
        let result = try await app.acquireToken(with: interactiveParameters())
        self.result = result
        let codes = emulator.requestCount(.token, grantType: .authorizationCode) - codesBefore
        let claims = result.idTokenClaims ?? [:]
        let name = claims["name"] as? String ?? "-"

        try step.expect(
            result.account.username?.lowercased() == settings.username.lowercased(),
            "acquireToken(with:) signed in \(result.account.username ?? "-") (\(name))",
            otherwise: "signed in \(result.account.username ?? "nobody"), expected \(settings.username)")
        try step.expect(
            result.tokenSource == .identityProvider && codes == 1,
            "tokens from the provider: one authorization code redeemed with its PKCE verifier",
            otherwise: "expected one code redemption at the provider, saw \(codes) (tokenSource \(result.tokenSource))")
        try step.expect(
            result.idToken != nil && claims["aud"] as? String == app.configuration.clientId
                && (claims["preferred_username"] as? String)?.lowercased() == settings.username.lowercased(),
            "ID token verified by the SDK (RS256 signature, issuer, audience, nonce) for this app and user",
            otherwise: "the result has no ID token for this app and user")
        step.note("access token \(Self.redacted(result.accessToken)), \(expiry(result))")
        step.detail("username", .string(result.account.username ?? ""))
        step.detail("tenant_id", .string(result.tenantProfile.realm))
        step.detail("token_source", .string(result.tokenSource.description))
        step.detail("access_token", Self.tokenJSON(result.accessToken))
        step.detail("code_redemptions", .integer(codes))
    }

    /// 4. The protected resource refuses a call without a token and answers one with the `Bearer` header.
    func callResource(_ step: inout DemoStep) async throws {
        guard let result else { throw DemoFailure("no token from the sign-in") }
        step.note("GET \(resource.url.absoluteString)")
        let anonymous = try await resource.get(authorization: nil)
        try step.expect(
            anonymous.status == 401, "without a token: 401",
            otherwise: "without a token the resource answered \(anonymous.status), expected 401")
        let answer = try await resource.get(authorization: result.authorizationHeader)
        try step.expect(
            answer.status == 200 && answer.user["userPrincipalName"]?.lowercased() == settings.username.lowercased(),
            "with Authorization: Bearer <token>: 200, \(answer.user["displayName"] ?? "-") <\(answer.user["userPrincipalName"] ?? "-")>",
            otherwise: "with the token the resource answered \(answer.status) for \(answer.user["userPrincipalName"] ?? "nobody")")
        step.note("scopes in the token: \(answer.user["scopes"] ?? "-")")
        step.detail("status", .integer(answer.status))
        step.detail("user", .object(answer.user.sorted { $0.key < $1.key }.map { JSONMember(name: $0.key, value: .string($0.value)) }))
    }

    /// 5. Silent acquisition right after sign-in comes from the cache, without a request.
    func silentFromCache(_ step: inout DemoStep) async throws {
        let app = try app()
        guard let signedIn = result else { throw DemoFailure("no token from the sign-in") }
        let requestsBefore = emulator.requestCount(.token)
        let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: Self.scopes, account: signedIn.account))
        let requests = emulator.requestCount(.token) - requestsBefore
        try step.expect(
            silent.tokenSource == .cache, "acquireTokenSilent(with:) answered from the cache (tokenSource .cache)",
            otherwise: "the token came from \(silent.tokenSource), expected the cache")
        try step.expect(
            requests == 0, "no request to the token endpoint",
            otherwise: "\(Self.count(requests, "token request")) were made, expected none")
        try step.expect(
            silent.accessToken == signedIn.accessToken, "the same access token as the sign-in's",
            otherwise: "a different access token came back")
        step.detail("token_source", .string(silent.tokenSource.description))
        step.detail("token_requests", .integer(requests))
    }

    /// 6. Past the token's expiry the provider refuses it, and silent acquisition redeems the refresh token.
    mutating func expiryAndRefresh(_ step: inout DemoStep) async throws {
        let app = try app()
        guard let old = result else { throw DemoFailure("no token from the sign-in") }
        let lifetime = emulator.lifetimes.accessToken
        emulator.advanceClock(by: TimeInterval(lifetime))
        step.note("moved the clock \(Self.duration(lifetime)) ahead: the access token has expired")
        let refused = try await resource.get(authorization: old.authorizationHeader)
        try step.expect(
            refused.status == 401, "the resource now refuses the old token (401)",
            otherwise: "the resource answered \(refused.status) to the expired token, expected 401")

        let refreshesBefore = emulator.requestCount(.token, grantType: .refreshToken)
        let refreshed = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: Self.scopes, account: old.account))
        result = refreshed
        let refreshes = emulator.requestCount(.token, grantType: .refreshToken) - refreshesBefore
        try step.expect(
            refreshed.tokenSource == .identityProvider && refreshes == 1,
            "acquireTokenSilent(with:) redeemed the refresh token: one refresh_token grant",
            otherwise: "expected one refresh_token grant, saw \(refreshes) (tokenSource \(refreshed.tokenSource))")
        try step.expect(
            refreshed.accessToken != old.accessToken, "a new access token \(Self.redacted(refreshed.accessToken)), \(expiry(refreshed))",
            otherwise: "the refreshed access token is the old one")
        let answer = try await resource.get(authorization: refreshed.authorizationHeader)
        try step.expect(
            answer.status == 200, "the resource accepts the new token (200)",
            otherwise: "the resource answered \(answer.status) to the new token")
        step.detail("clock_advanced_seconds", .integer(lifetime))
        step.detail("refresh_grants", .integer(refreshes))
        step.detail("access_token", Self.tokenJSON(refreshed.accessToken))
    }

    /// 7. The refresh is answered `interaction_required`: silent fails with `.interactionRequired`,
    /// and the app signs the user in again, as the MSAL tutorial does.
    mutating func interactionRequiredFallback(_ step: inout DemoStep) async throws {
        let app = try app()
        guard let current = result else { throw DemoFailure("no token from the sign-in") }
        let clientID = app.configuration.clientId
        emulator.inject(.init(.interactionRequired(claims: nil), grantType: .refreshToken, clientID: clientID, times: 1))
        let lifetime = emulator.lifetimes.accessToken
        emulator.advanceClock(by: TimeInterval(lifetime))
        step.note("the provider will answer the next refresh with interaction_required (as when MFA becomes necessary)")
        step.note("moved the clock \(Self.duration(lifetime)) ahead: the token needs a refresh again")

        let refreshesBefore = emulator.requestCount(.token, grantType: .refreshToken)
        do {
            let unexpected = try await app.acquireTokenSilent(
                with: MSALSilentTokenParameters(scopes: Self.scopes, account: current.account))
            throw DemoFailure(
                "acquireTokenSilent(with:) succeeded (tokenSource \(unexpected.tokenSource)); expected MSALFailure .interactionRequired")
        } catch let error as MSALFailure where error.code == .interactionRequired {
            try step.expect(
                error.oauthError == "interaction_required",
                "acquireTokenSilent(with:) threw MSALFailure .interactionRequired (OAuth error interaction_required)",
                otherwise: "MSALError .interactionRequired carried OAuth error \(error.oauthError ?? "none"), expected interaction_required"
            )
            step.detail(
                "silent_error", .object(["code": .string("\(error.code)"), "oauth_error": error.oauthError.map(JSON.string) ?? .null]))
        }
        let refreshes = emulator.requests.filter { $0.endpoint == .token && $0.grantType == .refreshToken }.dropFirst(refreshesBefore)
        try step.expect(
            refreshes.count == 1 && refreshes.allSatisfy(\.faulted), "one refresh_token grant, answered by the injected fault",
            otherwise: "expected one faulted refresh_token grant, saw \(Self.count(refreshes.count, "refresh"))")

        step.note("fallback: catch .interactionRequired and call acquireToken(with:)")
        let codesBefore = emulator.requestCount(.token, grantType: .authorizationCode)
        let again = try await app.acquireToken(with: interactiveParameters())
        result = again
        let codes = emulator.requestCount(.token, grantType: .authorizationCode) - codesBefore
        try step.expect(
            again.tokenSource == .identityProvider && codes == 1 && again.account.identifier == current.account.identifier,
            "interactive sign-in succeeded for the same account: a new token \(Self.redacted(again.accessToken))",
            otherwise: "the interactive fallback gave \(again.account.username ?? "nobody") after \(Self.count(codes, "code redemption"))")
        try step.expect(emulator.faults.isEmpty, "the injected fault is used up", otherwise: "the injected fault was not used")
        step.detail("fallback_token_source", .string(again.tokenSource.description))
        step.detail("access_token", Self.tokenJSON(again.accessToken))
    }

    /// 8. The cache's accounts: the one signed in.
    func listAccounts(_ step: inout DemoStep) throws {
        let app = try app()
        let accounts = try app.allAccounts()
        try step.expect(
            accounts.count == 1 && accounts[0].username?.lowercased() == settings.username.lowercased(),
            "allAccounts(): \(accounts.first?.username ?? "-")",
            otherwise: "allAccounts() listed \(accounts.map { $0.username ?? "-" }), expected just \(settings.username)")
        let account = accounts[0]
        step.note("home tenant \(account.homeAccountId?.tenantId ?? "-"), environment \(account.environment)")
        let byName = try app.account(forUsername: settings.username)
        try step.expect(
            byName == account, "account(forUsername:) finds the same account", otherwise: "account(forUsername:) did not find it")
        step.detail(
            "accounts",
            .array(accounts.map { .object(["username": .string($0.username ?? ""), "identifier": .string($0.identifier ?? "")]) }))
    }

    /// 9. Sign-out removes the account's tokens: no account is left, and silent acquisition needs the user.
    func signOut(_ step: inout DemoStep) async throws {
        let app = try app()
        guard let account = try app.allAccounts().first else { throw DemoFailure("no account to sign out") }
        try await app.signout(with: account, signoutParameters: MSALSignoutParameters())
        step.note("signout(with:signoutParameters:) removed the account's tokens from the cache")
        let accounts = try app.allAccounts()
        try step.expect(
            accounts.isEmpty, "allAccounts() is empty", otherwise: "allAccounts() still lists \(Self.count(accounts.count, "account"))")
        let requestsBefore = emulator.requestCount(.token)
        do {
            _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: Self.scopes, account: account))
            throw DemoFailure("acquireTokenSilent(with:) still returned a token after sign-out")
        } catch let error as MSALFailure where error.code == .interactionRequired {
            try step.expect(
                emulator.requestCount(.token) == requestsBefore,
                "acquireTokenSilent(with:) for the signed-out account: .interactionRequired, without a request",
                otherwise: "the silent request after sign-out reached the token endpoint")
        }
        step.detail("accounts_left", .integer(accounts.count))
    }

    /// "expires in 60 min" by the shared clock.
    private func expiry(_ result: MSALResult) -> String {
        guard let expiresOn = result.expiresOn else { return "no expiry" }
        let minutes = Int((expiresOn.timeIntervalSince(emulator.now) / 60).rounded())
        return "expires in \(minutes) min"
    }

    /// Seconds as minutes when whole.
    static func duration(_ seconds: Int) -> String {
        seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }
}
