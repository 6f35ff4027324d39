import Foundation
import MSALJSON
import MSALSupport
import MSALTesting
import Testing

@testable import MSAL

/// Interactive sign-in through the public API where a recorded scenario cannot say it: a real
/// launcher that cannot start, and the completion-block twin. (The recorded scenarios are in
/// Fixtures/Conformance/Flows/interactive-*.)
@Suite("Interactive sign-in: launcher failure and completion block")
struct InteractiveTests {
    @Test("A browser command that cannot start: browserLaunchFailed with the full authorization URL, the listener closed, nothing sent")
    func launcherCannotStart() async throws {
        let transport = FlowTransport(token: { _ in
            Issue.record("no token request expected")
            return FlowTokens.error(500, "{}")
        })
        let harness = try FlowHarness(transport)
        let webview = MSALWebviewParameters(browserCommand: ["/nonexistent/msal-test-browser", "%s"])
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        let correlationID = UUID()
        parameters.correlationId = correlationID

        let error = try #require(await expectMSALError { try await harness.app.acquireToken(with: parameters) })
        #expect(error.code == .internal)
        #expect(error.internalCode == .browserLaunchFailed)
        #expect(error.correlationID == correlationID)
        let url = try #require(error.authorizationURL)
        #expect(error.message.contains(url.absoluteString))
        #expect((error as NSError).userInfo[MSALAuthorizationURLKey] as? URL == url)
        let query = Dictionary(
            MSALFormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""),
            uniquingKeysWith: { first, _ in first })
        #expect(url.absoluteString.hasPrefix("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?"))
        #expect(query["client_id"] == FlowIdentity.clientID)
        #expect(query["response_type"] == "code")
        #expect(query["state"]?.count == 43 && query["nonce"]?.count == 43 && query["code_challenge"]?.count == 43)
        let redirect = try #require(query["redirect_uri"].flatMap(URL.init(string:)))
        let port = try #require(redirect.port)
        #expect(redirect.host == "localhost")
        #expect(transport.tokenRequests.isEmpty)

        // The listener was closed: nothing listens on its port any more.
        #expect(await RawHTTPClient.isRefused(port: port))

        // The session is free again.
        let next = await expectMSALError { try await harness.app.acquireToken(with: parameters) }
        #expect(next?.internalCode == .browserLaunchFailed)
    }

    @Test(
        "No browser starts but the app set browserUnavailableHandler: it gets the URL, the listener keeps waiting, and the user's own browser completes the sign-in"
    )
    func browserUnavailableHandler() async throws {
        let handedOver = Recorder<URL>()
        let signedInPage = Recorder<URL>()
        let transport = FlowTransport(token: { request in
            let form = Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first })
            #expect(form["code"] == "code-by-hand")
            let nonce = signedInPage.values.first.flatMap { url in
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "nonce" }?.value
            }
            return FlowTokens.success(
                accessToken: "at-by-hand", refreshToken: "rt-1",
                idToken: .some(FlowTokens.idToken(.abe, ["nonce": nonce.map { .string($0) }])))
        })
        let harness = try FlowHarness(transport)
        let webview = MSALWebviewParameters(browserCommand: ["/nonexistent/msal-test-browser", "%s"])
        webview.timeout = 60
        webview.browserUnavailableHandler = { url in handedOver.append(url) }
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        let signIn = Task { try await harness.app.acquireToken(with: parameters) }

        // The "user" waits for the URL, then their browser is redirected to the listener.
        var url: URL?
        for _ in 0..<500 where url == nil {
            url = handedOver.values.first
            if url == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let startURL = try #require(url, "the handler was not called")
        // The app is handed the listener's single-use start URL; the user's browser follows it to the sign-in page.
        #expect(startURL.host == "localhost" && startURL.path.hasPrefix("/msal-start/") && startURL.query == nil, "\(startURL)")
        let start = try await RawHTTPClient.request(port: try #require(startURL.port), target: startURL.path)
        #expect(start.status == 302)
        let authorizationURL = try #require(start.header("Location").first.flatMap(URL.init(string:)))
        let query = Dictionary(
            (URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first })
        signedInPage.append(authorizationURL)
        let redirect = try #require(query["redirect_uri"].flatMap(URL.init(string:)))
        #expect(redirect.port == startURL.port)
        let state = try #require(query["state"])
        let answer = try await RawHTTPClient.request(port: try #require(redirect.port), target: "/?code=code-by-hand&state=\(state)")
        #expect(answer.status == 200)

        let result = try await signIn.value
        #expect(result.accessToken == "at-by-hand")
        #expect(handedOver.values.count == 1)
        #expect(transport.tokenRequests.count == 1)
    }

    @Test("The completion-block acquireToken delivers the result once, with the scripted web UI")
    func completionBlock() async throws {
        let webUI = MSALScriptedWebUI(.code("code-1"))
        let transport = FlowTransport(token: { request in
            let form = Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first })
            #expect(form["code"] == "code-1")
            let nonce = webUI.presentations.last?.parameter("nonce")
            return FlowTokens.success(
                accessToken: "at-1", refreshToken: "rt-1", idToken: .some(FlowTokens.idToken(.abe, ["nonce": nonce.map { .string($0) }])))
        })
        let harness = try FlowHarness(transport)
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
        let outcome: (MSALResult?, (any Error)?) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(MSALResult?, (any Error)?), Never>) in
            harness.app.acquireToken(with: parameters) { result, error in
                continuation.resume(returning: (result, error))
            }
        }
        #expect(outcome.1 == nil)
        #expect(outcome.0?.accessToken == "at-1")
        #expect(outcome.0?.tokenSource == .identityProvider)
        #expect(outcome.0?.account.identifier == TestAccount.abe.home)
        #expect(try harness.app.allAccounts().map(\.identifier) == [TestAccount.abe.home])
    }
}
