import Foundation
import MSAL
import MSALSupport
import Testing

/// The library against real OpenID providers nobody here wrote (Django OAuth Toolkit, glewlwyd),
/// each started on loopback for the test: sign-in through the provider's real login page (a
/// scripted user agent and headless Chromium), accounts, a silent hit with no request at the
/// provider, expired tokens refreshed with and without a new ID token, a forced refresh, and
/// browser sign-out that ends the provider's session.
@Suite("Library against real OpenID providers", .serialized)
struct OIDCProviderLibraryTests {
    /// How the user signs in on the provider's page.
    enum Agent: String, Sendable, CaseIterable {
        /// `login_agent.py`: the provider's own login and consent forms over HTTP.
        case scripted = "login_agent.py"
        /// `browser_login.py`: headless Chromium (selenium) filling in the real pages.
        case chromium = "browser_login.py"
    }

    /// One application of one test, with its own cache file.
    struct App {
        let provider: LocalOIDCProvider
        let application: MSALPublicClientApplication
        let cachePath: String

        /// An application of `provider`'s public client; `redirectURI` fixed when the provider
        /// needs exact redirect URIs; `expirationBuffer` makes cached tokens count as expired sooner.
        init(_ provider: LocalOIDCProvider, cachePath: String, redirectURI: String?, expirationBuffer: Double? = nil) throws {
            self.provider = provider
            self.cachePath = cachePath
            let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!, options: [.allowInsecureLoopback])
            let config = MSALPublicClientApplicationConfig(clientId: provider.clientID, redirectUri: redirectURI, authority: authority)
            config.cacheConfig = MSALCacheConfig(storage: .file(path: cachePath))
            if let expirationBuffer { config.tokenExpirationBuffer = expirationBuffer }
            application = try MSALPublicClientApplication(configuration: config)
        }

        func signIn(_ user: String, agent: Agent, scopes: [String]) async throws -> MSALResult {
            let command = [
                LocalOIDCProvider.python.path, provider.kind.directory.appendingPathComponent(agent.rawValue).path,
                "--username", user, "--password=" + (try provider.password(user)), "%s",
            ]
            let webview = MSALWebviewParameters(browserCommand: command)
            webview.timeout = 120
            return try await application.acquireToken(with: MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
        }

        func silent(_ account: MSALAccount, scopes: [String], forceRefresh: Bool = false) async throws -> MSALResult {
            let parameters = MSALSilentTokenParameters(scopes: scopes, account: account)
            parameters.forceRefresh = forceRefresh
            return try await application.acquireTokenSilent(with: parameters)
        }
    }

    /// The scope both providers grant their public clients beyond the OpenID Connect ones.
    static let scopes = ["email"]

    /// A free port on 127.0.0.1 (bound, then closed), chosen at random below Linux's ephemeral
    /// range (32768–60999 by default): a port the kernel hands out for a port-0 bind may be taken
    /// by another test's outgoing connection before the application listens on it (the rule
    /// `LoopbackTest.freePort()` in MSALTests follows, after that race was seen in CI).
    static func freePort() throws -> Int {
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<32_000)
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { throw LocalOIDCProvider.Failure("socket failed: errno \(errno)") }
            defer { close(socket) }
            var reuse: Int32 = 1
            _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
            }
            if bound == 0 { return port }
        }
        throw LocalOIDCProvider.Failure("no free port between 20000 and 32000 after 100 tries")
    }

    /// The redirect URI the application uses with `provider`: the SDK's default (an ephemeral
    /// `http://localhost` port) where the provider matches loopback ports as RFC 8252 §7.3 asks,
    /// else a fixed port registered with the provider first (glewlwyd compares exactly).
    static func redirectURI(for provider: LocalOIDCProvider) async throws -> String? {
        guard provider.kind == .glewlwyd else { return nil }
        let uri = "http://127.0.0.1:\(try freePort())/"
        try await provider.registerRedirectURI(uri)
        return uri
    }

    @Test(
        "Sign-in, accounts, silent hit with 0 requests, expired → refresh, forced refresh, browser sign-out",
        arguments: LocalOIDCProvider.Kind.allCases, Agent.allCases)
    func lifecycle(kind: LocalOIDCProvider.Kind, agent: Agent) async throws {
        try await LocalOIDCProvider.with(kind) { provider, directory in
            try await run(provider, agent: agent, directory: directory)
        }
    }

    private func run(_ provider: LocalOIDCProvider, agent: Agent, directory: URL) async throws {
        let kind = provider.kind
        let scopes = Self.scopes
        let cachePath = directory.appendingPathComponent("cache.json").path
        let redirectURI = try await Self.redirectURI(for: provider)
        let app = try App(provider, cachePath: cachePath, redirectURI: redirectURI)

        // Sign-in on the provider's real pages.
        let signedIn = try await app.signIn("alice", agent: agent, scopes: scopes)
        #expect(signedIn.tokenSource == .identityProvider)
        #expect(
            signedIn.account.username == "alice" || signedIn.account.username == "alice@example.test",
            "\(kind): username \(signedIn.account.username ?? "nil")")
        let subject = try #require(signedIn.account.identifier)
        #expect(!subject.isEmpty)
        #expect(signedIn.idToken != nil)

        // accounts
        let accounts = try app.application.allAccounts()
        #expect(accounts.map(\.identifier) == [subject], "\(kind)")
        let account = try #require(accounts.first)

        // A silent hit: nothing reaches the provider.
        try await provider.resetStats()
        let hit = try await app.silent(account, scopes: scopes)
        #expect(hit.tokenSource == .cache, "\(kind)")
        #expect(hit.accessToken == signedIn.accessToken)
        #expect(try await provider.requestCount() == 0, "\(kind): a silent hit reached the provider")

        // Expired: a second application on the same cache file, which counts every token as expired.
        let expiring = try App(provider, cachePath: cachePath, redirectURI: redirectURI, expirationBuffer: 24 * 3600)
        let expiringAccount = try #require(try expiring.application.allAccounts().first)
        let refreshed = try await expiring.silent(expiringAccount, scopes: scopes)
        #expect(refreshed.tokenSource == .identityProvider, "\(kind)")
        #expect(refreshed.accessToken != signedIn.accessToken)
        #expect(refreshed.account.identifier == subject)
        #expect(refreshed.account.username == signedIn.account.username)

        // The same without a new ID token in the refresh answer (glewlwyd never sends one; DOT is told not to).
        if kind == .djangoOAuthToolkit { try await provider.configure(#"{"refresh_id_token": false}"#) }
        let withoutIDToken = try await expiring.silent(expiringAccount, scopes: scopes)
        #expect(withoutIDToken.accessToken != refreshed.accessToken, "\(kind)")
        #expect(withoutIDToken.account.identifier == subject)
        #expect(withoutIDToken.account.username == signedIn.account.username)
        if kind == .djangoOAuthToolkit { try await provider.configure(#"{"refresh_id_token": true}"#) }

        // The first application now finds the newest token in the file.
        let newest = try await app.silent(account, scopes: scopes)
        #expect(newest.accessToken == withoutIDToken.accessToken, "\(kind)")
        #expect(newest.tokenSource == .cache)

        // A forced refresh: one token request, a rotated refresh token.
        try await provider.resetStats()
        let forced = try await app.silent(account, scopes: scopes, forceRefresh: true)
        #expect(forced.tokenSource == .identityProvider)
        #expect(forced.accessToken != newest.accessToken)
        #expect(try await provider.tokenRequestCount() == 1, "\(kind)")

        // Browser sign-out: the provider's end-session endpoint with the ID token as hint; the
        // cache forgets the account, and the provider ends the grant (a copy of the old cache
        // can no longer refresh).
        let copy = directory.appendingPathComponent("before-logout.json").path
        try FileManager.default.copyItem(atPath: cachePath, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy)
        let agent = ProviderSignOutAgent()
        let signOut = MSALSignoutParameters(webviewParameters: MSALWebviewParameters(webUI: agent))
        signOut.signoutFromBrowser = true
        try await app.application.signout(with: account, signoutParameters: signOut)
        #expect(try app.application.allAccounts().isEmpty)
        let page = try #require(agent.visits.first, "\(kind): the end-session page was not opened")
        let endSessionEndpoint = try await provider.endSessionEndpoint()
        #expect(page.url.absoluteString.hasPrefix(endSessionEndpoint + "?"), "\(kind): \(page.url)")
        let query = Dictionary(
            (URLComponents(url: page.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first })
        #expect(query["id_token_hint"]?.split(separator: ".").count == 3, "\(kind)")
        #expect(query["client_id"] == provider.clientID)
        #expect((200..<400).contains(page.status), "\(kind): the end-session endpoint answered \(page.status)")
        guard kind == .djangoOAuthToolkit else { return }
        // DOT ends the grant on an RP-initiated logout with a valid id_token_hint.
        let stale = try App(provider, cachePath: copy, redirectURI: redirectURI)
        let staleAccount = try #require(try stale.application.allAccounts().first)
        let revoked = await #expect(throws: MSALFailure.self) { try await stale.silent(staleAccount, scopes: scopes, forceRefresh: true) }
        #expect(revoked?.code == .interactionRequired, "\(kind): \(String(describing: revoked))")
    }

    @Test(
        "Device code flow: glewlwyd signs the user in; Django OAuth Toolkit answers without an ID token, a typed error and nothing cached",
        arguments: LocalOIDCProvider.Kind.allCases)
    func deviceCode(kind: LocalOIDCProvider.Kind) async throws {
        try await LocalOIDCProvider.with(kind, kind == .djangoOAuthToolkit ? ["--advertise-device-endpoint"] : []) { provider, directory in
            try await deviceCode(provider, directory: directory)
        }
    }

    @Test(
        "Device code flow with DPoP at glewlwyd: the device code is redeemed with a proof, the tokens are bound to our key (cnf.jkt), a DPoP silent call is a cache hit and a forced refresh redeems the bound refresh token with a new proof"
    )
    func deviceCodeDPoP() async throws {
        try await LocalOIDCProvider.with(.glewlwyd) { provider, directory in
            try await deviceCode(provider, directory: directory, dpop: true)
        }
    }

    private func deviceCode(_ provider: LocalOIDCProvider, directory: URL, dpop: Bool = false) async throws {
        let kind = provider.kind
        let clientID = (provider.summary["device_client_id"] as? String) ?? provider.clientID
        let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!, options: [.allowInsecureLoopback])
        let config = MSALPublicClientApplicationConfig(clientId: clientID, redirectUri: nil, authority: authority)
        config.cacheConfig = MSALCacheConfig(storage: .file(path: directory.appendingPathComponent("cache.json").path))
        let application = try MSALPublicClientApplication(configuration: config)
        let agent = provider.kind.directory.appendingPathComponent(Agent.scripted.rawValue).path
        let password = try provider.password("alice")
        // The user, on another device, enters the code on the verification page.
        let approval = Mutex<Task<(status: Int32, output: String), any Error>?>(nil)
        let signIn = Task {
            let parameters = MSALTokenParameters(scopes: Self.scopes)
            if dpop { parameters.authenticationScheme = MSALAuthenticationSchemeDPoP() }
            return try await application.acquireTokenWithDeviceCode(with: parameters) { info in
                var arguments = [agent, "--verbose"]
                if kind == .glewlwyd {
                    arguments.append(info.verificationURI.absoluteString + "?code=" + info.userCode)
                } else {
                    arguments += [info.verificationURI.absoluteString, "--user-code=" + info.userCode]
                }
                arguments += ["--username", "alice", "--password=" + password]
                let command = arguments
                let task = Task { try await Self.runProcess(LocalOIDCProvider.python, command) }
                approval.withLock { $0 = task }
            }
        }
        var agentTask: Task<(status: Int32, output: String), any Error>?
        for _ in 0..<3000 where agentTask == nil {
            agentTask = approval.withLock { $0 }
            if agentTask == nil, (try? await Task.sleep(for: .milliseconds(10))) == nil { break }
        }
        guard let agentTask else {
            signIn.cancel()
            Issue.record("\(kind): no device code was issued: \(await signIn.result)")
            return
        }
        let approved = try await agentTask.value
        if approved.status != 0 {
            // Otherwise the flow would poll until the code expires (half an hour at DOT).
            signIn.cancel()
        }
        #expect(approved.status == 0, "\(kind): the user could not approve the code: \(approved.output)")
        let outcome = await signIn.result
        switch kind {
        case .glewlwyd:
            let result = try outcome.get()
            #expect(result.account.username == "alice" || result.account.username == "alice@example.test")
            #expect(result.idToken != nil)
            let account = try #require(try application.allAccounts().first)
            try await provider.resetStats()
            let silent = MSALSilentTokenParameters(scopes: Self.scopes, account: account)
            if dpop { silent.authenticationScheme = MSALAuthenticationSchemeDPoP() }
            let hit = try await application.acquireTokenSilent(with: silent)
            #expect(hit.tokenSource == .cache)
            #expect(try await provider.requestCount() == 0)
            if dpop {
                // Bound to the key of our proofs, and refreshed with a new proof of it.
                #expect(result.authenticationScheme == "DPoP" && hit.accessToken == result.accessToken)
                let proof = try result.dpopProof(httpMethod: .GET, requestUrl: URL(string: provider.issuer + "/userinfo")!)
                let jwk = try #require(try Self.jwtPart(proof, segment: 0)["jwk"] as? [String: Any])
                let thumbprint = try JSONWebKey(json: JSONSerialization.data(withJSONObject: jwk)).thumbprint()
                let cnf = try Self.jwtPart(result.accessToken, segment: 1)["cnf"] as? [String: Any]
                #expect(cnf?["jkt"] as? String == thumbprint, "glewlwyd's cnf: \(String(describing: cnf))")
                silent.forceRefresh = true
                let refreshed = try await application.acquireTokenSilent(with: silent)
                #expect(refreshed.tokenSource == .identityProvider && refreshed.accessToken != result.accessToken)
                #expect((try Self.jwtPart(refreshed.accessToken, segment: 1)["cnf"] as? [String: Any])?["jkt"] as? String == thumbprint)
                #expect(try await provider.tokenRequestCount() == 1)
            }
        case .djangoOAuthToolkit:
            // DOT's device grant answers with access and refresh tokens only: no ID token, no
            // client_info, so nothing says whose tokens they are.
            guard case .failure(let error) = outcome, let error = error as? MSALFailure else {
                Issue.record("expected a typed error, got \(outcome)")
                return
            }
            #expect(error.internalCode == .internalErrorInvalidResponse)
            #expect(error.message.contains("ID token"), "\(error.message)")
            #expect(try application.allAccounts().isEmpty)
        }
    }

    /// Runs `executable arguments…` off the cooperative pool; its exit status and what it wrote on
    /// standard output and error (for failure messages).
    static func runProcess(_ executable: URL, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await CommandRunner.offCooperativePool {
            let outcome = try ChildProcess.run(executable.path, arguments, timeout: 300)
            return (outcome.status, String(decoding: outcome.standardOutput + outcome.standardError, as: UTF8.self))
        }
    }

    @Test("glewlwyd's ES256 client: the ID token is signed with its P-256 key and verified; then a silent hit")
    func es256() async throws {
        try await LocalOIDCProvider.with(.glewlwyd) { provider, directory in
            let clientID = try #require(provider.summary["es256_client_id"] as? String)
            let redirectURI = "http://127.0.0.1:\(try Self.freePort())/"
            try await provider.registerRedirectURI(redirectURI, clientID: clientID)
            let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!, options: [.allowInsecureLoopback])
            let config = MSALPublicClientApplicationConfig(clientId: clientID, redirectUri: redirectURI, authority: authority)
            config.cacheConfig = MSALCacheConfig(storage: .file(path: directory.appendingPathComponent("cache.json").path))
            let application = try MSALPublicClientApplication(configuration: config)
            let agent = provider.kind.directory.appendingPathComponent(Agent.scripted.rawValue).path
            let webview = MSALWebviewParameters(
                browserCommand: [
                    LocalOIDCProvider.python.path, agent, "--username", "alice", "--password=" + (try provider.password("alice")), "%s",
                ])
            webview.timeout = 120
            let result = try await application.acquireToken(
                with: MSALInteractiveTokenParameters(scopes: ["email"], webviewParameters: webview))
            let idToken = try #require(result.idToken)
            let header = try #require(idToken.split(separator: ".").first)
            var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let decoded = try #require(Data(base64Encoded: base64))
            let json = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
            #expect(json["alg"] as? String == "ES256")
            #expect(json["kid"] as? String == "es256-key-1")
            let account = try #require(try application.allAccounts().first)
            try await provider.resetStats()
            let hit = try await application.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["email"], account: account))
            #expect(hit.tokenSource == .cache)
            #expect(try await provider.requestCount() == 0)
        }
    }

    /// The claims of a JWT's payload, or of a compact JWS's header when `segment` is 0.
    static func jwtPart(_ token: String, segment: Int) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        return try TokenProofOfPossessionCommandTests.claims(parts[segment])
    }

    @Test(
        "DPoP with glewlwyd (RFC 9449, a provider nobody here wrote): sign-in with dpop_jkt and a proof gives a DPoP token bound to our key (cnf.jkt = the thumbprint of the proof's jwk) that glewlwyd's userinfo and our own validator take with our resource proof (and not with a wrong, replayed or missing one, nor as Bearer), a cache hit with no request, a forced refresh with the bound refresh token and a new proof; a bearer request is refused before anything is sent, and glewlwyd itself refuses the bound refresh token without a proof (invalid_dpop_proof)"
    )
    func dpop() async throws {
        try await LocalOIDCProvider.with(.glewlwyd) { provider, directory in
            let cachePath = directory.appendingPathComponent("cache.json").path
            let redirectURI = try #require(try await Self.redirectURI(for: provider))
            let app = try App(provider, cachePath: cachePath, redirectURI: redirectURI)
            let agent = provider.kind.directory.appendingPathComponent(Agent.scripted.rawValue).path
            let webview = MSALWebviewParameters(
                browserCommand: [
                    LocalOIDCProvider.python.path, agent, "--username", "alice", "--password=" + (try provider.password("alice")), "%s",
                ])
            webview.timeout = 120
            let interactive = MSALInteractiveTokenParameters(scopes: Self.scopes, webviewParameters: webview)
            interactive.authenticationScheme = MSALAuthenticationSchemeDPoP()
            let signedIn = try await app.application.acquireToken(with: interactive)
            #expect(signedIn.authenticationScheme == "DPoP" && signedIn.authorizationHeader == "DPoP \(signedIn.accessToken)")

            // glewlwyd bound its access token to the key our proofs carry.
            let userinfo = URL(string: provider.issuer + "/userinfo")!
            let proof = try signedIn.dpopProof(httpMethod: .GET, requestUrl: userinfo)
            let jwk = try #require(try Self.jwtPart(proof, segment: 0)["jwk"] as? [String: Any])
            let thumbprint = try JSONWebKey(json: JSONSerialization.data(withJSONObject: jwk)).thumbprint()
            let cnf = try #require(try Self.jwtPart(signedIn.accessToken, segment: 1)["cnf"] as? [String: Any])
            #expect(cnf["jkt"] as? String == thumbprint, "glewlwyd's cnf: \(cnf)")

            // Our API-side validator takes glewlwyd's DPoP token only with its proof. (glewlwyd puts the
            // granted scopes in aud, as its own API audience.)
            let audience = try #require(try Self.jwtPart(signedIn.accessToken, segment: 1)["aud"] as? String)
            let validator = try MSALAccessTokenValidator(
                authority: try MSALOIDCAuthority(url: URL(string: provider.issuer)!, options: [.allowInsecureLoopback]),
                audiences: [audience])
            let api = URL(string: "https://api.example.test/orders")!
            let apiProof = try signedIn.dpopProof(httpMethod: .GET, requestUrl: api)
            let validated = try await validator.validate(
                authorizationHeader: signedIn.authorizationHeader, dpopProof: apiProof, httpMethod: "GET", requestURL: api)
            #expect(validated.dpopKeyThumbprint == thumbprint)
            for (header, proof) in [(signedIn.authorizationHeader, apiProof), ("Bearer \(signedIn.accessToken)", nil)] {
                let refusal = await #expect(throws: MSALFailure.self) {
                    try await validator.validate(authorizationHeader: header, dpopProof: proof, httpMethod: "GET", requestURL: api)
                }
                #expect(
                    refusal?.internalCode == (proof == nil ? .accessTokenSchemeMismatch : .dpopProofInvalid),
                    "a replayed proof, then the token as Bearer: \(String(describing: refusal))")
            }

            // glewlwyd's userinfo endpoint takes the token as DPoP with our proof for that request.
            var call = MSALHTTPRequest(method: .get, url: userinfo)
            call.headers.add(name: "Authorization", value: signedIn.authorizationHeader)
            call.headers.add(name: "DPoP", value: proof)
            let claims = try await MSALCurlTransport().send(call, limits: .default)
            #expect(
                claims.statusCode == 200,
                "userinfo answered \(claims.statusCode): \(String(decoding: claims.body, as: UTF8.self).prefix(300))")

            // It checks the proof: one made for another method, or none, is refused.
            for wrong in [try signedIn.dpopProof(httpMethod: .POST, requestUrl: userinfo), nil] {
                var bad = MSALHTTPRequest(method: .get, url: userinfo)
                bad.headers.add(name: "Authorization", value: signedIn.authorizationHeader)
                if let wrong { bad.headers.add(name: "DPoP", value: wrong) }
                let refusedCall = try await MSALCurlTransport().send(bad, limits: .default)
                #expect(refusedCall.statusCode != 200, "userinfo accepted a \(wrong == nil ? "missing" : "wrong-method") proof")
            }

            let account = try #require(try app.application.allAccounts().first)
            let parameters = MSALSilentTokenParameters(scopes: Self.scopes, account: account)
            parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
            try await provider.resetStats()
            let hit = try await app.application.acquireTokenSilent(with: parameters)
            #expect(hit.tokenSource == .cache && hit.accessToken == signedIn.accessToken)
            #expect(try await provider.requestCount() == 0)

            // The refresh token glewlwyd issued is bound: redeemed with a new proof of the same key.
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cachePath))) as? [String: Any])
            let refreshToken = try #require(
                ((document["RefreshToken"] as? [String: [String: Any]])?.first?.value)?["secret"] as? String)
            parameters.forceRefresh = true
            let refreshed = try await app.application.acquireTokenSilent(with: parameters)
            #expect(refreshed.tokenSource == .identityProvider && refreshed.accessToken != signedIn.accessToken)
            #expect((try Self.jwtPart(refreshed.accessToken, segment: 1)["cnf"] as? [String: Any])?["jkt"] as? String == thumbprint)
            #expect(try await provider.tokenRequestCount() == 1)

            // A bearer request for the account is refused by us, before glewlwyd sees it.
            try await provider.resetStats()
            let refused = await #expect(throws: MSALFailure.self) {
                try await app.silent(account, scopes: Self.scopes, forceRefresh: true)
            }
            #expect(refused?.internalCode == .internalErrorInvalidParameter, "\(String(describing: refused))")
            #expect(try await provider.requestCount() == 0)

            // And glewlwyd refuses the refresh token it bound when no proof comes with it (the
            // token of the sign-in, still valid: glewlwyd rotates, so it may also call it used).
            let after = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cachePath))) as? [String: Any])
            let current = try #require(((after["RefreshToken"] as? [String: [String: Any]])?.first?.value)?["secret"] as? String)
            #expect(current != refreshToken, "glewlwyd rotates refresh tokens")
            let form = "grant_type=refresh_token&client_id=\(provider.clientID)&refresh_token=\(current)"
            var request = MSALHTTPRequest(method: .post, url: URL(string: provider.issuer + "/token")!, body: Array(form.utf8))
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let answer = try await MSALCurlTransport().send(request, limits: .default)
            // glewlwyd 2.7.5 answers 403 where RFC 9449 §5 says 400; the error is the RFC's.
            let refusal = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            #expect(
                (400..<500).contains(answer.statusCode) && refusal?["error"] as? String == "invalid_dpop_proof",
                "glewlwyd answered \(answer.statusCode): \(String(decoding: answer.body, as: UTF8.self).prefix(300))")
        }
    }
}
