import Foundation
import MSAL
import MSALEmulator
import Testing

@Suite("Emulator end to end: interactive sign-in in a real browser (headless Chromium)")
struct ChromiumSignInTests {
    @Test(
        "MSALBrowserCommand opens headless Chromium; the emulator's page signs the user in by itself; Chromium follows the redirect to the loopback listener; the verified token is then served silently from the cache",
        .enabled(if: HeadlessChromium.shouldRun, HeadlessChromium.missingReason),
        .timeLimit(.minutes(4)))
    func signInThroughChromium() async throws {
        try #require(
            HeadlessChromium.executable != nil,
            "Chromium is not installed and CI=true: bash scripts/setup.sh must install Debian's chromium package (apt-get install chromium)"
        )
        var configuration = EmulatorHarness.configuration
        configuration.autoSignIn = EmulatorHarness.ben
        try await EmulatorHarness.with(configuration) { harness in
            let chromium = try HeadlessChromium(timeLimit: 90)
            defer { chromium.stop() }
            let app = try harness.application()

            let webview = MSALWebviewParameters(browserCommand: chromium.command)
            // Bounds, not expectations (a run takes a few seconds; a loaded machine slows Chromium down): the
            // script ends Chromium after 90 s, and a browser that never comes back fails the sign-in at 120 s.
            webview.timeout = 120
            let marker = "swift-msal-chromium-\(UUID().uuidString.lowercased())"
            webview.successPageHTML =
                "<!DOCTYPE html><html><head><title>Signed in</title></head><body><p id=\"done\">\(marker)</p></body></html>"
            let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
            let result = try await app.acquireToken(with: parameters)

            // A verified token for the user the page signed in.
            #expect(result.tokenSource == .identityProvider)
            #expect(result.account.username == EmulatorHarness.ben)
            #expect(result.tenantProfile.tenantId == EmulatorHarness.contoso)
            let claims = try #require(result.idTokenClaims)
            #expect(claims["aud"] as? String == EmulatorHarness.clientID)
            #expect(claims["preferred_username"] as? String == EmulatorHarness.ben)
            #expect((claims["nonce"] as? String)?.isEmpty == false)

            // Chromium, not the test, answered the page: it loaded it, and its script posted the
            // form, answered with the redirect to the SDK's loopback listener.
            let authorize = harness.emulator.requests.filter { $0.endpoint == .authorize }
            #expect(authorize.map(\.method) == ["GET", "POST"])
            #expect(authorize.last?.status == 302)
            #expect(authorize.last?.username == EmulatorHarness.ben)
            #expect(harness.emulator.requestCount(.token, grantType: .authorizationCode) == 1)

            // Chromium followed that redirect and shows the listener's success page.
            let dom = await chromium.finalDOM(within: 90)
            #expect(dom?.contains(marker) == true, "the page Chromium ended on: \(dom ?? "none (Chromium did not exit)")")

            // The token opens the protected resource, and is then used silently from the cache.
            let me = try await harness.resource(result.authorizationHeader)
            #expect(me.status == 200)
            #expect(me.json["userPrincipalName"] as? String == EmulatorHarness.ben)
            let tokenRequests = harness.emulator.requestCount(.token)
            let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
            #expect(silent.tokenSource == .cache)
            #expect(silent.accessToken == result.accessToken)
            #expect(harness.emulator.requestCount(.token) == tokenRequests)
        }
    }
}
