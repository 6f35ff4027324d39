import Foundation
import MSALEmulator
import Testing

/// `msal app-token` against a token endpoint that answers an access token carrying a terminal
/// escape sequence (issue 39, finding 4): the command fails, and neither the token nor any of its
/// bytes reach the output or the cache file. The local provider sends the answer as it is
/// (`MSALEmulator.Fault.Response.answer(status:body:)`).
@Suite("msal app-token: a hostile access token is refused, never printed")
struct AppTokenHostileTokenTests {
    @Test(
        "The OSC token: exit 1, invalidResponse naming access_token, no byte of the token in either output, no cached token",
        arguments: ["text", "json"])
    func oscToken(format: String) async throws {
        try await AppTokenCommandTests.Setup.with { setup in
            // An OSC sequence setting the terminal's title (ended by BEL), a right-to-left override and
            // a line break: printed raw, it drives the terminal and makes the output two lines.
            let escaped = "AT-hostile\\u001b]0;x\\u0007\\u202e\\r\\ny"
            setup.emulator.inject(
                .init(
                    .answer(status: 200, body: #"{"token_type":"Bearer","expires_in":3599,"access_token":"\#(escaped)"}"#),
                    grantType: .clientCredentials))
            let authority = setup.emulator.authorityURL(tenant: MSALEmulator.Configuration.sampleContosoTenantID).absoluteString
            let result = try await CommandRunner.run([
                "app-token", "--client-id", AppTokenCommandTests.clientID, "--authority", authority, "--allow-http-loopback",
                "--secret-file", setup.path("secret.txt"), "--cache", setup.path("cache.json"), "--output", format,
            ])
            #expect(result.status != 0, "\(result.standardOutput)")
            #expect(setup.grants == 1)
            let output = result.standardOutput + result.standardError
            #expect(!output.contains("AT-hostile"), "\(output.debugDescription)")
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E || $0.value == 0x0D })
            #expect(output.contains("access_token"), "\(output.debugDescription)")
            if format == "json" {
                let error = try #require(try result.json()["error"] as? [String: Any], "\(result.standardOutput)")
                #expect(error["internal_code"] as? Int == -42600, "\(error)")
            }
            // Nothing cached: the file holds no access token (it may not exist at all).
            let cached = FileManager.default.fileExists(atPath: setup.path("cache.json")) ? try setup.cachedTokens() : 0
            #expect(cached == 0)
        }
    }
}
