import Foundation
import Testing

@Suite("msal authority show")
struct AuthorityCommandTests {
    static func scenario(_ name: String) -> String {
        CommandRunner.fixtures.appendingPathComponent("Conformance/Authority/\(name).json").path
    }

    @Test("Public cloud /common replayed: kind, tenant, hosts and endpoints in JSON")
    func commonJSON() async throws {
        let result = try await CommandRunner.run([
            "authority", "show", "https://login.microsoftonline.com/common", "--replay", Self.scenario("aad-common"), "--output", "json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let authority = try #require(try result.json()["authority"] as? [String: Any])
        #expect(authority["kind"] as? String == "aad")
        #expect(authority["tenant"] as? String == "common")
        #expect(authority["canonical_url"] as? String == "https://login.microsoftonline.com/common")
        #expect(authority["cache_environment"] as? String == "login.windows.net")
        #expect(authority["network_host"] as? String == "login.microsoftonline.com")
        #expect((authority["aliases"] as? [String])?.contains("sts.windows.net") == true)
        #expect(authority["token_endpoint"] as? String == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(authority["issuer"] as? String == "https://login.microsoftonline.com/{tenantid}/v2.0")
        #expect(authority["device_code_endpoint"] as? String == "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode")
    }

    @Test("Text output lists the endpoints")
    func commonText() async throws {
        let result = try await CommandRunner.run([
            "authority", "show", "https://login.microsoftonline.com/common", "--replay", Self.scenario("aad-common"),
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Cache environment  login.windows.net"))
        #expect(result.standardOutput.contains("Token              https://login.microsoftonline.com/common/oauth2/v2.0/token"))
    }

    @Test("invalid_instance: exit 1 and a JSON error with code, internal code and OAuth error")
    func invalidInstance() async throws {
        let result = try await CommandRunner.run([
            "authority", "show", "https://login.contoso.com/contoso.onmicrosoft.com", "--replay",
            Self.scenario("aad-untrusted-host-invalid-instance"),
            "--output", "json",
        ])
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any])
        #expect(error["code"] as? Int == -50000)
        #expect(error["internal_code"] as? Int == -42010)
        #expect(error["oauth_error"] as? String == "invalid_instance")
        #expect((error["message"] as? String)?.isEmpty == false)
    }

    @Test("A bad authority fails before any request (the replay has none to give)")
    func badAuthority() async throws {
        let result = try await CommandRunner.run([
            "authority", "show", "http://login.microsoftonline.com/common", "--replay", Self.scenario("aad-common"), "--output", "json",
        ])
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any])
        #expect(error["internal_code"] as? Int == -47010)
    }

    @Test("A request the replay cannot answer fails with a message naming it")
    func unmatchedReplay() async throws {
        let result = try await CommandRunner.run([
            "authority", "show", "https://login.microsoftonline.com/consumers", "--replay", Self.scenario("aad-common"),
        ])
        #expect(result.status == 1)
        #expect(result.standardError.contains("login.microsoftonline.com"))
    }

    @Test("Validation off and a known authority skip instance discovery")
    func knownAuthority() async throws {
        let result = try await CommandRunner.run([
            "authority", "show", "https://login.microsoftonline.com/organizations", "--no-validation",
            "--replay", Self.scenario("aad-validation-off-trusted-host"), "--output", "json",
        ])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
    }
}
