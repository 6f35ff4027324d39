import Foundation
import MSALJOSE
import MSALTesting
import Testing

@testable import MSAL

/// The `acquire_token_interactive` steps of the flow scenarios: the public `acquireToken(with:)` with
/// `MSALInteractiveTokenParameters(scopes:webviewParameters:)` and an ``MSALScriptedWebUI`` playing the
/// step's `web_ui` script.
extension FlowConformanceTests {
    /// The fixed PKCE verifier, `state` and `nonce` of `setup.interactive_secrets`, so the recorded code
    /// redemption and the minted ID tokens' nonce match.
    struct FixtureSecrets: InteractiveSecretsSource {
        var verifier: String
        var state: String
        var nonce: String

        func make() throws(JOSEError) -> InteractiveSecrets {
            InteractiveSecrets(pkce: try PKCE(verifier: verifier), state: state, nonce: nonce)
        }
    }

    static func secrets(_ setup: MSALFixtureJSON) throws -> FixtureSecrets? {
        guard let secrets = setup["interactive_secrets"] else { return nil }
        return FixtureSecrets(
            verifier: try #require(secrets["code_verifier"]?.stringValue), state: try #require(secrets["state"]?.stringValue),
            nonce: try #require(secrets["nonce"]?.stringValue))
    }

    // MARK: Running

    /// The web UI of an interactive step, playing its `web_ui` script.
    static func webUI(_ step: MSALFixtureJSON) throws -> MSALScriptedWebUI? {
        guard step["call"]?.stringValue == "acquire_token_interactive" else { return nil }
        let script = try #require(step["web_ui"]?.arrayValue)
        return MSALScriptedWebUI(try script.map(action))
    }

    static func action(_ json: MSALFixtureJSON) throws -> MSALScriptedWebUI.Action {
        func items(_ value: MSALFixtureJSON?) -> [URLQueryItem] {
            (value?.members ?? []).map { URLQueryItem(name: $0.name, value: $0.value.stringValue) }
        }
        switch json["action"]?.stringValue {
        case "redirect":
            return .redirect(items(json["parameters"]), inFragment: json["fragment"]?.boolValue ?? false)
        case "redirect_with_state":
            return .redirectWithState(try #require(json["state"]?.stringValue), items(json["parameters"]))
        case "error":
            return .error(
                try #require(json["error"]?.stringValue), description: json["description"]?.stringValue,
                subError: json["suberror"]?.stringValue)
        case "cancel": return .cancel
        case "launch_failure": return .launchFailure
        case "wait": return .wait
        case "hand_off":
            let deliveries = try #require(json["deliveries"]?.arrayValue).map { delivery in
                MSALScriptedWebUI.Delivery(
                    parameters: items(delivery["parameters"]),
                    state: delivery["state"]?.stringValue.map { .value($0) } ?? .request, path: delivery["path"]?.stringValue)
            }
            return .handOff(deliveries)
        default:
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "unknown web_ui action \(json)")
        }
    }

    /// The step's interactive parameters, shown through `webUI`.
    static func interactiveParameters(
        _ step: MSALFixtureJSON, app: MSALPublicClientApplication, webUI: MSALScriptedWebUI, correlationID: UUID
    ) throws -> MSALInteractiveTokenParameters {
        let scopes = step["scopes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let parameters = MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: MSALWebviewParameters(webUI: webUI))
        parameters.correlationId = correlationID
        if let prompt = step["prompt"]?.stringValue {
            parameters.promptType = try #require(MSALPromptType.allCases.first { $0.parameterValue == prompt }, "prompt \(prompt)")
        }
        parameters.loginHint = step["login_hint"]?.stringValue
        parameters.domainHint = step["domain_hint"]?.stringValue
        parameters.extraScopesToConsent = step["extra_scopes_to_consent"]?.arrayValue?.compactMap(\.stringValue)
        if let extra = step["extra_query_parameters"]?.members {
            parameters.extraQueryParameters = Dictionary(uniqueKeysWithValues: extra.map { ($0.name, $0.value.stringValue ?? "") })
        }
        if let claims = step["claims"]?.stringValue {
            parameters.claimsRequest = try MSALClaimsRequest(jsonString: claims)
        }
        if let identifier = step["account"]?.stringValue {
            let account: MSALAccount = try app.account(forIdentifier: identifier)
            parameters.account = account
        }
        if let authority = step["authority"]?.stringValue.flatMap(URL.init(string:)) {
            parameters.authority = try MSALAuthority.authority(url: authority)
        }
        return parameters
    }

    /// Runs the step's `acquireToken(with:)`. With `concurrent_call`, a second `acquireToken` is made
    /// while the first waits in the web UI (its script starts with `wait`); it must fail as the step
    /// says without showing anything, and the first is then answered with `resume_with`.
    static func interactive(
        _ step: MSALFixtureJSON, app: MSALPublicClientApplication, webUI: MSALScriptedWebUI, correlationID: UUID, label: String
    ) async throws -> MSALResult {
        let parameters = try interactiveParameters(step, app: app, webUI: webUI, correlationID: correlationID)
        guard let concurrent = step["concurrent_call"] else {
            return try await app.acquireToken(with: parameters)
        }
        let expectError = try #require(concurrent["expect_error"])
        let resume = try action(try #require(step["resume_with"]))
        return try await withThrowingTaskGroup(of: MSALResult?.self) { group in
            group.addTask { try await app.acquireToken(with: parameters) }
            group.addTask {
                try await webUI.waitForPresentations(1)
                let secondID = UUID()
                let second = try interactiveParameters(step, app: app, webUI: webUI, correlationID: secondID)
                let error = await expectMSALError { try await app.acquireToken(with: second) }
                if let error {
                    #expect(error.correlationID == secondID, "\(label): second call")
                    check(error, expectError, label: "\(label): second call")
                }
                #expect(webUI.presentations.count == 1, "\(label): the second call showed nothing")
                #expect(webUI.resume(with: resume), "\(label): the first call was waiting in the web UI")
                return nil
            }
            var result: MSALResult?
            for try await value in group where value != nil {
                result = value
            }
            return try #require(result)
        }
    }

    // MARK: Checks

    /// The interactive step's checks beyond the common ones: the authorize URL, the loopback
    /// deliveries, the code redemption's `redirect_uri` and verifier, and the error's authorization URL.
    static func checkInteractive(
        _ step: MSALFixtureJSON, webUI: MSALScriptedWebUI, sent: [MSALHTTPRequest], error: MSALFailure?, label: String
    ) async throws {
        let presentations = webUI.presentations
        #expect(webUI.remainingScript.isEmpty, "\(label): web UI actions left unused: \(webUI.remainingScript)")
        if let expected = step["expect_authorize"] {
            try #require(presentations.count == 1, "\(label): the web UI was shown \(presentations.count) authorization URLs")
            checkAuthorize(presentations[0], expected, label: label)
        }
        let authorize = presentations.first
        for request in sent where request.formParameters.contains(where: { $0 == ("grant_type", "authorization_code") }) {
            let form = Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first })
            #expect(
                form["redirect_uri"] != nil && form["redirect_uri"] == authorize?.parameter("redirect_uri"),
                "\(label): redemption redirect_uri")
            let verifier = try #require(form["code_verifier"], "\(label): no code_verifier")
            #expect(try PKCE(verifier: verifier).challenge == authorize?.parameter("code_challenge"), "\(label): verifier vs challenge")
        }
        if let expected = step["expect_deliveries"]?.arrayValue {
            let results = await webUI.deliveryResults()
            #expect(results.count == expected.count, "\(label): deliveries \(results)")
            for (result, expect) in zip(results, expected) {
                #expect(result.statusCode == expect["status"]?.intValue, "\(label): delivery \(result.url): \(result.failure ?? "")")
                if let text = expect["body_contains"]?.stringValue {
                    #expect(result.body.contains(text), "\(label): delivery page \(result.body)")
                }
            }
        }
        if let error, let presented = step["expect_error"]?["authorization_url_presented"]?.boolValue {
            if presented {
                #expect(
                    error.authorizationURL != nil && error.authorizationURL == authorize?.authorizationURL, "\(label): authorizationURL")
                #expect((error as NSError).userInfo[MSALAuthorizationURLKey] as? URL == authorize?.authorizationURL)
            } else {
                #expect(error.authorizationURL == nil, "\(label): authorizationURL")
            }
        }
    }

    /// The authorize URL: endpoint, and exactly the expected query parameters (`<loopback>` is
    /// `http://localhost:<port>/`, `<msal_version>` the library version).
    static func checkAuthorize(_ presentation: MSALScriptedWebUI.Presentation, _ expected: MSALFixtureJSON, label: String) {
        var components = URLComponents(url: presentation.authorizationURL, resolvingAgainstBaseURL: false)
        components?.query = nil
        #expect(components?.url?.absoluteString == expected["endpoint"]?.stringValue, "\(label): authorize endpoint")
        let sent = presentation.queryItems
        #expect(Set(sent.map(\.name)).count == sent.count, "\(label): a repeated authorize parameter in \(sent)")
        let wanted = expected["query"]?.members ?? []
        #expect(sent.map(\.name).sorted() == wanted.map(\.name).sorted(), "\(label): authorize parameters")
        for member in wanted {
            let value = presentation.parameter(member.name)
            switch member.value.stringValue {
            case "<loopback>":
                let url = value.flatMap(URL.init(string:))
                #expect(
                    url?.scheme == "http" && url?.host == "localhost" && url?.port != nil && url?.path == "/",
                    "\(label): redirect_uri \(value ?? "nil")")
            case "<msal_version>":
                #expect(value == MSALVersion, "\(label): \(member.name)")
            default:
                #expect(value == member.value.stringValue, "\(label): authorize \(member.name)")
            }
        }
        #expect(presentation.redirectURI.absoluteString == presentation.parameter("redirect_uri"), "\(label): the web UI's redirect URI")
    }
}
