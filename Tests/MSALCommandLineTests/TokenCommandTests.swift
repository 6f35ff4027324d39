import Foundation
import Testing

/// `msal token`, `msal login` and `msal logout`, run as a process.
@Suite("msal token, login and logout")
struct TokenCommandTests {
    static let client = "5a9c3e7b-2d4f-4a6c-8e0b-1c3d5e7f9a2b"
    static let home = "882057b0-d4ff-460d-9eb8-9d85b6bfa008.f906eef1-4fbe-4d3b-915a-335e1a772b29"
    static let authority = "https://login.microsoftonline.com/organizations"

    /// A private directory with a one-account cache (access token valid until 2100, as MSAL for
    /// Python writes it under `organizations`) and a fixture with no interactions, so any network
    /// call fails the command.
    static func setUp() throws -> (cache: String, noNetwork: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cli-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let (uid, utid) = ("882057b0-d4ff-460d-9eb8-9d85b6bfa008", "f906eef1-4fbe-4d3b-915a-335e1a772b29")
        let env = "login.microsoftonline.com"
        let document: [String: Any] = [
            "AccessToken": [
                "\(home)-\(env)-accesstoken-\(client)-organizations-user.read email openid profile": [
                    "credential_type": "AccessToken", "home_account_id": home, "environment": env, "client_id": client,
                    "target": "User.Read email openid profile", "realm": "organizations", "token_type": "Bearer",
                    "cached_at": "1767225600", "expires_on": "4102444800", "extended_expires_on": "4102444800",
                    "secret": "cached-access-token",
                ]
            ],
            "RefreshToken": [
                "\(home)-\(env)-refreshtoken-\(client)--": [
                    "credential_type": "RefreshToken", "home_account_id": home, "environment": env, "client_id": client,
                    "secret": "cached-refresh-token",
                ]
            ],
            "Account": [
                "\(home)-\(env)-organizations": [
                    "home_account_id": home, "environment": env, "realm": "organizations", "local_account_id": uid,
                    "username": "ines@contoso.example", "authority_type": "MSSTS",
                ]
            ],
            "IdToken": [:], "AppMetadata": [:],
        ]
        _ = utid
        let cache = directory.appendingPathComponent("cache.json").path
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: cache))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: cache)
        let noNetwork = directory.appendingPathComponent("no-network.json").path
        try Data(#"{"name":"no-network","description":"Any request fails.","interactions":[]}"#.utf8).write(
            to: URL(fileURLWithPath: noNetwork))
        return (cache, noNetwork)
    }

    static func arguments(_ verb: String, _ paths: (cache: String, noNetwork: String), _ extra: [String] = []) -> [String] {
        [
            verb, "--client-id", client, "--authority", authority, "--scopes", "User.Read", "--cache", paths.cache, "--replay",
            paths.noNetwork,
        ] + extra
    }

    @Test("token answers from the cache with no network call; JSON has the token, expiry, scopes, source and account")
    func silentHit() async throws {
        let paths = try Self.setUp()
        let run = try await CommandRunner.run(Self.arguments("token", paths, ["--output", "json"]))
        #expect(run.status == 0, "\(run.standardError)")
        let json = try run.json()
        #expect(json["access_token"] as? String == "cached-access-token")
        #expect(json["expires_on"] as? Int == 4_102_444_800)
        #expect(json["token_source"] as? String == "cache")
        #expect(json["scopes"] as? [String] == ["User.Read", "email", "openid", "profile"])
        let account = try #require(json["account"] as? [String: Any])
        #expect(account["identifier"] as? String == Self.home)
        #expect(account["username"] as? String == "ines@contoso.example")
        #expect(account["environment"] as? String == "login.microsoftonline.com")

        let text = try await CommandRunner.run(Self.arguments("token", paths))
        #expect(text.status == 0)
        #expect(text.standardOutput == "cached-access-token\n")
    }

    @Test("token --force-refresh needs the network: the replayed transport refuses, exit 1 with a typed JSON error")
    func forceRefreshWithoutNetwork() async throws {
        let paths = try Self.setUp()
        let run = try await CommandRunner.run(Self.arguments("token", paths, ["--force-refresh", "--output", "json"]))
        #expect(run.status == 1)
        let error = try #require(try run.json()["error"] as? [String: Any])
        #expect(error["code"] as? Int == -50000)
        #expect(error["internal_code"] as? Int == -47001)
        #expect(error["correlation_id"] as? String != nil)
        #expect(!run.standardOutput.contains("cached-refresh-token"))
    }

    @Test("token for an unknown account, and without a client id: exit 1 with the error object")
    func errors() async throws {
        let paths = try Self.setUp()
        let unknown = try await CommandRunner.run(Self.arguments("token", paths, ["--account", "nobody.nowhere", "--output", "json"]))
        #expect(unknown.status == 1)
        #expect((try unknown.json()["error"] as? [String: Any])?["internal_code"] as? Int == -42106)

        let noClient = try await CommandRunner.run(["token", "--cache", paths.cache, "--output", "json"])
        #expect(noClient.status == 1)
        #expect((try noClient.json()["error"] as? [String: Any])?["internal_code"] as? Int == -42000)
    }

    @Test("login with a browser command that cannot run: the URL is printed, then redirectTimeout after --timeout")
    func loginWithoutBrowser() async throws {
        var paths = try Self.setUp()
        // The recorded `organizations` discovery and metadata, so the sign-in gets as far as the browser.
        paths.noNetwork = CommandRunner.fixtures.appendingPathComponent("Conformance/Authority/aad-organizations.json").path
        let run = try await CommandRunner.run(
            Self.arguments("login", paths, ["--browser", "/nonexistent/browser", "--timeout", "1", "--output", "json"]))
        #expect(run.status == 1)
        let error = try #require(try run.json()["error"] as? [String: Any])
        #expect(error["internal_code"] as? Int == -49002)
        #expect(run.standardError.contains("No browser could be started"))
        // The listener's single-use start URL, not the authorization URL with its state and nonce.
        #expect(run.standardError.contains("/msal-start/") && !run.standardError.contains("state="), "\(run.standardError)")
    }

    @Test("logout removes the account: token then reports interactionRequired")
    func logout() async throws {
        let paths = try Self.setUp()
        let out = try await CommandRunner.run(Self.arguments("logout", paths, ["--account", Self.home, "--output", "json"]))
        #expect(out.status == 0, "\(out.standardError)")
        #expect(try out.json()["signed_out"] as? String == Self.home)
        let after = try await CommandRunner.run(Self.arguments("token", paths, ["--output", "json"]))
        #expect(after.status == 1)
        #expect((try after.json()["error"] as? [String: Any])?["code"] as? Int == -50002)
    }
}
