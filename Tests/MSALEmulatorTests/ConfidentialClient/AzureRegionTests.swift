import Foundation
import MSAL
import MSALEmulator
import MSALSupport
import Testing

/// Sends requests for the emulator's advertised hosts — the global one and its regional
/// `<region>.login.microsoft.com` — to where it listens, answers the instance metadata service's
/// compute request itself, records every URL, and refuses anything else: nothing leaves the machine.
final class RegionalTestTransport: MSALHTTPTransport {
    private let target: String
    private let inner = MSALCurlTransport()
    private let imds: (status: Int, body: String)?
    private let seen = Mutex<[URL]>([])

    init(_ emulator: MSALEmulator, imds: (status: Int, body: String)? = nil) {
        target = emulator.baseURL.absoluteString
        self.imds = imds
    }

    var urls: [URL] { seen.withLock { $0 } }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        seen.withLock { $0.append(request.url) }
        let host = request.url.host ?? ""
        if host == "127.0.0.9", request.url.path == "/metadata/instance/compute" {
            guard let imds else {
                throw MSALFailure(.internal, internalCode: .networkTimeout, message: "no instance metadata service here")
            }
            guard request.headers["Metadata"] == "true" else { return MSALHTTPResponse(statusCode: 400, headers: [:], text: "{}") }
            return MSALHTTPResponse(statusCode: imds.status, headers: ["Content-Type": "application/json"], text: imds.body)
        }
        guard host == "login.microsoftonline.com" || host.hasSuffix(".login.microsoft.com") else {
            throw MSALFailure(.internal, internalCode: .networkFailure, message: "the test transport refused \(request.url)")
        }
        var rewritten = request
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
        let base = URLComponents(string: target)!
        components.scheme = base.scheme
        components.host = base.host
        components.port = base.port
        rewritten.url = components.url!
        return try await inner.send(rewritten, limits: limits)
    }
}

/// `azureRegion` (ESTS-R): app-token requests go to `<region>.login.microsoft.com` while discovery,
/// the metadata, the assertion's audience and the cache stay global; the region named, forced by
/// `MSAL_FORCE_REGION`, or detected from `REGION_NAME` or the instance metadata service (a local
/// stand-in, never 169.254.169.254); the global endpoint when detection finds nothing.
@Suite("Confidential client: regional endpoints (azureRegion)")
struct AzureRegionTests {
    typealias Grant = ClientCredentialsGrantTests
    static let scope = "https://graph.microsoft.com/.default"

    static var configuration: MSALEmulator.Configuration {
        var configuration = Grant.configuration
        configuration.advertisedOrigin = "https://login.microsoftonline.com"
        return configuration
    }

    static func app(
        _ harness: EmulatorHarness, region: MSALAzureRegion?, environment: [String: String] = [:], transport: RegionalTestTransport,
        credential: MSALClientCredential = .secret(Grant.secret), clientID: String = Grant.secretClientID
    ) throws -> MSALConfidentialClientApplication {
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(EmulatorHarness.contoso)")!)
        let configuration = MSALConfidentialClientApplicationConfig(clientId: clientID, clientCredential: credential, authority: authority)
        configuration.azureRegion = region
        configuration.environment = environment
        configuration.instanceMetadataBaseURL = URL(string: "http://127.0.0.9")!
        configuration.transport = transport
        configuration.clock = harness.clock
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    static func tokenHosts(_ transport: RegionalTestTransport) -> [String] {
        transport.urls.filter { $0.path.hasSuffix("/oauth2/v2.0/token") }.compactMap(\.host)
    }

    @Test("A named region: the token request goes to <region>.login.microsoft.com, discovery and the cache stay global")
    func named() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            let transport = RegionalTestTransport(harness.emulator)
            let app = try Self.app(harness, region: .named("WestUS2"), transport: transport)
            let first = try await app.acquireTokenForClient(scopes: [Self.scope])
            #expect(Self.tokenHosts(transport) == ["westus2.login.microsoft.com"])
            let metadata = transport.urls.filter { $0.path.contains("openid-configuration") }
            #expect(!metadata.isEmpty && metadata.allSatisfy { $0.host == "login.microsoftonline.com" })
            #expect(first.tenantProfile.environment == "login.microsoftonline.com")
            #expect(try await app.acquireTokenForClient(scopes: [Self.scope]).tokenSource == .cache)
            #expect(Self.tokenHosts(transport).count == 1)
        }
    }

    @Test("A certificate's assertion keeps the global token endpoint as its audience, which the provider checks")
    func certificateAudience() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            let transport = RegionalTestTransport(harness.emulator)
            let app = try Self.app(
                harness, region: .named("eastus"), transport: transport, credential: try ConfidentialClientTests.certificateCredential(),
                clientID: Grant.certificateClientID)
            _ = try await app.acquireTokenForClient(scopes: [Self.scope])
            #expect(Self.tokenHosts(transport) == ["eastus.login.microsoft.com"])
        }
    }

    @Test("MSAL_FORCE_REGION applies when no region is configured; .disabled ignores it; an invalid name fails creation")
    func forcedAndInvalid() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            let forced = RegionalTestTransport(harness.emulator)
            _ = try await Self.app(harness, region: nil, environment: ["MSAL_FORCE_REGION": "centralus"], transport: forced)
                .acquireTokenForClient(scopes: [Self.scope])
            #expect(Self.tokenHosts(forced) == ["centralus.login.microsoft.com"])

            let disabled = RegionalTestTransport(harness.emulator)
            _ = try await Self.app(harness, region: .disabled, environment: ["MSAL_FORCE_REGION": "centralus"], transport: disabled)
                .acquireTokenForClient(scopes: [Self.scope])
            #expect(Self.tokenHosts(disabled) == ["login.microsoftonline.com"])

            for bad in ["west us2!", "", "-west", "a.b", String(repeating: "a", count: 64)] {
                let error = #expect(throws: MSALFailure.self, "\(bad)") {
                    _ = try Self.app(harness, region: .named(bad), transport: RegionalTestTransport(harness.emulator))
                }
                #expect(error?.internalCode == .internalErrorInvalidParameter)
            }
        }
    }

    @Test("Auto-detection: REGION_NAME, else the instance metadata service's location (asked once), else the global endpoint")
    func autoDetect() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            let fromVariable = RegionalTestTransport(harness.emulator, imds: (200, #"{"location":"northeurope"}"#))
            _ = try await Self.app(harness, region: .autoDetect, environment: ["REGION_NAME": "West Europe"], transport: fromVariable)
                .acquireTokenForClient(scopes: [Self.scope])
            #expect(Self.tokenHosts(fromVariable) == ["westeurope.login.microsoft.com"])
            #expect(!fromVariable.urls.contains { $0.host == "127.0.0.9" })

            let fromIMDS = RegionalTestTransport(harness.emulator, imds: (200, #"{"location":"northeurope","name":"vm"}"#))
            let app = try Self.app(harness, region: .autoDetect, transport: fromIMDS)
            let parameters = MSALClientCredentialParameters(scopes: [Self.scope])
            parameters.forceRefresh = true
            _ = try await app.acquireTokenForClient(with: parameters)
            _ = try await app.acquireTokenForClient(with: parameters)
            #expect(Self.tokenHosts(fromIMDS) == ["northeurope.login.microsoft.com", "northeurope.login.microsoft.com"])
            #expect(fromIMDS.urls.filter { $0.host == "127.0.0.9" }.count == 1, "asked once")

            for imds in [(status: 404, body: "{}"), (status: 200, body: #"{"location":"not a region!"}"#), (status: 200, body: "<html>")] {
                let nothing = RegionalTestTransport(harness.emulator, imds: imds)
                _ = try await Self.app(harness, region: .autoDetect, transport: nothing).acquireTokenForClient(scopes: [Self.scope])
                #expect(Self.tokenHosts(nothing) == ["login.microsoftonline.com"], "\(imds)")
            }
            let unreachable = RegionalTestTransport(harness.emulator)
            _ = try await Self.app(harness, region: .autoDetect, transport: unreachable).acquireTokenForClient(scopes: [Self.scope])
            #expect(Self.tokenHosts(unreachable) == ["login.microsoftonline.com"])
        }
    }
}
