import Foundation
import MSAL
import MSALEmulator
import MSALSupport
import Testing

/// `acquireTokenByUserFederatedIdentityCredential` against the emulator: an agent identity (a
/// confidential client) gets its instance token for `api://AzureADTokenExchange/.default`, then a
/// user's tokens with it (`grant_type=user_fic`), cached under the user's account; refusals and a
/// provider answering for another user leave the cache empty.
@Suite("Confidential client: user federated identity credentials (agent identities)")
struct UserFederatedCredentialTests {
    typealias Grant = ClientCredentialsGrantTests
    typealias Client = ConfidentialClientTests

    static let exchange = "api://AzureADTokenExchange/.default"

    /// The agent's instance token: an app token for the token exchange.
    static func instanceToken(_ app: MSALConfidentialClientApplication) async throws -> String {
        try await app.acquireTokenForClient(scopes: [exchange]).accessToken
    }

    static func ficGrants(_ harness: EmulatorHarness) -> Int {
        harness.emulator.requestCount(.token, grantType: .userFederatedCredential)
    }

    @Test("By username: user_fic with the credential, cached under the user's account; the next call and acquireTokenSilent are cache hits")
    func byUsername() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let agent = try Client.application(harness)
            let credential = try await Self.instanceToken(agent)
            let parameters = MSALUserFederatedIdentityCredentialParameters(
                scopes: ["User.Read"], assertion: credential, username: EmulatorHarness.adele)
            let result = try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters)
            #expect(result.tokenSource == .identityProvider)
            #expect(result.account.username == EmulatorHarness.adele)
            #expect(result.idToken != nil)
            let form = try #require(harness.emulator.requests.last { $0.grantType == .userFederatedCredential }?.form)
            #expect(form["grant_type"] == "user_fic")
            #expect(form["username"] == EmulatorHarness.adele)
            #expect(form["user_federated_identity_credential"] == "<redacted>")
            #expect(form["client_info"] == "1")
            #expect(form["client_secret"] == "<redacted>")
            #expect(
                Set(form["scope"]?.split(separator: " ").map(String.init) ?? []) == ["User.Read", "openid", "profile", "offline_access"])

            let again = try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters)
            #expect(again.tokenSource == .cache)
            #expect(again.accessToken == result.accessToken)
            #expect(Self.ficGrants(harness) == 1)
            let account = try #require(try await agent.allAccounts().first { $0.username == EmulatorHarness.adele })
            let silent = try await agent.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(silent.accessToken == result.accessToken)

            parameters.forceRefresh = true
            #expect(try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters).tokenSource == .identityProvider)
            #expect(Self.ficGrants(harness) == 2)
        }
    }

    @Test("By object id: user_id is sent, and the cached token is found by the object id next time")
    func byObjectID() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let agent = try Client.application(harness)
            let user = try #require(harness.emulator.configuration.user(named: EmulatorHarness.ben))
            let parameters = MSALUserFederatedIdentityCredentialParameters(
                scopes: ["User.Read"], assertion: try await Self.instanceToken(agent), userObjectId: user.objectID)
            let result = try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters)
            #expect(result.account.username == EmulatorHarness.ben)
            let form = try #require(harness.emulator.requests.last { $0.grantType == .userFederatedCredential }?.form)
            #expect(form["user_id"] == user.objectID)
            #expect(form["username"] == nil)
            #expect(try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters).tokenSource == .cache)
            #expect(Self.ficGrants(harness) == 1)
        }
    }

    @Test("Refused credentials and users are typed with the OAuth error; nothing is cached")
    func refused() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let agent = try Client.application(harness)
            let other = try Client.application(harness, clientID: Grant.certificateClientID, credential: try Client.certificateCredential())
            let othersCredential = try await Self.instanceToken(other)
            let graphToken = try await agent.acquireTokenForClient(scopes: [Client.graphDefault]).accessToken
            let own = try await Self.instanceToken(agent)
            let cases: [(String, String, String, Int)] = [
                ("another client's credential", othersCredential, EmulatorHarness.adele, 700213),
                ("not a token exchange credential", graphToken, EmulatorHarness.adele, 700212),
                ("an unknown user", own, "nobody@contoso.example", 50034),
            ]
            for (name, credential, username, code) in cases {
                let parameters = MSALUserFederatedIdentityCredentialParameters(
                    scopes: ["User.Read"], assertion: credential, username: username)
                let error = try #require(
                    await Client.msalError { _ = try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters) })
                #expect(error.code == .internal, "\(name)")
                #expect(error.internalCode == .internalErrorInvalidGrant, "\(name)")
                #expect(error.oauthError == "invalid_grant", "\(name)")
                #expect(error.message.contains("AADSTS\(code)"), "\(name): \(error.message)")
                #expect(error.correlationID != nil)
                #expect(!error.message.contains(credential), "\(name)")
            }
            #expect(try await agent.allAccounts().isEmpty)
        }
    }

    @Test(
        "A challenge for the user (invalid_grant with basic_action, interaction_required with claims) is interactionRequired; other invalid_grants are the agent's"
    )
    func challenges() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let agent = try Client.application(harness)
            let parameters = MSALUserFederatedIdentityCredentialParameters(
                scopes: ["User.Read"], assertion: try await Self.instanceToken(agent), username: EmulatorHarness.adele)
            let claims = #"{"access_token":{"acrs":{"essential":true,"value":"c1"}}}"#
            let cases: [(MSALEmulator.Fault.Response, MSALError, String)] = [
                (.invalidGrant(subError: "basic_action"), .interactionRequired, "invalid_grant"),
                (.invalidGrant(subError: "bad_token"), .internal, "invalid_grant"),
                (.interactionRequired(claims: claims), .interactionRequired, "interaction_required"),
            ]
            for (fault, code, oauthError) in cases {
                harness.emulator.inject(.init(fault, grantType: .userFederatedCredential, times: 1))
                parameters.forceRefresh = true
                let error = try #require(
                    await Client.msalError { _ = try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters) })
                #expect(error.code == code, "\(fault)")
                #expect(error.oauthError == oauthError, "\(fault)")
            }
            #expect(try await agent.allAccounts().isEmpty)
        }
    }

    @Test("An answer for another user than the one named is refused (internalErrorMismatchedUser) and nothing is cached")
    func mismatchedUser() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: Grant.secretClientID, clientCredential: .secret(Grant.secret),
                authority: try harness.authority(EmulatorHarness.contoso))
            configuration.clock = harness.clock
            // A provider that answers for Ben whoever is named: the body's username is swapped on the way.
            configuration.transport = UsernameSwappingTransport(from: EmulatorHarness.adele, to: EmulatorHarness.ben)
            let agent = try MSALConfidentialClientApplication(configuration: configuration)
            let parameters = MSALUserFederatedIdentityCredentialParameters(
                scopes: ["User.Read"], assertion: try await Self.instanceToken(agent), username: EmulatorHarness.adele)
            let error = try #require(
                await Client.msalError { _ = try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters) })
            #expect(error.internalCode == .internalErrorMismatchedUser)
            #expect(Self.ficGrants(harness) == 1)
            #expect(try await agent.allAccounts().isEmpty)
        }
    }

    @Test(
        "Malformed input is refused before anything is sent",
        arguments: [
            ("not a JWT", "not-a-jwt", EmulatorHarness.adele, ["User.Read"]),
            ("a JWT with a bad byte", "a.b+c.d", EmulatorHarness.adele, ["User.Read"]),
            ("an empty username", "a.b.c", "", ["User.Read"]),
            ("a username with a space", "a.b.c", "adele @contoso.example", ["User.Read"]),
            ("no scopes", "a.b.c", EmulatorHarness.adele, ["openid"]),
        ])
    func malformed(name: String, assertion: String, username: String, scopes: [String]) async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let agent = try Client.application(harness)
            let parameters = MSALUserFederatedIdentityCredentialParameters(scopes: scopes, assertion: assertion, username: username)
            let error = try #require(
                await Client.msalError { _ = try await agent.acquireTokenByUserFederatedIdentityCredential(with: parameters) })
            #expect(error.internalCode == .internalErrorInvalidParameter, "\(name)")
            #expect(error.correlationID != nil)
            #expect(harness.emulator.requests.isEmpty, "\(name): nothing sent")
        }
    }
}

/// The default transport, with `username=<from>` in a token request's body replaced by `<to>`:
/// a provider that answers for another user than the one asked.
final class UsernameSwappingTransport: MSALHTTPTransport {
    private let inner = MSALCurlTransport()
    private let from: String
    private let to: String

    init(from: String, to: String) {
        self.from = from
        self.to = to
    }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        var changed = request
        if let body = request.body {
            let encode = { (text: String) in text.replacingOccurrences(of: "@", with: "%40") }
            let text = String(decoding: body, as: UTF8.self).replacingOccurrences(
                of: "username=" + encode(from), with: "username=" + encode(to))
            changed.body = Array(text.utf8)
        }
        return try await inner.send(changed, limits: limits)
    }
}
