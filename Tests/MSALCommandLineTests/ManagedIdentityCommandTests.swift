import Foundation
import MSALEmulator
import Testing

/// `msal managed-identity token|source` run as a process against an emulator in this process:
/// IMDS through `AZURE_POD_IDENTITY_AUTHORITY_HOST`, App Service through its variables, the cache
/// file between runs, and usage errors. Nothing is sent to 169.254.169.254.
@Suite("msal managed-identity: tokens for this machine's identity")
struct ManagedIdentityCommandTests {
    typealias Sample = MSALEmulator.Configuration

    static func withEmulator(_ body: (MSALEmulator, String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-mi-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let emulator = try MSALEmulator(configuration: .sample)
        try await emulator.start()
        do {
            try await body(emulator, folder.appendingPathComponent("cache.json").path)
        } catch {
            try? await emulator.shutdown()
            throw error
        }
        try? await emulator.shutdown()
    }

    @Test("IMDS through AZURE_POD_IDENTITY_AUTHORITY_HOST: a token, then the cache file's with 0 requests; the JSON shape of msal token")
    func imds() async throws {
        try await Self.withEmulator { emulator, cache in
            let environment = ["AZURE_POD_IDENTITY_AUTHORITY_HOST": emulator.baseURL.absoluteString]
            let arguments = [
                "managed-identity", "token", "--resource", "https://management.azure.com", "--cache", cache, "--output", "json",
            ]
            let first = try await CommandRunner.run(arguments, environment: environment)
            #expect(first.status == 0, "\(first.standardOutput) \(first.standardError)")
            let json = try first.json()
            #expect(json["token_source"] as? String == "identity_provider")
            #expect((json["access_token"] as? String)?.isEmpty == false)
            #expect((json["account"] as? [String: Any])?["identifier"] is NSNull)
            let second = try await CommandRunner.run(arguments, environment: environment)
            #expect(try second.json()["token_source"] as? String == "cache")
            #expect(try second.json()["access_token"] as? String == json["access_token"] as? String)
            #expect(emulator.requestCount(.imds) == 1)

            let source = try await CommandRunner.run(["managed-identity", "source"], environment: environment)
            #expect(source.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "imds")
        }
    }

    @Test("App Service with a user-assigned identity by client id; a wrong identity header is exit 1 with the typed error")
    func appService() async throws {
        try await Self.withEmulator { emulator, cache in
            var environment = [
                "IDENTITY_ENDPOINT": emulator.appServiceTokenURL.absoluteString, "IDENTITY_HEADER": Sample.sampleAppServiceIdentityHeader,
            ]
            let source = try await CommandRunner.run(["managed-identity", "source", "--output", "json"], environment: environment)
            #expect(try source.json()["source"] as? String == "app_service")
            let result = try await CommandRunner.run(
                [
                    "managed-identity", "token", "--resource", "https://vault.azure.net", "--client-id",
                    Sample.sampleUserAssignedIdentityClientID, "--cache", cache, "--output", "json",
                ], environment: environment)
            #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
            #expect(emulator.requestCount(.appService) == 1)

            environment["IDENTITY_HEADER"] = "wrong"
            let refused = try await CommandRunner.run(
                ["managed-identity", "token", "--resource", "https://storage.azure.com", "--cache", cache, "--output", "json"],
                environment: environment)
            #expect(refused.status == 1)
            let error = try #require(try refused.json()["error"] as? [String: Any])
            #expect(error["internal_name"] as? String == "managedIdentityRequestFailed", "\(error)")
        }
    }

    @Test("Usage errors: two user-assigned ids, no resource")
    func usage() async throws {
        let two = try await CommandRunner.run(["managed-identity", "token", "--resource", "r", "--client-id", "a", "--object-id", "b"])
        #expect(two.status == 64, "\(two.standardError)")
        let none = try await CommandRunner.run(["managed-identity", "token"])
        #expect(none.status == 64)
    }
}
