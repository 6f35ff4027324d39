import Foundation
import MSAL
import MSALEmulator
import MSALSupport
import Testing

/// `acquireToken(byRefreshToken:scopes:)` against the emulator: a refresh token an earlier
/// library kept (minted by the emulator as one) becomes an account in the cache, served silently
/// afterwards; bad and refused refresh tokens are typed errors and leave the cache empty.
@Suite("Refresh-token migration: acquireToken(byRefreshToken:scopes:)")
struct RefreshTokenMigrationTests {
    typealias Client = ConfidentialClientTests
    typealias Grant = ClientCredentialsGrantTests

    static func refreshGrants(_ harness: EmulatorHarness) -> Int {
        harness.emulator.requestCount(.token, grantType: .refreshToken)
    }

    @Test("A public client: the migrated user is an account, served silently with no request; the given token is not cached")
    func publicClient() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let brought = try harness.emulator.mintRefreshToken(of: EmulatorHarness.adele, clientID: EmulatorHarness.clientID)
            let result = try await app.acquireToken(byRefreshToken: brought, scopes: ["User.Read"])
            #expect(result.tokenSource == .identityProvider)
            #expect(result.account.username == EmulatorHarness.adele)
            #expect(result.idToken != nil)
            #expect(result.scopes.contains("User.Read"))
            #expect(Self.refreshGrants(harness) == 1)
            let form = try #require(harness.emulator.requests.last { $0.endpoint == .token }?.form)
            #expect(form["grant_type"] == "refresh_token")
            #expect(form["refresh_token"] == "<redacted>")
            #expect(
                Set(form["scope"]?.split(separator: " ").map(String.init) ?? []) == ["User.Read", "openid", "profile", "offline_access"])

            let accounts = try await app.allAccounts()
            #expect(accounts.map(\.username) == [EmulatorHarness.adele])
            let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: accounts[0]))
            #expect(silent.tokenSource == .cache)
            #expect(silent.accessToken == result.accessToken)
            #expect(Self.refreshGrants(harness) == 1)

            // The cache holds the answer's new refresh token, which works; the brought one was
            // rotated by its redemption, and presenting it again (a replay) revokes its lineage.
            let forced = MSALSilentTokenParameters(scopes: ["User.Read"], account: accounts[0])
            forced.forceRefresh = true
            #expect(try await app.acquireTokenSilent(with: forced).tokenSource == .identityProvider)
            let again = try #require(
                await Client.msalError { _ = try await app.acquireToken(byRefreshToken: brought, scopes: ["User.Read"]) })
            #expect(again.code == .interactionRequired)
            #expect(again.oauthError == "invalid_grant")
        }
    }

    @Test("A confidential client (a web app) migrates with its credential, and its silent calls serve the user")
    func confidentialClient() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Client.application(harness, tenant: "common")
            let brought = try harness.emulator.mintRefreshToken(of: EmulatorHarness.ben, clientID: Grant.secretClientID)
            let result = try await app.acquireToken(byRefreshToken: brought, scopes: ["User.Read"])
            #expect(result.account.username == EmulatorHarness.ben)
            #expect(harness.emulator.requests.last { $0.endpoint == .token }?.form["client_secret"] == "<redacted>")
            let account = try #require(try await app.allAccounts().first)
            let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(silent.tokenSource == .cache)
        }
    }

    @Test(
        "Malformed refresh tokens and no scopes are invalid-parameter errors before anything is sent; the token is never quoted",
        arguments: [
            ("empty", ""), ("a space", "abc def"), ("a line break", "abc\ndef"), ("non-ASCII", "abcé"),
            ("over 32 KiB", String(repeating: "a", count: 32 * 1024 + 1)),
        ])
    func malformed(name: String, token: String) async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let error = try #require(
                await Client.msalError { _ = try await app.acquireToken(byRefreshToken: token, scopes: ["User.Read"]) })
            #expect(error.internalCode == .internalErrorInvalidParameter, "\(name)")
            #expect(token.count < 3 || !error.message.contains(token), "\(name)")
            #expect(error.correlationID != nil)
            let noScopes = try #require(
                await Client.msalError { _ = try await app.acquireToken(byRefreshToken: "valid-looking", scopes: ["openid", " "]) })
            #expect(noScopes.internalCode == .internalErrorInvalidParameter)
            #expect(harness.emulator.requests.isEmpty)
        }
    }

    @Test(
        "Refused refresh tokens (unknown, revoked, expired, another client's) are interactionRequired with the OAuth error; nothing is cached"
    )
    func refused() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let revoked = try harness.emulator.mintRefreshToken(of: EmulatorHarness.adele, clientID: EmulatorHarness.clientID)
            try harness.emulator.revokeRefreshTokens(of: EmulatorHarness.adele)
            let expired = try harness.emulator.mintRefreshToken(of: EmulatorHarness.ben, clientID: EmulatorHarness.clientID)
            try harness.emulator.expireRefreshTokens(of: EmulatorHarness.ben)
            let otherClient = try harness.emulator.mintRefreshToken(of: EmulatorHarness.ben, clientID: EmulatorHarness.standaloneClientID)
            let cases: [(String, String, String?)] = [
                ("unknown", "never-issued-refresh-token", nil), ("revoked", revoked, nil), ("expired", expired, nil),
                ("another client's", otherClient, "client_mismatch"),
            ]
            for (name, token, subError) in cases {
                let error = try #require(
                    await Client.msalError { _ = try await app.acquireToken(byRefreshToken: token, scopes: ["User.Read"]) })
                #expect(error.code == .interactionRequired, "\(name)")
                #expect(error.internalCode == .internalErrorInvalidGrant, "\(name)")
                #expect(error.oauthError == "invalid_grant", "\(name)")
                if let subError { #expect(error.oauthSubError == subError, "\(name)") }
                #expect(!error.message.contains(token), "\(name)")
                #expect(error.correlationID != nil, "\(name)")
            }
            #expect(try await app.allAccounts().isEmpty)
        }
    }

    @Test("In a cache file: the answer's refresh token is written, never the one given")
    func givenTokenNeverWritten() async throws {
        try await EmulatorHarness.with { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-migrate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("cache.json").path
            let configuration = MSALPublicClientApplicationConfig(
                clientId: EmulatorHarness.clientID, redirectUri: nil, authority: try harness.authority())
            configuration.cacheConfig = MSALCacheConfig(storage: .file(path: path))
            configuration.clock = harness.clock
            let app = try MSALPublicClientApplication(configuration: configuration)
            let brought = try harness.emulator.mintRefreshToken(of: EmulatorHarness.adele, clientID: EmulatorHarness.clientID)
            _ = try await app.acquireToken(byRefreshToken: brought, scopes: ["User.Read"])
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let keepsGiven = text.contains(brought)
            #expect(!keepsGiven, "the given refresh token is in the cache file")
            #expect(text.contains("\"RefreshToken\""))
            let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect((document["RefreshToken"] as? [String: Any])?.count == 1)
        }
    }

    @Test(
        "A confidential client whose assertion provider fails: clientAssertionFailed with a correlation id, nothing sent to the token endpoint"
    )
    func credentialFailureIsCorrelated() async throws {
        struct ProviderDown: Error {}
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: Grant.certificateClientID, clientCredential: .assertion { _ in throw ProviderDown() },
                authority: try harness.authority(EmulatorHarness.contoso))
            configuration.clock = harness.clock
            let app = try MSALConfidentialClientApplication(configuration: configuration)
            let brought = try harness.emulator.mintRefreshToken(of: EmulatorHarness.adele, clientID: Grant.certificateClientID)
            let error = try #require(
                await Client.msalError { _ = try await app.acquireToken(byRefreshToken: brought, scopes: ["User.Read"]) })
            #expect(error.internalCode == .clientAssertionFailed)
            #expect(error.correlationID != nil)
            #expect(Self.refreshGrants(harness) == 0)
        }
    }
}
