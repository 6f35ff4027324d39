import Foundation
import MSALJSON
import MSALSupport
import MSALTesting
import Testing

@testable import MSAL

/// Which member of a token answer carries the hostile value.
enum HostileTokenMember: String, Sendable {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
}

/// One hostile value in one member of an otherwise valid token answer.
struct HostileTokenCase: Sendable, CustomTestStringConvertible {
    var hostile: HostileTokenValue
    var member: HostileTokenMember

    var testDescription: String { "\(member.rawValue): \(hostile.label)" }

    /// Every hostile value as the access token, and every non-empty one as the refresh token (an
    /// empty refresh token means none).
    static let all: [HostileTokenCase] =
        HostileTokenValue.all.map { HostileTokenCase(hostile: $0, member: .accessToken) }
        + HostileTokenValue.nonEmpty.map { HostileTokenCase(hostile: $0, member: .refreshToken) }

    /// A 200 answer for `account` that would be accepted but for the hostile value; its ID token carries `nonce`.
    func response(nonce: String? = nil, account: TestAccount = .abe) -> MSALHTTPResponse {
        let idToken = FlowTokens.idToken(account, nonce.map { ["nonce": .string($0)] } ?? [:])
        switch member {
        case .accessToken:
            return FlowTokens.success(accessToken: hostile.value, refreshToken: "rt-good", account: account, idToken: .some(idToken))
        case .refreshToken:
            return FlowTokens.success(accessToken: "at-good", refreshToken: hostile.value, account: account, idToken: .some(idToken))
        }
    }

    func check(_ error: MSALFailure?, correlationID: UUID?, sourceLocation: SourceLocation = #_sourceLocation) {
        hostile.check(error, member: member.rawValue, correlationID: correlationID, sourceLocation: sourceLocation)
    }
}

/// A token cache file in a new folder of its own, read byte for byte.
final class CacheFileSnapshot: Sendable {
    let folder: URL
    let path: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-hostile-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        path = folder.appendingPathComponent("cache.json").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    var config: MSALCacheConfig { MSALCacheConfig(storage: .file(path: path)) }

    /// The file's bytes; `nil` when there is no file.
    var bytes: Data? { FileManager.default.contents(atPath: path) }
}

/// Every flow refuses a token answer whose access or refresh token is not printable ASCII without
/// spaces (issue 39, finding 4) with a typed error carrying the correlation id and the status, and
/// caches nothing from it: the cache file is the same byte for byte.
@Suite("Hostile token values: every flow refuses them and caches nothing")
struct HostileTokenFlowTests {
    static let scope = "User.Read"

    @Test("Interactive sign-in (authorization code redemption)", arguments: HostileTokenCase.all)
    func interactive(test: HostileTokenCase) async throws {
        let file = try CacheFileSnapshot()
        let webUI = MSALScriptedWebUI(.code("code-1"))
        let transport = FlowTransport(token: { _ in test.response(nonce: webUI.presentations.last?.parameter("nonce")) })
        let harness = try FlowHarness(transport, cacheConfig: file.config)
        try harness.seed(.ben)
        let before = try #require(file.bytes)
        let parameters = MSALInteractiveTokenParameters(
            scopes: [Self.scope], webviewParameters: MSALWebviewParameters(webUI: webUI))
        let correlationID = UUID()
        parameters.correlationId = correlationID
        let error = await expectMSALError { try await harness.app.acquireToken(with: parameters) }
        test.check(error, correlationID: correlationID)
        #expect(transport.tokenRequests.count == 1)
        #expect(file.bytes == before)
        #expect(try harness.app.allAccounts().map(\.identifier) == [TestAccount.ben.home])
    }

    @Test("Device code: the poll's answer", arguments: HostileTokenCase.all)
    func deviceCode(test: HostileTokenCase) async throws {
        let file = try CacheFileSnapshot()
        let transport = DeviceCodeTests.deviceCodeTransport(polls: { _ in test.response() })
        let harness = try FlowHarness(transport, cacheConfig: file.config)
        try harness.seed(.ben)
        let before = try #require(file.bytes)
        let parameters = MSALTokenParameters(scopes: [Self.scope])
        let correlationID = UUID()
        parameters.correlationId = correlationID
        let error = await expectMSALError { try await harness.app.acquireTokenWithDeviceCode(with: parameters) { _ in } }
        test.check(error, correlationID: correlationID)
        #expect(transport.tokenRequests.count == 1)
        #expect(file.bytes == before)
        #expect(try harness.app.allAccounts().map(\.identifier) == [TestAccount.ben.home])
    }

    @Test(
        "Silent refresh: a bad access token, or a good access token with a bad refresh token; the old tokens stay",
        arguments: HostileTokenCase.all)
    func silentRefresh(test: HostileTokenCase) async throws {
        let file = try CacheFileSnapshot()
        let transport = FlowTransport(token: { _ in test.response() })
        let harness = try FlowHarness(transport, cacheConfig: file.config)
        try harness.seed(.abe)
        let before = try #require(file.bytes)
        let parameters = MSALSilentTokenParameters(scopes: [Self.scope], account: try harness.account(.abe))
        parameters.forceRefresh = true
        let correlationID = UUID()
        parameters.correlationId = correlationID
        let error = await expectMSALError { try await harness.app.acquireTokenSilent(with: parameters) }
        test.check(error, correlationID: correlationID)
        #expect(transport.tokenRequests.count == 1)
        #expect(file.bytes == before)
        #expect(try harness.secrets(.accessToken) == ["at-cached"])
        #expect(try harness.secrets(.refreshToken) == ["rt-1"])
    }

    // MARK: Confidential client

    static func confidential(_ transport: FlowTransport, file: CacheFileSnapshot) throws -> MSALConfidentialClientApplication {
        let configuration = MSALConfidentialClientApplicationConfig(
            clientId: FlowIdentity.clientID, clientCredential: .secret("client-secret-value"),
            authority: try MSALAuthority.authority(url: URL(string: "https://\(FlowIdentity.host)/\(FlowIdentity.tenant)")!))
        configuration.transport = transport
        configuration.clock = ManualClock(FlowIdentity.now)
        configuration.cacheConfig = file.config
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    /// The form of a token request.
    static func form(_ request: MSALHTTPRequest) -> [String: String] {
        Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first })
    }

    @Test(
        "Client credentials (app tokens): the earlier app token stays, the file is unchanged",
        arguments: HostileTokenValue.all)
    func clientCredentials(hostile: HostileTokenValue) async throws {
        let file = try CacheFileSnapshot()
        let transport = FlowTransport(token: { request in
            let scope = Self.form(request)["scope"] ?? ""
            let token = scope.contains("hostile") ? hostile.value : "at-app-good"
            return .json(200, #"{"token_type":"Bearer","expires_in":3599,"access_token":\#(JSONWriter.string(.string(token)))}"#)
        })
        let app = try Self.confidential(transport, file: file)
        let good = try await app.acquireTokenForClient(scopes: ["api://good/.default"])
        #expect(good.accessToken == "at-app-good")
        let before = try #require(file.bytes)
        let parameters = MSALClientCredentialParameters(scopes: ["api://hostile/.default"])
        let correlationID = UUID()
        parameters.correlationId = correlationID
        let error = await expectMSALError { try await app.acquireTokenForClient(with: parameters) }
        hostile.check(error, member: "access_token", correlationID: correlationID)
        #expect(file.bytes == before)
        #expect(try await app.acquireTokenForClient(scopes: ["api://good/.default"]).tokenSource == .cache)
    }

    @Test("On-behalf-of: the assertion's answer", arguments: HostileTokenCase.all)
    func onBehalfOf(test: HostileTokenCase) async throws {
        let file = try CacheFileSnapshot()
        let transport = FlowTransport(token: { _ in test.response() })
        let app = try Self.confidential(transport, file: file)
        let before = file.bytes
        let parameters = MSALOnBehalfOfParameters(scopes: [Self.scope], userAssertion: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2ln")
        let correlationID = UUID()
        parameters.correlationId = correlationID
        let error = await expectMSALError { try await app.acquireTokenOnBehalfOf(with: parameters) }
        test.check(error, correlationID: correlationID)
        #expect(transport.tokenRequests.count == 1)
        #expect(file.bytes == before)
        #expect(try await app.allAccounts().isEmpty)
    }

    @Test("Web app: the authorization code redemption", arguments: HostileTokenCase.all)
    func webApp(test: HostileTokenCase) async throws {
        let file = try CacheFileSnapshot()
        let nonce = Mutex<String?>(nil)
        let transport = FlowTransport(token: { _ in test.response(nonce: nonce.withLock { $0 }) })
        let app = try Self.confidential(transport, file: file)
        let before = file.bytes
        let flow = try await app.initiateAuthorizationCodeFlow(
            with: MSALAuthorizationCodeParameters(scopes: [Self.scope], redirectUri: "https://app.example/callback"))
        nonce.withLock { $0 = flow.nonce }
        let error = await expectMSALError {
            try await app.acquireTokenByAuthorizationCode(flow: flow, responseParameters: ["code": "code-1", "state": flow.state])
        }
        test.check(error, correlationID: nil)
        #expect(error?.correlationID != nil)
        #expect(error?.httpStatusCode == 200)
        #expect(transport.tokenRequests.count == 1)
        #expect(file.bytes == before)
        #expect(try await app.allAccounts().isEmpty)
    }

    // MARK: Managed identity

    /// The environment that selects each source whose request is a single GET (Azure Arc answers a
    /// challenge first; its 200 goes through the same parser, checked for every source in
    /// ``HostileTokenValueTests``).
    static let sources: [(MSALManagedIdentitySource, [String: String])] = [
        (.imds, [:]),
        (.appService, ["IDENTITY_ENDPOINT": "http://localhost:8081/msi/token", "IDENTITY_HEADER": "h"]),
        (
            .serviceFabric,
            [
                "IDENTITY_ENDPOINT": "https://10.0.0.4:2377/metadata/identity/oauth2/token", "IDENTITY_HEADER": "h",
                "IDENTITY_SERVER_THUMBPRINT": "t",
            ]
        ),
        (.cloudShell, ["MSI_ENDPOINT": "http://localhost:50342/oauth2/token"]),
        (.machineLearning, ["MSI_ENDPOINT": "http://127.0.0.1:46808/", "MSI_SECRET": "s", "DEFAULT_IDENTITY_CLIENT_ID": "c"]),
    ]

    @Test("Managed identity, every single-request source: the earlier token stays, the file is unchanged", arguments: HostileTokenValue.all)
    func managedIdentity(hostile: HostileTokenValue) async throws {
        for (source, environment) in Self.sources {
            let file = try CacheFileSnapshot()
            let hostileBody = JSONWriter.string(
                .object([
                    JSONMember(name: "access_token", value: .string(hostile.value)),
                    JSONMember(name: "expires_in", value: .string("86399")), JSONMember(name: "token_type", value: .string("Bearer")),
                ]))
            let (app, _, _) = try ManagedIdentityTests.app(
                environment: environment, steps: [ManagedIdentityTests.token("mi-good"), .respond(.json(200, hostileBody))],
                cache: file.config)
            #expect(app.source == source)
            #expect(try await app.acquireToken(forResource: "https://good.example").accessToken == "mi-good")
            let before = try #require(file.bytes)
            let parameters = MSALManagedIdentityParameters(resource: "https://hostile.example")
            let correlationID = UUID()
            parameters.correlationId = correlationID
            let error = await expectMSALError { try await app.acquireToken(with: parameters) }
            hostile.check(error, member: "access_token", code: .managedIdentityRequestFailed, correlationID: correlationID)
            #expect(error?.message.contains("(\(source))") == true, "\(String(describing: error?.message))")
            #expect(file.bytes == before, "\(source)")
            #expect(try await app.acquireToken(forResource: "https://good.example").tokenSource == .cache)
        }
    }
}
