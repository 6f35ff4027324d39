import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

@Suite("Emulator end to end: interactive sign-in, the cache and refresh through the public API")
struct InteractiveSignInTests {
    @Test("Interactive sign-in through the page over HTTP gives a verified token for the chosen user; one code redemption")
    func interactiveSignIn() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let (parameters, webUI) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            let result = try await app.acquireToken(with: parameters)

            let user = try #require(harness.emulator.configuration.user(named: EmulatorHarness.ben))
            #expect(result.tokenSource == .identityProvider)
            #expect(result.account.username == EmulatorHarness.ben)
            #expect(result.account.identifier == "\(user.objectID).\(user.tenantID)")
            #expect(result.tenantProfile.tenantId == user.tenantID)
            #expect(result.scopes.contains("User.Read"))
            let claims = try #require(result.idTokenClaims)
            #expect(claims["oid"] as? String == user.objectID)
            #expect(claims["tid"] as? String == user.tenantID)
            #expect(claims["preferred_username"] as? String == user.username)
            #expect(claims["iss"] as? String == "\(harness.emulator.baseURL.absoluteString)/\(user.tenantID)/v2.0")

            // The authorization request the SDK built went to the emulator's authorize endpoint with PKCE.
            let url = try #require(webUI.authorizationURLs.first)
            #expect(url.absoluteString.hasPrefix(harness.emulator.baseURL.absoluteString + "/common/oauth2/v2.0/authorize?"))
            #expect(url.absoluteString.contains("code_challenge_method=S256"))

            // Discovery happened over HTTP once each; exactly one code redemption.
            #expect(harness.emulator.requestCount(.instanceDiscovery) == 1)
            #expect(harness.emulator.requestCount(.openIDConfiguration) == 1)
            #expect(harness.emulator.requestCount(.keys) == 1)
            #expect(harness.emulator.requestCount(.token) == 1)
            #expect(harness.emulator.requestCount(.token, grantType: .authorizationCode) == 1)
            let redemption = try #require(harness.emulator.requests.last { $0.endpoint == .token })
            #expect(redemption.status == 200)
            #expect(redemption.username == EmulatorHarness.ben)
            #expect(redemption.clientID == EmulatorHarness.clientID)
            #expect(redemption.correlationID == result.correlationId.uuidString.lowercased())

            // The access token works at the protected resource.
            let me = try await harness.resource(result.authorizationHeader)
            #expect(me.status == 200)
            #expect(me.json["userPrincipalName"] as? String == EmulatorHarness.ben)
            #expect(me.json["id"] as? String == user.objectID)
        }
    }
}
