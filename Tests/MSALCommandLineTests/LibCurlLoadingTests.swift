import Foundation
import Testing

/// libcurl is loaded by the first request, not linked (`LibCurl`): a command answered from the
/// token cache never maps it. The dynamic loader's own trace (`LD_DEBUG=files`, which names every
/// library it loads, at start and by `dlopen`) is the witness.
@Suite("msal loads libcurl only to send a request")
struct LibCurlLoadingTests {
    static func loadsLibcurl(_ trace: String) -> Bool {
        trace.split(separator: "\n").contains { $0.contains("file=libcurl") }
    }

    @Test("A token from the cache: the process never loads libcurl")
    func cacheHitLoadsNoLibcurl() async throws {
        let paths = try TokenCommandTests.setUp()
        // The default transport (no --replay): it is created, and must stay unused.
        let arguments = [
            "token", "--client-id", TokenCommandTests.client, "--authority", TokenCommandTests.authority, "--scopes", "User.Read",
            "--cache", paths.cache,
        ]
        let run = try await CommandRunner.run(arguments, environment: ["LD_DEBUG": "files"])
        #expect(run.status == 0, "\(run.standardError.suffix(2_000))")
        #expect(run.standardOutput == "cached-access-token\n")
        #expect(run.standardError.contains("file="), "the loader's trace is missing: \(run.standardError.prefix(500))")
        #expect(!Self.loadsLibcurl(run.standardError), "libcurl was loaded for a cache hit")
    }

    @Test("A command that sends a request loads it then (here to a closed loopback port: a typed network error)")
    func requestLoadsLibcurl() async throws {
        let token = try String(
            contentsOf: CommandRunner.fixtures.appendingPathComponent("Samples/id-token-rs256.jwt"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try await CommandRunner.run(
            ["jwt", "verify", token, "--jwks", "http://127.0.0.1:1/jwks.json", "--output", "json"], environment: ["LD_DEBUG": "files"])
        #expect(run.status == 1)
        #expect(Self.loadsLibcurl(run.standardError), "libcurl was not loaded to send the request")
        let error = try #require(try run.json()["error"] as? [String: Any], "\(run.standardOutput)")
        #expect(error["internal_code"] as? Int == -47_001, "\(error)")  // networkFailure
    }
}
