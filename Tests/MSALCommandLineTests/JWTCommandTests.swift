import Foundation
import Testing

@Suite("msal jwt decode / verify, run as a process")
struct JWTCommandTests {
    static let jwks = CommandRunner.fixtures.appendingPathComponent("Samples/jwks.json").path
    static let issuerTemplate = "https://login.microsoftonline.com/{tenantid}/v2.0"
    static let clientID = "6cb04018-a3f5-46a7-b995-940c78f5aef3"

    func verifyArguments(_ token: String, _ extra: [String] = []) -> [String] {
        [
            "jwt", "verify", token, "--jwks", Self.jwks, "--issuer", Self.issuerTemplate, "--audience", Self.clientID,
            "--nonce", "123523", "--now", "1700001000",
        ] + extra
    }

    @Test("verify accepts the sample tokens and exits 0", arguments: ["rs256", "es256", "es384"])
    func verifyValid(name: String) async throws {
        let token = try CommandRunner.fixtureText("Samples/id-token-\(name).jwt")
        let result = try await CommandRunner.run(verifyArguments(token))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("VALID:"))
        #expect(result.standardOutput.contains("AbeLi@microsoft.com"))
    }

    @Test("verify --output json reports valid, the checks, header and claims")
    func verifyJSON() async throws {
        let token = try CommandRunner.fixtureText("Samples/id-token-rs256.jwt")
        let result = try await CommandRunner.run(verifyArguments(token, ["--output", "json"]))
        #expect(result.status == 0)
        let json = try result.json()
        #expect(json["valid"] as? Bool == true)
        #expect((json["checked"] as? [String])?.contains("nonce") == true)
        #expect((json["claims"] as? [String: Any])?["oid"] as? String == "00000000-0000-0000-66f3-3332eca7ea81")
        #expect((json["header"] as? [String: Any])?["kid"] as? String == "sample-rsa-2048")
    }

    @Test("verify reads the token from standard input when it is -")
    func verifyStandardInput() async throws {
        let token = try CommandRunner.fixtureText("Samples/id-token-es256.jwt")
        let result = try await CommandRunner.run(verifyArguments("-"), standardInput: Data((token + "\n").utf8))
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test("an expired token exits 1 with code, internal_code and message")
    func verifyExpired() async throws {
        let token = try CommandRunner.fixtureText("Samples/id-token-rs256.jwt")
        var arguments = verifyArguments(token, ["--output", "json"])
        arguments[arguments.firstIndex(of: "1700001000")!] = "1800000000"
        let result = try await CommandRunner.run(arguments)
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any])
        #expect(error["code"] as? Int == -50000)
        #expect(error["internal_code"] as? Int == -46022)
        #expect((error["message"] as? String)?.contains("expired") == true)
    }

    @Test(
        "a wrong audience, issuer or nonce is rejected with its own internal code",
        arguments: [
            ("--audience", "00000000-0000-0000-0000-000000000000", -46026),
            ("--issuer", "https://login.microsoftonline.com/{tenantid}/v2.0/", -46025),
            ("--nonce", "other", -46028),
        ])
    func verifyWrongClaim(option: String, value: String, internalCode: Int) async throws {
        let token = try CommandRunner.fixtureText("Samples/id-token-rs256.jwt")
        var arguments = verifyArguments(token, ["--output", "json"])
        arguments[arguments.firstIndex(of: option)! + 1] = value
        let result = try await CommandRunner.run(arguments)
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any])
        #expect(error["internal_code"] as? Int == internalCode)
    }

    @Test("a tampered payload fails the signature check, even though the token is also expired")
    func verifyTampered() async throws {
        let token = try CommandRunner.fixtureText("Samples/id-token-rs256.jwt")
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = String(parts[1].dropLast(2)) + (parts[1].hasSuffix("AA") ? "AB" : "AA")
        var arguments = verifyArguments(parts.joined(separator: "."), ["--output", "json"])
        arguments[arguments.firstIndex(of: "1700001000")!] = "1900000000"
        let result = try await CommandRunner.run(arguments)
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any])
        #expect(error["internal_code"] as? Int == -46014)
    }

    @Test(
        "garbage input never crashes: each exits 1 with a typed error",
        arguments: [
            "", "a.b", "a.b.c.d", "....", "{\"payload\":\"x\"}", "eyJhbGciOiJub25lIn0.e30.", "%%%.%%%.%%%",
            String(repeating: ".", count: 100_000), String(repeating: "A", count: 200_000),
        ])
    func verifyGarbage(token: String) async throws {
        let result = try await CommandRunner.run(
            ["jwt", "verify", "-", "--jwks", Self.jwks, "--output", "json"], standardInput: Data(token.utf8))
        #expect(result.status == 1)
        let error = try #require(try result.json()["error"] as? [String: Any])
        #expect(error["code"] as? Int == -50000)
        #expect(error["internal_code"] is Int)
        #expect(error["message"] is String)
    }

    @Test("a missing or unusable JWK set exits 1 with a typed error")
    func verifyBadKeySet() async throws {
        let token = try CommandRunner.fixtureText("Samples/id-token-rs256.jwt")
        let missing = try await CommandRunner.run(["jwt", "verify", token, "--jwks", "/nonexistent/jwks.json", "--output", "json"])
        #expect(missing.status == 1)
        #expect((try missing.json()["error"] as? [String: Any])?["internal_code"] as? Int == -42000)
        let notJSON = try await CommandRunner.run([
            "jwt", "verify", token, "--jwks", CommandRunner.fixtures.appendingPathComponent("Samples/id-token-rs256.jwt").path, "--output",
            "json",
        ])
        #expect(notJSON.status == 1)
        #expect((try notJSON.json()["error"] as? [String: Any])?["internal_code"] as? Int == -46013)
        let plainHTTP = try await CommandRunner.run(["jwt", "verify", token, "--jwks", "http://example.com/keys", "--output", "json"])
        #expect(plainHTTP.status == 1)
    }

    @Test("decode shows header and claims marked unverified")
    func decode() async throws {
        let token = try CommandRunner.fixtureText("JWT/msaljs_IDTOKEN_V1.txt")
        let text = try await CommandRunner.run(["jwt", "decode", token])
        #expect(text.status == 0)
        #expect(text.standardOutput.hasPrefix("UNVERIFIED"))
        #expect(text.standardOutput.contains("\"ver\": \"1.0\""))
        let json = try await CommandRunner.run(["jwt", "decode", token, "--output", "json"])
        let object = try json.json()
        #expect(object["verified"] as? Bool == false)
        #expect((object["claims"] as? [String: Any])?["tid"] as? String == "fa15d692-e9c7-4460-a743-29f2956fd429")
        #expect((object["header"] as? [String: Any])?["alg"] as? String == "RS256")
    }

    @Test("decode of a malformed token exits 1")
    func decodeMalformed() async throws {
        let result = try await CommandRunner.run(["jwt", "decode", "not-a-token", "--output", "json"])
        #expect(result.status == 1)
        #expect((try result.json()["error"] as? [String: Any])?["internal_code"] as? Int == -46001)
    }
}
