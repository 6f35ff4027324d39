import Foundation
import MSALJSON
import MSALTesting
import Testing

@testable import MSAL

/// Issue 19, finding 3: a launched browser's command line is readable by every local user
/// (`/proc/<pid>/cmdline`), so it must carry no `state`, `nonce` or `code_challenge`. The browser gets the
/// listener's single-use start URL; a second request for it ends the sign-in before any code is redeemed.
@Suite("Interactive sign-in: a launched browser gets a single-use start URL, never the authorization URL")
struct StartURLFlowTests {
    /// A "browser" command that only records its arguments; the test then plays the browser (and the attacker).
    struct RecordingBrowser {
        let file: URL

        init() {
            file = FileManager.default.temporaryDirectory.appendingPathComponent("msal-start-url-\(UUID().uuidString.lowercased()).txt")
        }

        var webview: MSALWebviewParameters {
            // `%s` is the only placeholder; the shell writes its first argument, the URL, to the file.
            let webview = MSALWebviewParameters(browserCommand: ["/bin/sh", "-c", "echo \"$0\" > '\(file.path)'", "%s"])
            webview.timeout = 60
            return webview
        }

        /// The launched command's arguments, once it ran.
        func arguments() async throws -> String {
            for _ in 0..<3000 {  // up to 30 s: a loaded 2-core machine starts processes slowly
                if let text = try? String(contentsOf: file, encoding: .utf8), text.hasSuffix("\n") {
                    return text
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "the browser command never ran")
        }

        func remove() {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// What a request for the start URL answered: its status and, for a 302, the authorization URL's parameters.
    static func open(_ start: URL, host: String? = nil) async throws -> (status: Int?, query: [String: String]) {
        let response = try await RawHTTPClient.request(port: try #require(start.port), target: start.path, host: host)
        let location = response.header("Location").first.flatMap { URLComponents(string: $0) }
        let query = Dictionary((location?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        return (response.status, query)
    }

    @Test("The command line holds only the start URL; the browser follows it to the sign-in page and the sign-in completes")
    func browserFollowsStartURL() async throws {
        let page = Recorder<[String: String]>()
        let transport = FlowTransport(token: { request in
            let form = Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first })
            #expect(form["code"] == "code-1")
            return FlowTokens.success(
                accessToken: "at-1", refreshToken: "rt-1",
                idToken: .some(FlowTokens.idToken(.abe, ["nonce": page.values.first?["nonce"].map { .string($0) }])))
        })
        let harness = try FlowHarness(transport)
        let browser = RecordingBrowser()
        defer { browser.remove() }
        let signIn = Task {
            try await harness.app.acquireToken(
                with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: browser.webview))
        }

        let commandLine = try await browser.arguments()
        let start = try #require(URL(string: commandLine.trimmingCharacters(in: .newlines)))
        #expect(start.host == "localhost" && start.path.hasPrefix("/msal-start/") && start.query == nil, "\(commandLine)")
        #expect(start.lastPathComponent.count == 43)

        let (status, query) = try await Self.open(start)
        #expect(status == 302)
        page.append(query)
        #expect(query["client_id"] == FlowIdentity.clientID)
        let state = try #require(query["state"])
        let nonce = try #require(query["nonce"])
        let challenge = try #require(query["code_challenge"])
        for secret in [state, nonce, challenge] {
            #expect(!commandLine.contains(secret), "a secret of the authorization request is on the command line")
        }
        let redirect = try #require(query["redirect_uri"].flatMap(URL.init(string:)))
        #expect(redirect.port == start.port)

        let answer = try await RawHTTPClient.request(port: try #require(redirect.port), target: "/?code=code-1&state=\(state)")
        #expect(answer.status == 200)
        let result = try await signIn.value
        #expect(result.accessToken == "at-1")
        #expect(transport.tokenRequests.count == 1)
    }

    @Test("The start URL replayed after the browser: the sign-in ends with startURLReused and nothing is redeemed")
    func replayAfterBrowser() async throws {
        let transport = FlowTransport(token: { _ in
            Issue.record("no token request expected")
            return FlowTokens.error(500, "{}")
        })
        let harness = try FlowHarness(transport)
        let browser = RecordingBrowser()
        defer { browser.remove() }
        let correlationID = UUID()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: browser.webview)
        parameters.correlationId = correlationID
        let signIn = Task { try await harness.app.acquireToken(with: parameters) }

        let start = try #require(URL(string: try await browser.arguments().trimmingCharacters(in: .newlines)))
        let (status, query) = try await Self.open(start)
        #expect(status == 302)
        #expect(query["state"] != nil)
        // Another local user read the start URL and replays it.
        let replay = try await Self.open(start, host: "127.0.0.1:\(start.port ?? 0)")
        #expect(replay.status == 400)
        #expect(replay.query.isEmpty)

        let error = await expectMSALError { _ = try await signIn.value }
        #expect(error?.internalCode == .startURLReused)
        #expect(error?.code == .internal)
        #expect(error?.correlationID == correlationID)
        // The browser's redirect, state and all, now finds the port closed.
        #expect(await RawHTTPClient.isRefused(port: try #require(start.port)))
        #expect(transport.tokenRequests.isEmpty)
        #expect(try harness.app.allAccounts().isEmpty)
    }

    @Test(
        "An attacker who requests the start URL before the browser learns the request, but the browser's request ends the sign-in: the attacker's code is never redeemed"
    )
    func attackerBeforeBrowser() async throws {
        let transport = FlowTransport(token: { _ in
            Issue.record("no token request expected")
            return FlowTokens.error(500, "{}")
        })
        let harness = try FlowHarness(transport)
        let browser = RecordingBrowser()
        defer { browser.remove() }
        let signIn = Task {
            try await harness.app.acquireToken(
                with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: browser.webview))
        }

        let start = try #require(URL(string: try await browser.arguments().trimmingCharacters(in: .newlines)))
        let stolen = try await Self.open(start)
        #expect(stolen.status == 302)
        let state = try #require(stolen.query["state"])
        // The victim's browser asks second.
        #expect(try await Self.open(start).status == 400)

        let error = await expectMSALError { _ = try await signIn.value }
        #expect(error?.internalCode == .startURLReused)
        // The attacker now delivers a code of its own account with the victim's state: nobody listens.
        let port = try #require(start.port)
        let delivered = try? await RawHTTPClient.request(port: port, target: "/?code=attackers-code&state=\(state)")
        #expect(delivered?.status == nil)
        #expect(transport.tokenRequests.isEmpty)
        #expect(try harness.app.allAccounts().isEmpty)
    }

    @Test("Only launchers get a start URL: the built-in ones say they launch a browser, an app's own web UI does not")
    func whoGetsIt() {
        #expect(MSALSystemBrowser().launchesExternalBrowser)
        #expect(MSALBrowserCommand(arguments: ["firefox"]).launchesExternalBrowser)
        #expect(!MSALScriptedWebUI([]).launchesExternalBrowser)
    }
}
