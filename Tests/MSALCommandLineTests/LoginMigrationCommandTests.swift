import Foundation
import MSALEmulator
import Testing

/// `msal login --refresh-token-file`: a user migrated from another library's refresh token, run as
/// a process against an emulator in this process; the token is read from a file or standard
/// input, never an argument.
@Suite("msal login --refresh-token-file: migrating a user")
struct LoginMigrationCommandTests {
    static let user = "adele@contoso.example"

    final class Setup {
        let folder: URL
        let emulator: MSALEmulator

        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-login-rt-\(UUID().uuidString.lowercased())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            emulator = try MSALEmulator(configuration: .sample)
            try await emulator.start()
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        /// A refresh token of `user` written to a file of its own; returns the file's path.
        func refreshTokenFile(_ name: String = "rt.txt") throws -> String {
            let token = try emulator.mintRefreshToken(
                of: LoginMigrationCommandTests.user, clientID: MSALEmulator.Configuration.sampleClientID)
            try Data((token + "\n").utf8).write(to: folder.appendingPathComponent(name))
            return path(name)
        }

        func run(_ verb: String, _ arguments: [String], standardInput: Data? = nil) async throws -> CommandRunner.Result {
            try await CommandRunner.run(
                [
                    verb, "--client-id", MSALEmulator.Configuration.sampleClientID, "--authority",
                    emulator.authorityURL(tenant: "common").absoluteString, "--allow-http-loopback", "--scopes", "User.Read", "--cache",
                    path("cache.json"), "--output", "json",
                ] + arguments, standardInput: standardInput)
        }

        static func with(_ body: (Setup) async throws -> Void) async throws {
            let setup = try await Setup()
            do {
                try await body(setup)
            } catch {
                try? await setup.emulator.shutdown()
                throw error
            }
            try? await setup.emulator.shutdown()
        }
    }

    @Test("A refresh token file signs the user in; msal token then answers from the cache; standard input works too")
    func migrates() async throws {
        try await Setup.with { setup in
            let login = try await setup.run("login", ["--refresh-token-file", try setup.refreshTokenFile()])
            #expect(login.status == 0, "\(login.standardError)")
            let json = try login.json()
            #expect(json["token_source"] as? String == "identity_provider")
            #expect((json["account"] as? [String: Any])?["username"] as? String == Self.user)
            let token = try await setup.run("token", ["--account", Self.user])
            #expect(token.status == 0, "\(token.standardError)")
            #expect(try token.json()["token_source"] as? String == "cache")
            #expect(setup.emulator.requestCount(.token, grantType: .refreshToken) == 1)

            let piped = try await setup.run(
                "login", ["--refresh-token-file", "-"],
                standardInput: try Data(contentsOf: URL(fileURLWithPath: try setup.refreshTokenFile("second.txt"))))
            #expect(piped.status == 0, "\(piped.standardError)")
            #expect(setup.emulator.requestCount(.token, grantType: .refreshToken) == 2)
        }
    }

    @Test("A revoked refresh token fails typed with no account cached; other sign-in options are refused with it")
    func refusedAndMisused() async throws {
        try await Setup.with { setup in
            let file = try setup.refreshTokenFile()
            try setup.emulator.revokeRefreshTokens(of: Self.user)
            let refused = try await setup.run("login", ["--refresh-token-file", file])
            #expect(refused.status != 0)
            #expect(
                refused.standardError.contains("invalid_grant") || refused.standardOutput.contains("invalid_grant"),
                "\(refused.standardError)")
            let accounts = try await CommandRunner.run(["accounts", "--cache", setup.path("cache.json"), "--output", "json"])
            #expect(accounts.status == 0, "\(accounts.standardError)")
            #expect(!accounts.standardOutput.contains(Self.user))

            let misused = try await setup.run("login", ["--refresh-token-file", file, "--device-code"])
            #expect(misused.status != 0)
            #expect(misused.standardError.contains("--refresh-token-file"))
            #expect(setup.emulator.requestCount(.token, grantType: .refreshToken) == 1)
        }
    }
}
