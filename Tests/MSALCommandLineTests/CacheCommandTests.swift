import Foundation
import Testing

/// `msal accounts`, `msal cache show` and `msal cache remove`, run as a process on copies of the
/// reference cache documents.
@Suite("msal accounts and msal cache")
struct CacheCommandTests {
    static let client = "1d18b3b0-251b-4714-a02a-9956cec86c2d"
    static let guestAccount = "6eeda3a1-c3b9-4e92-a94d-965a50c06de7.72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let otherAccount = "ae821e4d-f408-451a-af82-882691148603.49f548d0-12b7-4169-a390-bb5304d24462"

    /// A private directory with a copy of a fixture document as `cache.json` (0600).
    static func copy(_ name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory.appendingPathComponent("cache.json").path
        try FileManager.default.copyItem(
            atPath: CommandRunner.fixtures.appendingPathComponent("Cache/documents/\(name)").path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    @Test("accounts lists every account with its tenant profiles; --client-id narrows; JSON and text")
    func accounts() async throws {
        let path = try Self.copy("dotnet_MultiTenantTokenCache.json")
        let json = try await CommandRunner.run(["accounts", "--cache", path, "--output", "json"]).json()
        let accounts = try #require(json["accounts"] as? [[String: Any]])
        #expect(Set(accounts.compactMap { $0["identifier"] as? String }) == [Self.guestAccount, Self.otherAccount])
        let guest = try #require(accounts.first { $0["identifier"] as? String == Self.guestAccount })
        #expect(guest["username"] as? String == "user@domain.com")
        let profiles = try #require(guest["tenant_profiles"] as? [[String: Any]])
        #expect(profiles.count == 2)
        #expect(profiles.first?["is_home_tenant"] as? Bool == true)

        let forClient = try await CommandRunner.run(["accounts", "--cache", path, "--client-id", Self.client, "--output", "json"]).json()
        #expect((forClient["accounts"] as? [Any])?.count == 2)
        let none = try await CommandRunner.run(["accounts", "--cache", path, "--client-id", "someone-else", "--output", "json"]).json()
        #expect((none["accounts"] as? [Any])?.isEmpty == true)

        let text = try await CommandRunner.run(["accounts", "--cache", path])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains(Self.guestAccount) && text.standardOutput.contains("(home)"))
    }

    @Test("cache show prints every entry and never a secret")
    func show() async throws {
        let path = try Self.copy("dotnet_CacheFromTheFuture.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        for format in ["text", "json"] {
            let result = try await CommandRunner.run(["cache", "show", "--cache", path, "--output", format])
            #expect(result.status == 0)
            for section in ["AccessToken", "RefreshToken", "IdToken"] {
                for entry in (document[section] as? [String: [String: Any]] ?? [:]).values {
                    if let secret = entry["secret"] as? String, secret.count > 3 {
                        #expect(!result.standardOutput.contains(secret), "\(format) output shows a \(section) secret")
                    }
                }
            }
            #expect(result.standardOutput.contains("<redacted"))
        }
        let json = try await CommandRunner.run(["cache", "show", "--cache", path, "--output", "json"]).json()
        #expect((json["unknown_sections"] as? [String])?.contains("Foo") == true)
        #expect((json["AccessToken"] as? [String: Any])?.count == (document["AccessToken"] as? [String: Any])?.count)
    }

    @Test("cache remove takes an account's entries and keeps the rest; the file stays valid for other readers")
    func remove() async throws {
        let path = try Self.copy("dotnet_MultiTenantTokenCache.json")
        let result = try await CommandRunner.run(["cache", "remove", "--cache", path, "--account", Self.otherAccount, "--output", "json"])
            .json()
        #expect((result["removed_entries"] as? Int ?? 0) >= 4)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        for section in ["AccessToken", "RefreshToken", "IdToken", "Account"] {
            let entries = try #require(document[section] as? [String: [String: Any]])
            #expect(!entries.isEmpty)
            #expect(entries.values.allSatisfy { $0["home_account_id"] as? String == Self.guestAccount }, "\(section)")
        }
        let again = try await CommandRunner.run(["cache", "remove", "--cache", path, "--account", Self.otherAccount])
        #expect(again.standardOutput.contains("Nothing to remove"))
    }

    @Test("A corrupt cache file is moved aside and reported as cacheCorrupt")
    func corrupt() async throws {
        let path = try Self.copy("dotnet_MultiTenantTokenCache.json")
        try Data("{\"AccessToken\": {".utf8).write(to: URL(fileURLWithPath: path))
        let result = try await CommandRunner.run(["accounts", "--cache", path, "--output", "json"])
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any])
        #expect(error["internal_name"] as? String == "cacheCorrupt")
        let directory = (path as NSString).deletingLastPathComponent
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(names.contains { $0.hasPrefix("cache.json.corrupt-") })
        #expect(!names.contains("cache.json"))
    }
}
