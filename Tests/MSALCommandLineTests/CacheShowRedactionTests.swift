import Foundation
import Testing

/// `msal cache show` never prints a credential, whatever member name, JSON type or section holds it.
@Suite("msal cache show: every credential member redacted")
struct CacheShowRedactionTests {
    static let home = "uid.utid"
    static let environment = "login.microsoftonline.com"
    static let client = "1d18b3b0-251b-4714-a02a-9956cec86c2d"
    /// A number under an unknown member name: a secret too.
    static let secretNumber = "424242424242"

    /// A credential entry of `type` whose token sits under `secret` and under unknown members of
    /// every JSON type, beside the schema's non-secret fields.
    static func credential(_ type: String, marker: String, extra: [String: Any] = [:]) -> [String: Any] {
        var entry: [String: Any] = [
            "home_account_id": home, "environment": environment, "credential_type": type, "client_id": client,
            "realm": "utid", "target": "User.Read openid", "cached_at": "1700000000", "expires_on": "1700003600",
            "extended_expires_on": "1700007200", "token_type": "Bearer",
            "secret": "\(marker)-secret", "token": "\(marker)-token", "refresh_token": "\(marker)-refresh_token",
            "value": "\(marker)-value", "data": "\(marker)-data", "nested": ["x": ["y": "\(marker)-nested"]],
            "list": ["\(marker)-array", ["deeper": "\(marker)-array-object"]], "number": Int64(secretNumber)!,
        ]
        entry.merge(extra) { _, new in new }
        return entry
    }

    /// The cache document, written 0600 in a private directory.
    static func cacheFile() throws -> String {
        let document: [String: Any] = [
            "AccessToken": [
                "at-key": credential("AccessToken", marker: "AT-SECRET", extra: ["refresh_on": "1700001800", "key_id": "kid-1"])
            ],
            "RefreshToken": [
                "rt-key": credential(
                    "RefreshToken", marker: "RT-SECRET", extra: ["family_id": "1", "last_modification_time": "1700000001"])
            ],
            "IdToken": ["idt-key": credential("IdToken", marker: "IDT-SECRET")],
            "Account": [
                "account-key": [
                    "home_account_id": home, "environment": environment, "realm": "utid", "local_account_id": "oid",
                    "username": "adele@contoso.example", "authority_type": "MSSTS", "client_info": "CLIENT-INFO-SECRET",
                ]
            ],
            "AppMetadata": ["appmetadata-key": ["client_id": client, "environment": environment, "family_id": "1"]],
            "Vault": [
                "vault-entry": [
                    "client_id": "vault-client", "environment": environment, "refresh_token": "VAULT-SECRET-refresh_token",
                    "x": ["y": "VAULT-SECRET-nested"], "n": Int64(secretNumber)!,
                ],
                "vault-scalar": "VAULT-SECRET-scalar",
            ],
            "Bare": "BARE-SECRET",
        ]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cli-redaction-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory.appendingPathComponent("cache.json").path
        try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    @Test(
        "Text and JSON: no token under secret, token, refresh_token, value, data, a nested object, an array, a number or an unknown section"
    )
    func noSecretAnywhere() async throws {
        let path = try Self.cacheFile()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        for format in ["text", "json"] {
            let result = try await CommandRunner.run(["cache", "show", "--cache", path, "--output", format])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(!result.standardOutput.contains("SECRET"), "\(format) output shows a secret:\n\(result.standardOutput)")
            #expect(!result.standardOutput.contains(Self.secretNumber), "\(format) output shows the number")
            #expect(result.standardOutput.contains("<redacted, "))
            for shown in [
                Self.home, Self.environment, Self.client, "User.Read openid", "1700000000", "1700003600", "1700007200", "1700001800",
                "kid-1", "1700000001", "adele@contoso.example", "vault-client",
            ] {
                #expect(result.standardOutput.contains(shown), "\(format) output lacks \(shown)")
            }
        }
    }

    @Test("JSON: the schema's non-secret fields unchanged, every other member of a credential entry a marker under its own name")
    func jsonShape() async throws {
        let path = try Self.cacheFile()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let json = try await CommandRunner.run(["cache", "show", "--cache", path, "--output", "json"]).json()
        for (section, key, type) in [
            ("AccessToken", "at-key", "AccessToken"), ("RefreshToken", "rt-key", "RefreshToken"), ("IdToken", "idt-key", "IdToken"),
        ] {
            let entry = try #require((json[section] as? [String: Any])?[key] as? [String: String], "\(section)")
            #expect(entry["home_account_id"] == Self.home)
            #expect(entry["environment"] == Self.environment)
            #expect(entry["credential_type"] == type)
            #expect(entry["client_id"] == Self.client)
            #expect(entry["realm"] == "utid")
            #expect(entry["target"] == "User.Read openid")
            #expect(entry["cached_at"] == "1700000000")
            #expect(entry["expires_on"] == "1700003600")
            #expect(entry["extended_expires_on"] == "1700007200")
            #expect(entry["token_type"] == "Bearer")
            for member in ["secret", "token", "refresh_token", "value", "data", "nested", "list", "number"] {
                #expect(entry[member]?.hasPrefix("<redacted, ") == true, "\(section).\(member): \(entry[member] ?? "absent")")
            }
        }
        let accessToken = try #require((json["AccessToken"] as? [String: Any])?["at-key"] as? [String: String])
        #expect(accessToken["refresh_on"] == "1700001800" && accessToken["key_id"] == "kid-1")
        let refreshToken = try #require((json["RefreshToken"] as? [String: Any])?["rt-key"] as? [String: String])
        #expect(refreshToken["family_id"] == "1" && refreshToken["last_modification_time"] == "1700000001")
        let account = try #require((json["Account"] as? [String: Any])?["account-key"] as? [String: String])
        #expect(account["username"] == "adele@contoso.example" && account["local_account_id"] == "oid")
        #expect(account["client_info"]?.hasPrefix("<redacted, ") == true)

        #expect(Set(json["unknown_sections"] as? [String] ?? []) == ["Vault", "Bare"])
        let others = try #require(json["other_sections"] as? [String: Any])
        let vault = try #require(others["Vault"] as? [String: Any])
        let vaultEntry = try #require(vault["vault-entry"] as? [String: String])
        #expect(vaultEntry["client_id"] == "vault-client" && vaultEntry["environment"] == Self.environment)
        for member in ["refresh_token", "x", "n"] {
            #expect(vaultEntry[member]?.hasPrefix("<redacted, ") == true, "Vault.\(member)")
        }
        #expect((vault["vault-scalar"] as? String)?.hasPrefix("<redacted, ") == true)
        #expect((others["Bare"] as? String)?.hasPrefix("<redacted, ") == true)
    }
}
