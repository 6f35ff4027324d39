import Foundation
import Logging
import MSALJOSE
import MSALJSON
import MSALSupport
import MSALTesting
import Testing

@testable import MSAL

extension LoggingTests.MSALGlobalConfigTests {
    // Nested in the serialized MSALGlobalConfigTests: it sets the process-wide logger configuration
    // (most verbose level, a callback and a swift-log Logger) and puts it back afterwards.
    @Suite("No token, code, verifier, state or nonce reaches any log line, at the most verbose level")
    struct SecretsNeverLoggedTests {
        @Test(
            "Interactive sign-in, silent hit, refresh, failed refresh, device code and sign-out log no secret",
            arguments: [MSALLogMaskingLevel.settingsMaskSecretsOnly, .settingsMaskAllPII])
        func noSecretInAnyLine(masking: MSALLogMaskingLevel) async throws {
            try await LoggingTests.MSALGlobalConfigTests.restoringLoggerConfig { config in
                let callback = CallbackRecorder()
                let events = CapturedLogEvents()
                config.logLevel = .verbose
                config.logMaskingLevel = masking
                config.setLogCallback(callback.callback)
                config.logger = Logger(label: "secrets-never-logged") { _ in CapturingLogHandler(events: events) }
                let sink = MSALLogSink(level: .verbose, maskingLevel: masking)

                let run = try await MSALLogCapture.withSink(sink) { try await SecretsScenario.run() }

                // Everything any output received: the capture sink's texts and lines, the callback's
                // lines, and swift-log's messages, metadata and sources.
                var texts: [(output: String, text: String)] = []
                for record in sink.records {
                    texts.append(("sink text", record.text))
                    texts.append(("sink line", record.line))
                }
                for message in callback.all { texts.append(("callback", message.message ?? "")) }
                for event in events.all {
                    texts.append(("swift-log message", event.message))
                    texts.append(("swift-log source", event.source))
                    for (key, value) in event.metadata { texts.append(("swift-log metadata \(key)", value)) }
                }

                // The log is there, with lines from every flow, through every output.
                #expect(sink.records.count >= 10)
                for (flow, id) in run.correlationIDs {
                    let text = id.uuidString.lowercased()
                    #expect(sink.records.contains { $0.correlationID == id }, "no captured line from \(flow)")
                    #expect(callback.all.contains { $0.message?.contains(text) == true }, "no callback line from \(flow)")
                    #expect(
                        events.all.contains { $0.metadata[MSALLogger.correlationIDMetadataKey] == text }, "no swift-log event from \(flow)")
                }
                for (flow, phrase) in run.expectedPhrases {
                    #expect(
                        sink.records.contains { $0.correlationID == run.correlationIDs[flow] && $0.text.contains(phrase) },
                        "\(flow): no line with \"\(phrase)\" in \(sink.records.map(\.text))")
                }
                #expect(sink.records.contains { $0.correlationID == nil && $0.text.hasPrefix("Removing the tokens of") })
                // The masking level took effect: the home account id (OII) shows only when PII may.
                let showsAccount = texts.contains { $0.text.contains(run.homeAccountID) }
                #expect(showsAccount == masking.showsOII, "home account id shown: \(showsAccount) at \(masking)")

                // The secrets are distinctive, and no output shows any of them.
                #expect(run.secrets.count == 18)  // 6 request secrets, 3 access, 3 refresh, 3 ID tokens and their signatures
                for (name, secret) in run.secrets {
                    #expect(secret.count >= 20, "\(name) is too short to be distinctive: \(secret)")
                }
                let leaks = Self.leaks(of: run.secrets, in: texts)
                #expect(leaks.isEmpty, "secrets in the log: \(leaks)")

                // The check finds a secret that does reach a line: a message that interpolates one as
                // public text (which swift-msal's own code never does) is caught.
                let planted = MSALLogSink(level: .verbose, maskingLevel: masking)
                MSALLogCapture.withSink(planted) {
                    MSALLogger().verbose("planted \(public: run.secrets["access token 1"])", correlationID: nil)
                }
                let plantedTexts = planted.records.flatMap { [("planted text", $0.text), ("planted line", $0.line)] }
                #expect(Self.leaks(of: run.secrets, in: plantedTexts).map(\.secret) == ["access token 1", "access token 1"])
            }
        }

        /// Every (secret, output) pair where the output's text contains the secret.
        static func leaks(of secrets: [String: String], in texts: [(output: String, text: String)]) -> [(secret: String, output: String)] {
            var found: [(secret: String, output: String)] = []
            for (output, text) in texts {
                for (name, secret) in secrets.sorted(by: { $0.key < $1.key }) where text.contains(secret) {
                    found.append((name, "\(output): \(text)"))
                }
            }
            return found
        }
    }
}

/// The fake identity provider of the log test: every token, code and device code a fresh random
/// string, the ID tokens signed with the test key and carrying the nonce the sign-in sent.
final class SecretsIdentityProvider: Sendable {
    let code: String
    let deviceCode = SecretsIdentityProvider.random("devicecode")
    let accessTokens = (1...3).map { SecretsIdentityProvider.random("at\($0)") }
    let refreshTokens = (1...3).map { SecretsIdentityProvider.random("rt\($0)") }
    let webUI: MSALScriptedWebUI
    private let state = Mutex<(idTokens: [String], polls: Int)>(([], 0))

    /// A provider that issues `code` to the sign-in shown through `webUI` (whose last presentation gives the nonce).
    init(code: String, webUI: MSALScriptedWebUI) {
        self.code = code
        self.webUI = webUI
    }

    /// `prefix` and 43 characters from the system's secure random generator.
    static func random(_ prefix: String) -> String {
        do {
            return "\(prefix)-\(try SecureRandom.urlSafeToken())"
        } catch {
            fatalError("\(error)")
        }
    }

    var idTokens: [String] { state.withLock { $0.idTokens } }

    private func signedIn(_ accessToken: String, _ refreshToken: String, expiresIn: Int, nonce: String? = nil) -> MSALHTTPResponse {
        let idToken = FlowTokens.idToken(.abe, nonce.map { ["nonce": .string($0)] } ?? [:])
        state.withLock { $0.idTokens.append(idToken) }
        return FlowTokens.success(accessToken: accessToken, refreshToken: refreshToken, expiresIn: expiresIn, idToken: .some(idToken))
    }

    func token(_ request: MSALHTTPRequest) -> MSALHTTPResponse {
        let form = Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first })
        switch form["grant_type"] {
        case "authorization_code" where form["code"] == code:
            return signedIn(accessTokens[0], refreshTokens[0], expiresIn: 600, nonce: webUI.presentations.last?.parameter("nonce"))
        case "refresh_token" where form["refresh_token"] == refreshTokens[0]:
            return signedIn(accessTokens[1], refreshTokens[1], expiresIn: 3599)
        case "refresh_token":
            return FlowTokens.error(
                400,
                #"{"error":"invalid_grant","error_description":"AADSTS70000: The provided grant is invalid or expired.","suberror":"bad_token","error_codes":[70000]}"#
            )
        case "urn:ietf:params:oauth:grant-type:device_code" where form["device_code"] == deviceCode:
            let polls = state.withLock { state -> Int in
                state.polls += 1
                return state.polls
            }
            if polls == 1 {
                return FlowTokens.error(
                    400, #"{"error":"authorization_pending","error_description":"AADSTS70016: Authorization is pending."}"#)
            }
            return signedIn(accessTokens[2], refreshTokens[2], expiresIn: 3599)
        default:
            return FlowTokens.error(400, #"{"error":"invalid_request","error_description":"unexpected token request"}"#)
        }
    }

    func deviceCodeStart(_ request: MSALHTTPRequest) -> MSALHTTPResponse {
        .json(
            200,
            """
            {"device_code":"\(deviceCode)","user_code":"ABCD-EFGH","verification_uri":"https://microsoft.com/devicelogin",\
            "expires_in":900,"interval":5,"message":"To sign in, open https://microsoft.com/devicelogin and enter ABCD-EFGH."}
            """)
    }
}

/// Runs every flow once against ``SecretsIdentityProvider`` and reports the secrets it handled.
enum SecretsScenario {
    struct Run {
        /// Name → value of every secret the flows handled.
        var secrets: [String: String]
        /// Flow → the correlation id it ran with.
        var correlationIDs: [String: UUID]
        /// Flow → a phrase one of its lines must contain.
        var expectedPhrases: [String: String]
        var homeAccountID: String
    }

    static func run() async throws -> Run {
        // The browser brings the provider's code back to the loopback listener.
        let code = SecretsIdentityProvider.random("code")
        let signIn = MSALScriptedWebUI(.handOffCode(code))
        let provider = SecretsIdentityProvider(code: code, webUI: signIn)
        let transport = FlowTransport(token: { provider.token($0) }, deviceCode: { provider.deviceCodeStart($0) })
        let harness = try FlowHarness(transport)
        var ids: [String: UUID] = [:]
        func id(_ flow: String) -> UUID {
            let value = UUID()
            ids[flow] = value
            return value
        }

        // 1. Interactive sign-in through the loopback listener.
        let interactive = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: signIn))
        interactive.correlationId = id("interactive")
        let signedIn = try await harness.app.acquireToken(with: interactive)
        #expect(signedIn.accessToken == provider.accessTokens[0])
        #expect(await signIn.deliveryResults().map(\.statusCode) == [200])
        let authorize = try #require(signIn.presentations.first)
        let redemption = try #require(transport.tokenRequests.first)
        let form = Dictionary(redemption.formParameters, uniquingKeysWith: { first, _ in first })
        #expect(form["code"] == provider.code)
        let verifier = try #require(form["code_verifier"])
        let challenge = try #require(authorize.parameter("code_challenge"))
        #expect(try PKCE(verifier: verifier).challenge == challenge)
        let account = try harness.account(.abe)

        // 2. Silent hit.
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        silent.correlationId = id("silent hit")
        let hit = try await harness.app.acquireTokenSilent(with: silent)
        #expect(hit.tokenSource == .cache && hit.accessToken == provider.accessTokens[0])

        // 3. Silent refresh: 200 s left, inside the 300 s buffer.
        harness.clock.advance(by: 400)
        silent.correlationId = id("silent refresh")
        let refreshed = try await harness.app.acquireTokenSilent(with: silent)
        #expect(refreshed.tokenSource == .identityProvider && refreshed.accessToken == provider.accessTokens[1])

        // 4. A refresh the service rejects (invalid_grant).
        silent.forceRefresh = true
        silent.correlationId = id("failed refresh")
        let rejected = await expectMSALError { try await harness.app.acquireTokenSilent(with: silent) }
        #expect(rejected?.code == .interactionRequired)

        // 5. Device code.
        let deviceCode = MSALTokenParameters(scopes: ["User.Read"])
        deviceCode.correlationId = id("device code")
        let codes = Recorder<MSALDeviceCodeInfo>()
        let polled = try await harness.app.acquireTokenWithDeviceCode(with: deviceCode) { codes.append($0) }
        #expect(polled.accessToken == provider.accessTokens[2])
        #expect(codes.values.count == 1)

        // 6. Sign-out, with the end-session page.
        let signout = MSALSignoutParameters(webviewParameters: MSALWebviewParameters(webUI: MSALScriptedWebUI(.handOff([]))))
        signout.signoutFromBrowser = true
        signout.correlationId = id("sign-out")
        try await harness.app.signout(with: try harness.account(.abe), signoutParameters: signout)
        #expect(try harness.app.allAccounts().isEmpty)

        var secrets: [String: String] = [
            "authorization code": provider.code, "device code": provider.deviceCode, "PKCE verifier": verifier,
            "code challenge": challenge, "state": try #require(authorize.parameter("state")),
            "nonce": try #require(authorize.parameter("nonce")),
        ]
        for (index, token) in provider.accessTokens.enumerated() { secrets["access token \(index + 1)"] = token }
        for (index, token) in provider.refreshTokens.enumerated() { secrets["refresh token \(index + 1)"] = token }
        let idTokens = provider.idTokens
        #expect(idTokens.count == 3)
        for (index, token) in idTokens.enumerated() {
            secrets["ID token \(index + 1)"] = token
            secrets["ID token \(index + 1) signature"] = String(token.split(separator: ".").last ?? "")
        }
        return Run(
            secrets: secrets, correlationIDs: ids,
            expectedPhrases: [
                "interactive": "Interactive request for", "silent hit": "cache hit", "silent refresh": "refreshing",
                "failed refresh": "invalid_grant", "device code": "Device code issued", "sign-out": "Signing out",
            ],
            homeAccountID: TestAccount.abe.home)
    }
}
