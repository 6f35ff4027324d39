import Foundation
import MSALEmulator
import MSALJOSE
import Testing

/// Raw authorization code flow steps against the emulator, for what the SDK never sends.
struct RawFlow {
    let harness: EmulatorHarness
    var clientID = EmulatorHarness.clientID
    var redirectURI = "http://localhost:5000/"
    var tenant = "common"
    var scope = "User.Read openid profile offline_access"

    func authorizeURL(pkce: PKCE, state: String = "state-1", nonce: String = "nonce-1", extra: [(String, String)] = []) -> URL {
        let parameters: [(String, String)] =
            [
                ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI), ("scope", scope), ("state", state),
                ("nonce", nonce), ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
            ] + extra
        return URL(
            string: "\(harness.emulator.baseURL.absoluteString)/\(tenant)/oauth2/v2.0/authorize?\(RawResponse.formEncoded(parameters))")!
    }

    /// Signs `username` in on the page and returns the code from the redirect.
    func code(pkce: PKCE, as username: String = EmulatorHarness.adele) async throws -> String {
        let redirect = try await MSALEmulator.SignInDriver(username: username).signIn(authorizationURL: authorizeURL(pkce: pkce))
        let items = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.first { $0.name == "state" }?.value == "state-1")
        return try #require(items.first { $0.name == "code" }?.value)
    }

    func redeem(_ code: String, verifier: String, clientID: String? = nil, redirectURI: String? = nil) async throws -> RawResponse {
        try await harness.call(
            "POST", "/\(tenant)/oauth2/v2.0/token",
            form: [
                ("client_id", clientID ?? self.clientID), ("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", redirectURI ?? self.redirectURI), ("scope", scope), ("code_verifier", verifier), ("client_info", "1"),
            ])
    }

    func refresh(_ token: String, clientID: String? = nil, tenant: String? = nil) async throws -> RawResponse {
        try await harness.call(
            "POST", "/\(tenant ?? self.tenant)/oauth2/v2.0/token",
            form: [("client_id", clientID ?? self.clientID), ("grant_type", "refresh_token"), ("refresh_token", token), ("scope", scope)])
    }
}

@Suite("Emulator protocol rules over raw HTTP: codes, PKCE, refresh tokens, device codes")
struct ProtocolTests {
    @Test("A code redeems once; a replay is refused (AADSTS54005) and revokes the refresh token it gave")
    func codeReuse() async throws {
        try await EmulatorHarness.with { harness in
            let flow = RawFlow(harness: harness)
            let pkce = try PKCE.generate()
            let code = try await flow.code(pkce: pkce)
            let first = try await flow.redeem(code, verifier: pkce.verifier)
            #expect(first.status == 200)
            #expect(first.json["token_type"] as? String == "Bearer")
            #expect(first.json["foci"] as? String == "1")
            #expect(first.json["client_info"] is String)
            let refreshToken = try #require(first.json["refresh_token"] as? String)

            let replay = try await flow.redeem(code, verifier: pkce.verifier)
            #expect(replay.status == 400)
            #expect(replay.error == "invalid_grant")
            #expect(replay.errorCodes == [54005])

            let revoked = try await flow.refresh(refreshToken)
            #expect(revoked.error == "invalid_grant")
            #expect(revoked.errorCodes == [50173])
        }
    }

    @Test("A wrong PKCE verifier is refused (AADSTS501481) and leaves the code usable with the right one")
    func wrongVerifier() async throws {
        try await EmulatorHarness.with { harness in
            let flow = RawFlow(harness: harness)
            let pkce = try PKCE.generate()
            let code = try await flow.code(pkce: pkce)
            for verifier in [try PKCE.generate().verifier, "short", String(repeating: "a", count: 129), pkce.challenge] {
                let wrong = try await flow.redeem(code, verifier: verifier)
                #expect(wrong.status == 400)
                #expect(wrong.error == "invalid_grant")
                #expect(wrong.errorCodes == [501481])
            }
            #expect(try await flow.redeem(code, verifier: pkce.verifier).status == 200)
        }
    }

    @Test("A code is bound to its client and redirect URI, and it expires")
    func codeBindings() async throws {
        try await EmulatorHarness.with { harness in
            let flow = RawFlow(harness: harness)
            let pkce = try PKCE.generate()
            let code = try await flow.code(pkce: pkce)
            let otherClient = try await flow.redeem(code, verifier: pkce.verifier, clientID: EmulatorHarness.familyClientID)
            #expect(otherClient.error == "invalid_grant")
            let otherRedirect = try await flow.redeem(code, verifier: pkce.verifier, redirectURI: "http://localhost:5001/")
            #expect(otherRedirect.error == "invalid_grant")
            #expect(otherRedirect.errorCodes == [500112])

            // Without a scope the code's own scopes are granted.
            let withoutScope = try await harness.call(
                "POST", "/common/oauth2/v2.0/token",
                form: [
                    ("client_id", flow.clientID), ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", flow.redirectURI),
                    ("code_verifier", pkce.verifier),
                ])
            #expect(withoutScope.status == 200)
            #expect(withoutScope.json["scope"] as? String == "User.Read openid profile")

            let late = try await flow.code(pkce: pkce)
            harness.emulator.advanceClock(by: TimeInterval(harness.emulator.lifetimes.authorizationCode))
            let expired = try await flow.redeem(late, verifier: pkce.verifier)
            #expect(expired.errorCodes == [70008])
        }
    }

    @Test("The ID token carries the nonce and the tenant's issuer and verifies with the emulator's JWKS")
    func idTokenAndKeys() async throws {
        try await EmulatorHarness.with { harness in
            var flow = RawFlow(harness: harness)
            flow.tenant = "contoso.example"
            let pkce = try PKCE.generate()
            let response = try await flow.redeem(try await flow.code(pkce: pkce), verifier: pkce.verifier)
            let idToken = try #require(response.json["id_token"] as? String)
            let keys = try await harness.call("GET", "/\(EmulatorHarness.contoso)/discovery/v2.0/keys")
            #expect(keys.status == 200)
            let keySet = try JSONWebKeySet(json: [UInt8](keys.body))
            #expect(keySet.keys.count == 1)
            let options = IDTokenValidationOptions(
                issuer: "\(harness.emulator.baseURL.absoluteString)/\(EmulatorHarness.contoso)/v2.0", clientID: EmulatorHarness.clientID,
                nonce: "nonce-1")
            let token = try IDTokenValidator(keySet: keySet, options: options).validate(idToken, now: harness.emulator.now)
            #expect(token.jwt.stringClaim("preferred_username") == EmulatorHarness.adele)
            let accessToken = try JWTVerifier(keySet: keySet).verify(try #require(response.json["access_token"] as? String))
            #expect(accessToken.stringListClaim("aud") == [MSALEmulator.graphResource])
            #expect(accessToken.stringClaim("scp") == "User.Read")
            let clientInfo = try ClientInfo(encoded: try #require(response.json["client_info"] as? String))
            #expect(
                clientInfo.homeAccountID
                    == "\(harness.emulator.configuration.user(named: EmulatorHarness.adele)!.objectID).\(EmulatorHarness.contoso)")
        }
    }

    @Test("A refresh token is single-use: a reused one fails and revokes its successors; expiry and client mismatch are refused")
    func refreshTokenRules() async throws {
        try await EmulatorHarness.with { harness in
            let flow = RawFlow(harness: harness)
            let pkce = try PKCE.generate()
            let tokens = try await flow.redeem(try await flow.code(pkce: pkce), verifier: pkce.verifier)
            let original = try #require(tokens.json["refresh_token"] as? String)
            let rotated = try await flow.refresh(original)
            #expect(rotated.status == 200)
            let successor = try #require(rotated.json["refresh_token"] as? String)
            #expect(successor != original)

            let reused = try await flow.refresh(original)
            #expect(reused.error == "invalid_grant")
            let afterReuse = try await flow.refresh(successor)
            #expect(afterReuse.errorCodes == [50173])

            // A fresh family token: another family client may use it, a non-family client may not.
            let code = try await flow.code(pkce: pkce)
            let family = try #require(try await flow.redeem(code, verifier: pkce.verifier).json["refresh_token"] as? String)
            let mismatch = try await flow.refresh(family, clientID: EmulatorHarness.standaloneClientID)
            #expect(mismatch.error == "invalid_grant")
            #expect(mismatch.json["suberror"] as? String == "client_mismatch")
            let companion = try await flow.refresh(family, clientID: EmulatorHarness.familyClientID)
            #expect(companion.status == 200)

            // Adele has no profile in Fabrikam.
            let next = try #require(companion.json["refresh_token"] as? String)
            let foreign = try await flow.refresh(next, clientID: EmulatorHarness.familyClientID, tenant: EmulatorHarness.fabrikam)
            #expect(foreign.errorCodes == [50020])

            harness.emulator.advanceClock(by: TimeInterval(harness.emulator.lifetimes.refreshToken))
            let expired = try await flow.refresh(next, clientID: EmulatorHarness.familyClientID)
            #expect(expired.errorCodes == [700082])
        }
    }

    @Test("Device code polling: pending, slow_down when too fast, then tokens once, then refused; a declined or expired code is reported")
    func deviceCodePolling() async throws {
        try await EmulatorHarness.with { harness in
            // An interval far longer than any scheduling delay, so "too fast" does not depend on how
            // quickly a loaded machine sends the second poll; the clock is then advanced past it.
            let interval = 300
            var lifetimes = harness.emulator.lifetimes
            lifetimes.deviceCodeInterval = interval
            harness.emulator.setLifetimes(lifetimes)
            func start() async throws -> (device: String, user: String) {
                let answer = try await harness.call(
                    "POST", "/organizations/oauth2/v2.0/devicecode",
                    form: [("client_id", EmulatorHarness.clientID), ("scope", "User.Read offline_access")])
                #expect(answer.status == 200)
                #expect(answer.json["interval"] as? Int == interval)
                #expect(answer.json["verification_uri"] as? String == harness.emulator.deviceLoginURL.absoluteString)
                return (try #require(answer.json["device_code"] as? String), try #require(answer.json["user_code"] as? String))
            }
            func poll(_ device: String) async throws -> RawResponse {
                try await harness.call(
                    "POST", "/organizations/oauth2/v2.0/token",
                    form: [
                        ("client_id", EmulatorHarness.clientID), ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                        ("device_code", device),
                    ])
            }
            let (device, user) = try await start()
            #expect(user.count == 9)
            #expect(try await poll(device).error == "authorization_pending")
            let tooFast = try await poll(device)
            #expect(tooFast.error == "slow_down")
            harness.emulator.advanceClock(by: TimeInterval(interval + 10))  // slow_down added 5 s
            #expect(try await poll(device).error == "authorization_pending")
            try harness.emulator.approveDeviceCode(userCode: user, as: EmulatorHarness.grace)
            harness.emulator.advanceClock(by: TimeInterval(interval + 10))
            let tokens = try await poll(device)
            #expect(tokens.status == 200)
            #expect(tokens.json["refresh_token"] is String)
            #expect(tokens.json["id_token"] == nil)
            #expect(try await poll(device).error == "invalid_grant")

            let (declinedCode, declinedUser) = try await start()
            try harness.emulator.declineDeviceCode(userCode: declinedUser)
            #expect(try await poll(declinedCode).error == "authorization_declined")

            let (expiringCode, expiringUser) = try await start()
            harness.emulator.advanceClock(by: TimeInterval(harness.emulator.lifetimes.deviceCode))
            #expect(try await poll(expiringCode).error == "expired_token")
            #expect(throws: MSALEmulatorError.self) {
                try harness.emulator.approveDeviceCode(userCode: expiringUser, as: EmulatorHarness.adele)
            }
            #expect(throws: MSALEmulatorError.self) { try harness.emulator.approveDeviceCode(userCode: "NOPE", as: EmulatorHarness.adele) }
            #expect(throws: MSALEmulatorError.self) { try harness.emulator.approveDeviceCode(userCode: expiringUser, as: "nobody@example") }
        }
    }

    @Test("prompt=none: login_required without a session; a code with the session cookie of an earlier sign-in")
    func promptNone() async throws {
        try await EmulatorHarness.with { harness in
            let flow = RawFlow(harness: harness)
            let pkce = try PKCE.generate()
            let silentURL = flow.authorizeURL(pkce: pkce, extra: [("prompt", "none")])
            let noSession = try await RawResponse.send("GET", silentURL)
            #expect(noSession.status == 302)
            #expect(noSession.locationQuery["error"] == "login_required")
            #expect(noSession.locationQuery["state"] == "state-1")

            let (_, cookie) = try await MSALEmulator.SignInDriver(username: EmulatorHarness.ben).signInKeepingSession(
                authorizationURL: flow.authorizeURL(pkce: pkce))
            let session = try #require(cookie)
            let withSession = try await RawResponse.send("GET", silentURL, headers: [("Cookie", session)])
            #expect(withSession.status == 302)
            let code = try #require(withSession.locationQuery["code"])
            let tokens = try await flow.redeem(code, verifier: pkce.verifier)
            #expect(tokens.status == 200)

            // Signing out ends the session.
            let logout = try await RawResponse.send(
                "GET", harness.emulator.authorityURL(tenant: "common").appendingPathComponent("oauth2/v2.0/logout"),
                headers: [("Cookie", session)])
            #expect(logout.status == 200)
            #expect(logout.headers["set-cookie"]?.contains("Max-Age=0") == true)
            let afterLogout = try await RawResponse.send("GET", silentURL, headers: [("Cookie", session)])
            #expect(afterLogout.locationQuery["error"] == "login_required")
        }
    }

    @Test("autoSignIn: the page submits itself with a script and offers the one user's button, whatever the prompt")
    func autoSignInPage() async throws {
        var configuration = EmulatorHarness.configuration
        configuration.autoSignIn = EmulatorHarness.ben
        try await EmulatorHarness.with(configuration) { harness in
            let page = try await RawResponse.send("GET", RawFlow(harness: harness).authorizeURL(pkce: try PKCE.generate()))
            #expect(page.status == 200)
            #expect(page.text.contains("<script>"))
            #expect(page.text.contains(".submit()"))
            #expect(page.text.contains("value=\"\(EmulatorHarness.ben)\""))
            #expect(!page.text.contains(EmulatorHarness.adele))
            // Also under prompt=select_account, which apps ask for to offer a choice of account.
            let selectAccount = try await RawResponse.send(
                "GET", RawFlow(harness: harness).authorizeURL(pkce: try PKCE.generate(), extra: [("prompt", "select_account")]))
            #expect(selectAccount.text.contains(".submit()"))
            #expect(!selectAccount.text.contains(EmulatorHarness.adele))
            // A program (no script) presses the button.
            let redirect = try await MSALEmulator.SignInDriver().signIn(
                authorizationURL: RawFlow(harness: harness).authorizeURL(pkce: try PKCE.generate()))
            #expect(redirect.query?.contains("code=") == true)
            #expect(harness.emulator.requests.last?.username == EmulatorHarness.ben)
        }
    }

    @Test("honorsLoginHint: a hint naming a user of the tenant gets the self-submitting page; an unknown hint gets the list")
    func loginHint() async throws {
        var configuration = EmulatorHarness.configuration
        configuration.honorsLoginHint = true
        try await EmulatorHarness.with(configuration) { harness in
            let flow = RawFlow(harness: harness)
            let pkce = try PKCE.generate()
            let hinted = try await RawResponse.send("GET", flow.authorizeURL(pkce: pkce, extra: [("login_hint", "Grace@Fabrikam.example")]))
            #expect(hinted.text.contains(".submit()"))
            #expect(hinted.text.contains("value=\"\(EmulatorHarness.grace)\""))
            #expect(!hinted.text.contains(EmulatorHarness.adele))
            let unknown = try await RawResponse.send("GET", flow.authorizeURL(pkce: pkce, extra: [("login_hint", "nobody@example")]))
            #expect(!unknown.text.contains("<script>"))
            #expect(unknown.text.contains(EmulatorHarness.adele) && unknown.text.contains(EmulatorHarness.grace))
            // select_account always shows the choice.
            let choice = try await RawResponse.send(
                "GET", flow.authorizeURL(pkce: pkce, extra: [("login_hint", EmulatorHarness.grace), ("prompt", "select_account")]))
            #expect(!choice.text.contains("<script>"))
        }
    }

    @Test("Lifetimes set out of range are clamped; short access tokens come back with that expires_in")
    func lifetimes() async throws {
        var configuration = EmulatorHarness.configuration
        configuration.lifetimes.accessToken = -10
        try await EmulatorHarness.with(configuration) { harness in
            #expect(harness.emulator.lifetimes.accessToken == 1)
            var lifetimes = harness.emulator.lifetimes
            lifetimes.accessToken = 60
            lifetimes.deviceCodeInterval = -1
            harness.emulator.setLifetimes(lifetimes)
            #expect(harness.emulator.lifetimes.deviceCodeInterval == 0)
            let flow = RawFlow(harness: harness)
            let pkce = try PKCE.generate()
            let tokens = try await flow.redeem(try await flow.code(pkce: pkce), verifier: pkce.verifier)
            #expect(tokens.json["expires_in"] as? Int == 60)
            #expect(tokens.json["ext_expires_in"] as? Int == 3600)
        }
    }
}
