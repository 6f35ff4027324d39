import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// The emulator's on-behalf-of grant over HTTP: a middle-tier API (a confidential client) trades
/// the access token a user's app called it with for the user's tokens for a downstream resource.
@Suite("Emulator: the on-behalf-of (JWT bearer) grant")
struct OnBehalfOfGrantTests {
    typealias Grant = ClientCredentialsGrantTests

    static let apiScope = "api://\(Grant.secretClientID)/access_as_user"

    /// Adele's access token for the middle-tier API, from an interactive sign-in of the sample app.
    static func userToken(_ harness: EmulatorHarness, scope: String = apiScope) async throws -> String {
        let app = try harness.application(tenant: EmulatorHarness.contoso)
        return try await harness.signIn(app, as: EmulatorHarness.adele, scopes: [scope]).accessToken
    }

    static func form(_ assertion: String, clientID: String = Grant.secretClientID, secret: String? = Grant.secret) -> [(String, String)] {
        var form: [(String, String)] = [
            ("client_id", clientID), ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion),
            ("requested_token_use", "on_behalf_of"), ("scope", "https://graph.microsoft.com/User.Read offline_access openid profile"),
            ("client_info", "1"),
        ]
        if let secret { form.append(("client_secret", secret)) }
        return form
    }

    @Test("The user's token for the API becomes the user's Graph token, refresh token, ID token and client_info")
    func exchange() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let incoming = try await Self.userToken(harness)
            #expect(try JWT.decodeUnverified(incoming).stringListClaim("aud") == ["api://\(Grant.secretClientID)"])
            let response = try await harness.call("POST", Grant.tokenPath(), form: Self.form(incoming))
            #expect(response.status == 200, "\(response.text.prefix(300))")
            let token = try await Grant.verifiedToken(response, harness)
            #expect(token.stringListClaim("aud") == ["https://graph.microsoft.com"])
            #expect(token.stringClaim("preferred_username") == EmulatorHarness.adele)
            #expect(token.stringClaim("azp") == Grant.secretClientID)
            #expect(token.stringClaim("scp") == "User.Read")
            #expect(response.json["refresh_token"] is String)
            #expect(response.json["id_token"] is String)
            let clientInfo = try ClientInfo(encoded: try #require(response.json["client_info"] as? String))
            #expect(clientInfo.utid == EmulatorHarness.contoso)
            #expect(harness.emulator.requestCount(.token, grantType: .jwtBearer) == 1)
        }
    }

    @Test("Refused: another audience, a forged or expired token, an app token, a public client, no requested_token_use")
    func refusals() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let incoming = try await Self.userToken(harness)
            func post(_ form: [(String, String)]) async throws -> RawResponse {
                try await harness.call("POST", Grant.tokenPath(), form: form)
            }
            let graphToken = try await Self.userToken(harness, scope: "User.Read")
            Grant.expectError(try await post(Self.form(graphToken)), status: 400, error: "invalid_grant", code: 50013, "a token for Graph")
            var forged = Array(incoming)
            forged[forged.count - 4] = forged[forged.count - 4] == "A" ? "B" : "A"
            Grant.expectError(try await post(Self.form(String(forged))), status: 400, error: "invalid_grant", code: 50013, "forged")
            let appToken = try #require(
                try await harness.call(
                    "POST", Grant.tokenPath(), form: Grant.form(clientID: Grant.secretClientID, [("client_secret", Grant.secret)])
                )
                .json["access_token"] as? String)
            Grant.expectError(try await post(Self.form(appToken)), status: 400, error: "invalid_grant", code: 50013, "an app token")
            Grant.expectError(
                try await post(Self.form(incoming, clientID: EmulatorHarness.clientID, secret: nil)), code: 7000218, "a public client")
            Grant.expectError(
                try await post(Self.form(incoming).filter { $0.0 != "requested_token_use" }), status: 400, error: "invalid_request",
                code: 900144, "no requested_token_use")
            harness.emulator.advanceClock(by: 3601)
            Grant.expectError(try await post(Self.form(incoming)), status: 400, error: "invalid_grant", code: 500133, "expired")
        }
    }
}
