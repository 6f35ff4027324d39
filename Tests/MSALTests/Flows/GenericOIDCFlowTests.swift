import Foundation
import MSALJOSE
import MSALJSON
import MSALSupport
import MSALTesting
import Testing

@testable import MSAL

/// A generic OpenID Connect provider as standards-following third-party providers behave: no
/// `client_info`, an RS256 ID token whose `aud` is an array and which names the user by `email`
/// only, refresh answers without a new ID token, a scope check on refresh that refuses any
/// `scope` wider than the grant, and (when asked) RFC 9207's `iss` on the redirect.
final class GenericOIDCProvider: MSALHTTPTransport {
    static let issuer = "https://idp.example.test/realms/dev"
    static let clientID = "swift-msal-cli"
    static let subject = "5f1c1e0a-7d39-4c2e-9d55-0b1c6d0e6a11"
    static let email = "dana@example.test"

    enum RefreshAnswer: Sendable {
        /// Tokens without an ID token (OpenID Connect Core §12.2 allows it).
        case withoutIDToken
        /// Tokens with a new ID token for `subject`.
        case withIDToken(subject: String)
    }

    private struct State {
        var requests: [MSALHTTPRequest] = []
        var grantedScope = ""
        var refreshCount = 0
        var refreshAnswer = RefreshAnswer.withoutIDToken
    }

    private let state = Mutex(State())
    let issuerParameterSupported: Bool
    /// The web UI the sign-in page was shown in: the ID token carries the nonce of its last page.
    let webUI = MSALScriptedWebUI([])

    init(issuerParameterSupported: Bool = false) {
        self.issuerParameterSupported = issuerParameterSupported
    }

    var requests: [MSALHTTPRequest] { state.withLock { $0.requests } }
    var tokenRequests: [[String: String]] {
        requests.filter { $0.method == .post }.map { Dictionary($0.formParameters, uniquingKeysWith: { first, _ in first }) }
    }

    func answerRefreshes(_ answer: RefreshAnswer) { state.withLock { $0.refreshAnswer = answer } }

    func idToken(subject: String = GenericOIDCProvider.subject, nonce: String?) -> String {
        var claims: [JSONMember] = [
            JSONMember(name: "iss", value: .string(Self.issuer)),
            JSONMember(name: "sub", value: .string(subject)),
            JSONMember(name: "aud", value: .array([.string(Self.clientID), .string("account")])),
            JSONMember(name: "azp", value: .string(Self.clientID)),
            JSONMember(name: "exp", value: .integer(FlowIdentity.issued + 86400)),
            JSONMember(name: "iat", value: .integer(FlowIdentity.issued)),
            JSONMember(name: "email", value: .string(subject == Self.subject ? Self.email : "mallory@example.test")),
            JSONMember(name: "name", value: .string("Dana Scully")),
        ]
        if let nonce { claims.append(JSONMember(name: "nonce", value: .string(nonce))) }
        do {
            return try FlowKeys.trusted.sign(claims: .object(claims))
        } catch {
            fatalError("\(error)")
        }
    }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        state.withLock { $0.requests.append(request) }
        switch (request.method, request.url.path) {
        case (.get, "/realms/dev/.well-known/openid-configuration"):
            let base = Self.issuer + "/protocol/openid-connect"
            return .json(
                200,
                """
                {"issuer":"\(Self.issuer)","authorization_endpoint":"\(base)/auth","token_endpoint":"\(base)/token",\
                "jwks_uri":"\(base)/certs","end_session_endpoint":"\(base)/logout",\
                "authorization_response_iss_parameter_supported":\(issuerParameterSupported)}
                """)
        case (.get, "/realms/dev/protocol/openid-connect/certs"):
            return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: FlowKeys.jwks)
        case (.post, "/realms/dev/protocol/openid-connect/token"):
            return token(Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first }))
        default:
            return MSALHTTPResponse(statusCode: 404, text: "not found")
        }
    }

    private func token(_ form: [String: String]) -> MSALHTTPResponse {
        let nonce = webUI.presentations.last?.parameter("nonce")
        let (answer, count, granted) = state.withLock { state -> (RefreshAnswer, Int, String) in
            if form["grant_type"] == "authorization_code" {
                state.grantedScope = form["scope"] ?? ""
            } else {
                state.refreshCount += 1
            }
            return (state.refreshAnswer, state.refreshCount, state.grantedScope)
        }
        var members: [JSONMember] = [
            JSONMember(name: "token_type", value: .string("Bearer")),
            JSONMember(name: "expires_in", value: .integer(3600)),
            JSONMember(name: "scope", value: .string(granted)),
        ]
        switch form["grant_type"] {
        case "authorization_code":
            members += [
                JSONMember(name: "access_token", value: .string("oidc-at-0")),
                JSONMember(name: "refresh_token", value: .string("oidc-rt-0")),
                JSONMember(name: "id_token", value: .string(idToken(nonce: nonce))),
            ]
        case "refresh_token":
            // Strict: a refresh may not name a scope beyond the grant (RFC 6749 §6).
            if let scope = form["scope"], !Set(scope.split(separator: " ")).isSubset(of: Set(granted.split(separator: " "))) {
                return .json(400, #"{"error":"invalid_scope","error_description":"Invalid scopes: \#(scope)"}"#)
            }
            guard form["refresh_token"] == "oidc-rt-\(count - 1)" else { return .json(400, #"{"error":"invalid_grant"}"#) }
            members += [
                JSONMember(name: "access_token", value: .string("oidc-at-\(count)")),
                JSONMember(name: "refresh_token", value: .string("oidc-rt-\(count)")),
            ]
            if case .withIDToken(let subject) = answer {
                members.append(JSONMember(name: "id_token", value: .string(idToken(subject: subject, nonce: nil))))
            }
        default:
            return .json(400, #"{"error":"unsupported_grant_type"}"#)
        }
        return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: JSONWriter.write(.object(members)))
    }
}

@Suite("Generic OpenID Connect providers: standard protocol only, cache hits, refresh within the grant")
struct GenericOIDCFlowTests {
    struct Harness {
        let provider: GenericOIDCProvider
        let clock: ManualClock
        let app: MSALPublicClientApplication
        var webUI: MSALScriptedWebUI { provider.webUI }

        init(provider: GenericOIDCProvider = GenericOIDCProvider(), redirectURI: String? = nil) throws {
            self.provider = provider
            clock = ManualClock(FlowIdentity.now)
            let config = MSALPublicClientApplicationConfig(
                clientId: GenericOIDCProvider.clientID, redirectUri: redirectURI,
                authority: try MSALOIDCAuthority(url: URL(string: GenericOIDCProvider.issuer)!))
            config.cacheConfig = .memory
            config.transport = provider
            config.clock = clock
            app = try MSALPublicClientApplication(configuration: config)
        }

        /// Signs Dana in for `api.read` through the scripted web UI; the redirect carries `extra`.
        func signIn(_ extra: [URLQueryItem] = []) async throws -> MSALResult {
            webUI.append(.redirect([URLQueryItem(name: "code", value: "code-1")] + extra))
            let parameters = MSALInteractiveTokenParameters(scopes: ["api.read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
            return try await app.acquireToken(with: parameters)
        }

        func account() throws -> MSALAccount {
            try app.account(forIdentifier: GenericOIDCProvider.subject)
        }

        func silent(forceRefresh: Bool = false) async throws -> MSALResult {
            let parameters = MSALSilentTokenParameters(scopes: ["api.read"], account: try account())
            parameters.forceRefresh = forceRefresh
            return try await app.acquireTokenSilent(with: parameters)
        }
    }

    @Test("Sign-in, silent hit, refresh: no client_info, no x-client-* or client-request-id, and the refresh names no wider scope")
    func endToEnd() async throws {
        let provider = GenericOIDCProvider()
        let harness = try Harness(provider: provider)
        let result = try await harness.signIn()
        #expect(result.accessToken == "oidc-at-0")
        #expect(result.account.identifier == GenericOIDCProvider.subject)
        #expect(result.account.username == GenericOIDCProvider.email)

        let authorize = try #require(harness.webUI.presentations.first)
        #expect(authorize.parameter("client_info") == nil)
        #expect(authorize.parameter("x-client-SKU") == nil && authorize.parameter("x-client-Ver") == nil)
        #expect(authorize.parameter("code_challenge_method") == "S256")
        #expect(authorize.parameter("scope") == "api.read openid profile offline_access")
        #expect(authorize.parameter("prompt") == nil)

        // A silent call answers from the cache: nothing is sent.
        let sentBefore = provider.requests.count
        let hit = try await harness.silent()
        #expect(hit.accessToken == "oidc-at-0")
        #expect(hit.tokenSource == .cache)
        #expect(provider.requests.count == sentBefore)

        // Expired: the refresh names no scope (the grant's), and its answer without an ID token
        // stays with the account.
        harness.clock.advance(by: 3600)
        let refreshed = try await harness.silent()
        #expect(refreshed.accessToken == "oidc-at-1")
        #expect(refreshed.tokenSource == .identityProvider)
        #expect(refreshed.account.identifier == GenericOIDCProvider.subject)
        #expect(refreshed.account.username == GenericOIDCProvider.email)
        let refresh = try #require(provider.tokenRequests.last)
        #expect(refresh["grant_type"] == "refresh_token")
        #expect(refresh["scope"] == nil)
        #expect(refresh["client_info"] == nil)
        #expect(refresh["refresh_token"] == "oidc-rt-0")

        // The refreshed token is a cache hit in turn.
        let again = try await harness.silent()
        #expect(again.accessToken == "oidc-at-1")
        #expect(again.tokenSource == .cache)

        // A forced refresh with a new ID token for the same subject.
        provider.answerRefreshes(.withIDToken(subject: GenericOIDCProvider.subject))
        #expect(try await harness.silent(forceRefresh: true).accessToken == "oidc-at-2")

        for request in provider.requests {
            #expect(!request.headers.contains("x-client-SKU") && !request.headers.contains("x-client-Ver"))
            #expect(!request.headers.contains("x-client-OS") && !request.headers.contains("x-ms-lib-capability"))
            #expect(!request.headers.contains("client-request-id") && !request.headers.contains("return-client-request-id"))
        }
        #expect(try harness.app.allAccounts().count == 1)
    }

    @Test("A refreshed ID token for another subject is refused (mismatchedUser) and nothing is cached")
    func refreshForAnotherSubject() async throws {
        let harness = try Harness()
        _ = try await harness.signIn()
        harness.provider.answerRefreshes(.withIDToken(subject: "a-different-user"))
        let error = try #require(await expectMSALError { try await harness.silent(forceRefresh: true) })
        // Without client_info the account is the subject, so the answer names another account.
        #expect(error.internalCode == .internalErrorMismatchedUser)
        // The cache still holds the original account and token.
        #expect(try await harness.silent().accessToken == "oidc-at-0")
        #expect(try harness.app.allAccounts().map(\.username) == [GenericOIDCProvider.email])
    }

    @Test("RFC 9207: the redirect's iss must be the issuer; without it only when the metadata does not promise it")
    func authorizationResponseIssuer() async throws {
        // Promised: a missing or a foreign iss ends the sign-in before any token request.
        let strict = try Harness(provider: GenericOIDCProvider(issuerParameterSupported: true))
        let missing = try #require(await expectMSALError { try await strict.signIn() })
        #expect(missing.internalCode == .redirectIssuerMismatch)
        let foreign = try #require(
            await expectMSALError { try await strict.signIn([URLQueryItem(name: "iss", value: "https://attacker.example/\u{1b}[2J")]) })
        #expect(foreign.internalCode == .redirectIssuerMismatch)
        #expect(!foreign.message.contains("\u{1b}"))
        #expect(strict.provider.tokenRequests.isEmpty)
        // An error redirect from another issuer is refused as such, not reported as the provider's error.
        strict.webUI.append(
            .redirect([URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "iss", value: "https://attacker.example")]))
        let parameters = MSALInteractiveTokenParameters(scopes: ["api.read"], webviewParameters: MSALWebviewParameters(webUI: strict.webUI))
        let mixedUp = try #require(await expectMSALError { try await strict.app.acquireToken(with: parameters) })
        #expect(mixedUp.internalCode == .redirectIssuerMismatch)
        #expect(try await strict.signIn([URLQueryItem(name: "iss", value: GenericOIDCProvider.issuer)]).accessToken == "oidc-at-0")

        // Not promised: no iss is fine, a wrong one is still refused.
        let lenient = try Harness()
        let wrong = try #require(
            await expectMSALError { try await lenient.signIn([URLQueryItem(name: "iss", value: "https://idp.example.test/realms/other")]) })
        #expect(wrong.internalCode == .redirectIssuerMismatch)
        #expect(try await lenient.signIn().accessToken == "oidc-at-0")
    }

    @Test("Browser sign-out opens end_session_endpoint with id_token_hint, logout_hint and post_logout_redirect_uri")
    func endSession() async throws {
        // A port free now, not a fixed one: a fixed port in the ephemeral range was once taken by
        // another test's connection during a parallel run.
        let redirectURI = "http://127.0.0.1:\(try await LoopbackTest.freePort())/"
        let harness = try Harness(redirectURI: redirectURI)
        _ = try await harness.signIn()
        let signOutUI = MSALScriptedWebUI(.handOff([]))
        let parameters = MSALSignoutParameters(webviewParameters: MSALWebviewParameters(webUI: signOutUI))
        parameters.signoutFromBrowser = true
        try await harness.app.signout(with: try harness.account(), signoutParameters: parameters)
        let page = try #require(signOutUI.presentations.first)
        #expect(
            try #require(signOutUI.authorizationURLs.first).absoluteString.hasPrefix(
                GenericOIDCProvider.issuer + "/protocol/openid-connect/logout?"))
        #expect(page.parameter("client_id") == GenericOIDCProvider.clientID)
        #expect(page.parameter("logout_hint") == GenericOIDCProvider.email)
        #expect(page.parameter("post_logout_redirect_uri") == redirectURI)
        let hint = try #require(page.parameter("id_token_hint"))
        #expect(try JWT.decodeUnverified(hint).claims.root["sub"]?.string == GenericOIDCProvider.subject)
        #expect(try harness.app.allAccounts().isEmpty)
    }
}

@Suite("A refreshed ID token must name the same user (OpenID Connect Core §12.2), Microsoft Entra")
struct RefreshedIdentityTests {
    @Test("Same client_info but another oid and sub: mismatchedUser, the cached account keeps its name", arguments: ["oid", "sub"])
    func sameClientInfoAnotherUser(claim: String) async throws {
        let mallory: KeyValuePairs<String, JSON?> =
            claim == "oid"
            ? ["oid": .string("99999999-9999-4999-8999-999999999999"), "preferred_username": .string("mallory@contoso.com")]
            : ["sub": .string("sub-mallory"), "preferred_username": .string("mallory@contoso.com")]
        let transport = FlowTransport([
            .respond(FlowTokens.success(accessToken: "at-mallory", refreshToken: "rt-2", idToken: .some(FlowTokens.idToken(.abe, mallory))))
        ])
        let harness = try FlowHarness(transport)
        try harness.seed(.abe)
        let error = try #require(await expectMSALError { try await harness.silent(.abe, forceRefresh: true) })
        #expect(error.internalCode == .internalErrorMismatchedUser)
        #expect(error.message.contains(claim))
        #expect(try harness.account(.abe).username == TestAccount.abe.username)
        #expect(try harness.secrets(.accessToken) == ["at-cached"])
        #expect(try harness.secrets(.refreshToken) == ["rt-1"])
    }

    @Test("A refreshed ID token for the same user (new iat, new name) is accepted")
    func sameUser() async throws {
        let transport = FlowTransport([
            .respond(
                FlowTokens.success(
                    accessToken: "at-2", refreshToken: "rt-2", idToken: .some(FlowTokens.idToken(.abe, ["name": .string("Abe Lincoln")]))))
        ])
        let harness = try FlowHarness(transport)
        try harness.seed(.abe)
        #expect(try await harness.silent(.abe, forceRefresh: true).accessToken == "at-2")
    }
}

@Suite("MSALPromptType matches MSAL for iOS")
struct PromptTypeTests {
    @Test("Order, raw values and default are MSAL for iOS's")
    func iosOrder() {
        #expect(MSALPromptType.allCases == [.selectAccount, .login, .consent, .create, .promptIfNecessary])
        #expect(MSALPromptType.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect(MSALPromptType.default == .promptIfNecessary)
        #expect(
            MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters()).promptType
                == .promptIfNecessary)
        #expect(MSALPromptType.promptIfNecessary.parameterValue == nil)
        #expect(MSALPromptType.create.parameterValue == "create")
    }
}
