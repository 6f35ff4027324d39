import Foundation
import Testing

/// The `msal` command against real OpenID providers nobody here wrote (Django OAuth Toolkit,
/// glewlwyd), as a user would run it: `login --authority-kind oidc` through the provider's real
/// login page, `accounts`, `token` from the cache with 0 requests at the provider, an expired token
/// refreshed, `--force-refresh`, `logout` without `--authority`, `logout --browser-session`, and
/// `login --device-code`.
@Suite("msal against real OpenID providers", .serialized)
struct OIDCProviderCommandTests {
    typealias Agent = OIDCProviderLibraryTests.Agent

    struct Session {
        let provider: LocalOIDCProvider
        let cache: String
        let redirectURI: String?

        /// `verb` with the application options of this provider and cache.
        func arguments(_ verb: [String], _ extra: [String] = []) -> [String] {
            var words =
                verb + [
                    "--client-id", provider.clientID, "--authority", provider.issuer, "--authority-kind", "oidc", "--allow-http-loopback",
                    "--scopes", "email", "--cache", cache, "--output", "json",
                ]
            if let redirectURI { words += ["--redirect-uri", redirectURI] }
            return words + extra
        }

        /// Where the agents' standard error goes (`msal` discards its browser's output).
        var agentLog: String { cache + ".agent.log" }

        /// The `--browser` value that signs `user` in with `agent`, quoted as a shell would read it; the agent's
        /// standard error is appended to ``agentLog``.
        func browser(_ agent: Agent, user: String) throws -> String {
            let script = provider.kind.directory.appendingPathComponent(agent.rawValue).path
            return
                "/bin/sh -c 'exec \"$0\" \"$@\" 2>>\(agentLog)' '\(LocalOIDCProvider.python.path)' '\(script)' --username \(user) '--password=\(try provider.password(user))'"
        }

        /// What the agents wrote on standard error so far, for failure messages.
        func agentOutput() -> String {
            (try? String(contentsOfFile: agentLog, encoding: .utf8)).map { "agent: " + $0 } ?? "agent: (no output)"
        }

        func run(_ verb: [String], _ extra: [String] = [], environment: [String: String] = [:]) async throws -> CommandRunner.Result {
            try await CommandRunner.run(arguments(verb, extra), timeout: 120, environment: environment)
        }
    }

    @Test(
        "login, accounts, token from the cache (0 requests), expired and forced refresh, logout, logout --browser-session",
        arguments: LocalOIDCProvider.Kind.allCases, Agent.allCases)
    func lifecycle(kind: LocalOIDCProvider.Kind, agent: Agent) async throws {
        try await LocalOIDCProvider.with(kind) { provider, directory in
            let session = Session(
                provider: provider, cache: directory.appendingPathComponent("cache.json").path,
                redirectURI: try await OIDCProviderLibraryTests.redirectURI(for: provider))
            try await run(session, agent: agent)
        }
    }

    @Test(
        "login --device-code: glewlwyd signs the user in (then a token from the cache with 0 requests); Django OAuth Toolkit answers without an ID token: a typed error, nothing cached",
        arguments: LocalOIDCProvider.Kind.allCases)
    func deviceCode(kind: LocalOIDCProvider.Kind) async throws {
        try await LocalOIDCProvider.with(kind, kind == .djangoOAuthToolkit ? ["--advertise-device-endpoint"] : []) { provider, directory in
            let cache = directory.appendingPathComponent("cache.json").path
            let clientID = (provider.summary["device_client_id"] as? String) ?? provider.clientID
            let options = [
                "--client-id", clientID, "--authority", provider.issuer, "--authority-kind", "oidc", "--allow-http-loopback",
                "--scopes", "email", "--cache", cache, "--output", "json",
            ]
            let login = try BrowserUnavailableTests.RunningLogin(
                ["login", "--device-code"] + options, environment: ProcessInfo.processInfo.environment)
            defer { login.kill() }
            // With --output json the prompt is one JSON line on standard error.
            let line = try #require(try await login.firstLine { $0.hasPrefix("{\"device_code\"") }, "\(kind): no device code prompt")
            let prompt = try #require(
                (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["device_code"] as? [String: Any], "\(line)")
            let uri = try #require(prompt["verification_uri"] as? String)
            let code = try #require(prompt["user_code"] as? String)
            #expect(prompt["message"] as? String != nil && prompt["expires_on"] as? Int != nil)

            // The user, on another device, enters the code on the verification page.
            var arguments = [kind.directory.appendingPathComponent(Agent.scripted.rawValue).path]
            arguments += kind == .glewlwyd ? [uri + "?code=" + code] : [uri, "--user-code=" + code]
            arguments += ["--username", "alice", "--password=" + (try provider.password("alice"))]
            let approved = try await OIDCProviderLibraryTests.runProcess(LocalOIDCProvider.python, arguments + ["--verbose"])
            #expect(approved.status == 0, "\(kind): the user could not approve the code: \(approved.output)")
            if approved.status != 0 { login.kill() }  // else it polls until the code expires

            let (status, standardOutput, standardError) = try await login.finish()
            let output = try #require(
                try JSONSerialization.jsonObject(with: Data(standardOutput.utf8)) as? [String: Any],
                "\(standardOutput) \(standardError)" as Comment)
            switch kind {
            case .glewlwyd:
                #expect(status == 0, "\(standardError)")
                let username = (output["account"] as? [String: Any])?["username"] as? String
                #expect(username == "alice" || username == "alice@example.test", "\(output)")
                try await provider.resetStats()
                let hit = try await CommandRunner.run(["token"] + options)
                #expect(hit.status == 0, "\(hit.standardError)")
                #expect(try hit.json()["token_source"] as? String == "cache")
                #expect(try await provider.requestCount() == 0)
            case .djangoOAuthToolkit:
                // DOT's device grant answers with access and refresh tokens only: nothing says whose they are.
                #expect(status == 1)
                let error = try #require(output["error"] as? [String: Any], "\(output)")
                #expect(error["internal_name"] as? String == "internalErrorInvalidResponse")
                #expect((error["message"] as? String)?.contains("ID token") == true, "\(error)")
                let accounts = try await CommandRunner.run(["accounts", "--cache", cache, "--output", "json"])
                #expect((try accounts.json()["accounts"] as? [[String: Any]])?.isEmpty == true)
            }
        }
    }

    private func run(_ session: Session, agent: Agent) async throws {
        let provider = session.provider
        let kind = provider.kind

        let login = try await session.run(["login"], ["--browser", try session.browser(agent, user: "alice"), "--timeout", "90"])
        #expect(login.status == 0, "\(kind) login: \(login.standardError) \(session.agentOutput())")
        let signedIn = try login.json()
        let account = try #require(signedIn["account"] as? [String: Any], "\(kind): \(login.standardOutput)")
        let subject = try #require(account["identifier"] as? String)
        let username = account["username"] as? String
        #expect(username == "alice" || username == "alice@example.test", "\(kind): \(String(describing: username))")
        #expect((signedIn["id_token_claims"] as? [String: Any])?["iss"] as? String == provider.issuer)

        let accounts = try await CommandRunner.run(["accounts", "--cache", session.cache, "--output", "json"])
        #expect(accounts.status == 0, "\(accounts.standardError)")
        let listed = try #require(try accounts.json()["accounts"] as? [[String: Any]])
        #expect(listed.compactMap { $0["identifier"] as? String ?? $0["home_account_id"] as? String } == [subject], "\(kind): \(listed)")

        // From the cache: nothing reaches the provider (not even discovery).
        try await provider.resetStats()
        let hit = try await session.run(["token"])
        #expect(hit.status == 0, "\(kind) token: \(hit.standardError)")
        #expect(try hit.json()["token_source"] as? String == "cache")
        #expect(try hit.json()["access_token"] as? String == signedIn["access_token"] as? String)
        #expect(try await provider.requestCount() == 0, "\(kind): msal token from the cache reached the provider")

        // Expired (the token must stay valid a day): refreshed.
        let expired = try await session.run(["token"], ["--expiration-buffer", "86400"])
        #expect(expired.status == 0, "\(kind) token: \(expired.standardError)")
        #expect(try expired.json()["token_source"] as? String == "identity_provider")
        let refreshedToken = try expired.json()["access_token"] as? String
        #expect(refreshedToken != signedIn["access_token"] as? String)

        // And the refreshed token is what the cache answers next.
        let afterRefresh = try await session.run(["token"])
        #expect(try afterRefresh.json()["access_token"] as? String == refreshedToken, "\(kind)")
        #expect(try afterRefresh.json()["token_source"] as? String == "cache")

        let forced = try await session.run(["token"], ["--force-refresh"])
        #expect(forced.status == 0, "\(kind) token --force-refresh: \(forced.standardError)")
        #expect(try forced.json()["token_source"] as? String == "identity_provider")
        #expect(try forced.json()["access_token"] as? String != refreshedToken)

        // logout without --authority finds the account wherever the cache holds it.
        let logout = try await CommandRunner.run([
            "logout", "--client-id", provider.clientID, "--account", subject, "--cache", session.cache, "--output", "json",
        ])
        #expect(logout.status == 0, "\(kind) logout: \(logout.standardError)")
        #expect(try logout.json()["signed_out"] as? String == subject)
        let none = try await CommandRunner.run(["accounts", "--cache", session.cache, "--output", "json"])
        #expect((try none.json()["accounts"] as? [[String: Any]])?.isEmpty == true, "\(kind): \(none.standardOutput)")

        // Sign in again, then end the browser session too: $BROWSER requests the end-session page.
        let again = try await session.run(["login"], ["--browser", try session.browser(.scripted, user: "alice"), "--timeout", "90"])
        #expect(again.status == 0, "\(kind) login: \(again.standardOutput) \(again.standardError) \(session.agentOutput())")
        let againSubject = try #require((try again.json()["account"] as? [String: Any])?["identifier"] as? String)
        let visitLog = session.cache + ".end-session-url"
        let browser = "/bin/sh -c 'echo \"$0\" > \(visitLog); exec curl -s -o /dev/null \"$0\"' %s"
        let browserLogout = try await session.run(
            ["logout"], ["--account", againSubject, "--browser-session"], environment: ["BROWSER": browser])
        #expect(browserLogout.status == 0, "\(kind) logout --browser-session: \(browserLogout.standardError)")
        let visited = try String(contentsOfFile: visitLog, encoding: .utf8)
        #expect(visited.contains("id_token_hint="), "\(kind): \(visited.prefix(200))")
        #expect(visited.hasPrefix(try await provider.endSessionEndpoint() + "?"))
    }
}
