import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// `MSALManagedIdentityApplication` against the emulator's managed-identity endpoints over
/// loopback HTTP with the default transport: IMDS (through the endpoint override), App Service and
/// Azure Arc with its challenge file. Nothing is sent to 169.254.169.254 or off this machine.
@Suite("Managed identity end to end: the SDK against the local provider's sources")
struct ManagedIdentityEndToEndTests {
    typealias Sample = MSALEmulator.Configuration
    static let resource = "https://vault.azure.net"

    static func app(
        _ harness: EmulatorHarness, _ identity: MSALManagedIdentity = .systemAssigned, environment: [String: String] = [:],
        arcDirectory: String? = nil
    ) throws -> MSALManagedIdentityApplication {
        let configuration = MSALManagedIdentityConfig(identity: identity)
        configuration.environment = environment
        configuration.imdsBaseURL = harness.emulator.baseURL
        configuration.clock = harness.clock
        configuration.arcAgentPath = "/nonexistent/himds"
        if let arcDirectory { configuration.arcTokenDirectory = arcDirectory }
        return try MSALManagedIdentityApplication(configuration: configuration)
    }

    /// The token's claims after checking its signature against the emulator's keys.
    static func verified(_ token: String, _ harness: EmulatorHarness) async throws -> JWT {
        let keys = try await harness.call("GET", "/\(EmulatorHarness.contoso)/discovery/v2.0/keys")
        return try JWTVerifier(keySet: try JSONWebKeySet(json: [UInt8](keys.body))).verify(token)
    }

    static func msalError(_ body: () async throws -> Void) async -> MSALFailure? {
        do {
            try await body()
            return nil
        } catch {
            return error as? MSALFailure
        }
    }

    @Test(
        "IMDS through the override: the system-assigned identity and the user-assigned one by each id; then the cache with 0 requests",
        arguments: [
            (MSALManagedIdentity.systemAssigned, Sample.sampleSystemAssignedIdentityObjectID),
            (.userAssigned(.clientID(Sample.sampleUserAssignedIdentityClientID)), Sample.sampleUserAssignedIdentityObjectID),
            (.userAssigned(.objectID(Sample.sampleUserAssignedIdentityObjectID)), Sample.sampleUserAssignedIdentityObjectID),
            (.userAssigned(.resourceID(Sample.sampleUserAssignedIdentityResourceID)), Sample.sampleUserAssignedIdentityObjectID),
        ])
    func imds(identity: MSALManagedIdentity, objectID: String) async throws {
        try await EmulatorHarness.with { harness in
            let app = try Self.app(harness, identity)
            #expect(app.source == .imds)
            let before = harness.clock.now()
            let result = try await app.acquireToken(forResource: Self.resource)
            let after = harness.clock.now()
            #expect(result.tokenSource == .identityProvider)
            let claims = try await Self.verified(result.accessToken, harness)
            #expect(claims.stringClaim("oid") == objectID)
            #expect(claims.stringListClaim("aud") == [Self.resource])
            #expect(claims.stringClaim("idtyp") == "app")
            // 24 hours from some time during the request (however long a loaded machine took), refreshed at half.
            let expiresOn = try #require(result.expiresOn)
            #expect(expiresOn >= before.addingTimeInterval(86_400 - 1) && expiresOn <= after.addingTimeInterval(86_400 + 1))
            let refreshOn = try #require(result.refreshOn)
            #expect(abs(expiresOn.timeIntervalSince(refreshOn) - 43_200) <= 1)
            #expect(try await app.acquireToken(forResource: Self.resource).tokenSource == .cache)
            #expect(harness.emulator.requestCount(.imds) == 1)
        }
    }

    @Test("IMDS restarting (410 twice) and overloaded (a 429 then a 503): asked again after the waits MSAL.NET uses, then a token")
    func imdsRetries() async throws {
        try await EmulatorHarness.with { harness in
            harness.emulator.inject(.init(.serverError(status: 410), endpoint: .imds, times: 2))
            let app = try Self.app(harness)
            let start = harness.clock.now()
            _ = try await app.acquireToken(forResource: Self.resource)
            #expect(harness.emulator.requestCount(.imds) == 3)
            #expect(harness.clock.now().timeIntervalSince(start) >= 20, "two waits of 10 s on the emulator's clock")

            harness.emulator.inject(.init(.serverError(status: 429), endpoint: .imds, times: 1))
            harness.emulator.inject(.init(.serverError(status: 503), endpoint: .imds, times: 1))
            let parameters = MSALManagedIdentityParameters(resource: Self.resource)
            parameters.forceRefresh = true
            _ = try await app.acquireToken(with: parameters)
            #expect(harness.emulator.requestCount(.imds) == 6)

            harness.emulator.inject(.init(.serverError(status: 500), endpoint: .imds))
            let error = await Self.msalError { _ = try await app.acquireToken(with: parameters) }
            #expect(error?.code == .internal)
            #expect(error?.httpStatusCode == 500)
            #expect(harness.emulator.requestCount(.imds) == 10, "the first try and three more")
        }
    }

    @Test("An identity not assigned to the resource: IMDS's 400 is a typed error naming why, asked once")
    func imdsUnknownIdentity() async throws {
        try await EmulatorHarness.with { harness in
            let app = try Self.app(harness, .userAssigned(.clientID("00000000-0000-0000-0000-00000000dead")))
            let error = await Self.msalError { _ = try await app.acquireToken(forResource: Self.resource) }
            #expect(error?.internalCode == .managedIdentityRequestFailed)
            #expect(error?.httpStatusCode == 400)
            #expect(error?.oauthError == "invalid_request")
            #expect(error?.message.contains("not assigned") == true)
            #expect(harness.emulator.requestCount(.imds) == 1)
        }
    }

    @Test("App Service: the identity header opens the endpoint; a wrong one is refused once, unretried")
    func appService() async throws {
        try await EmulatorHarness.with { harness in
            var environment = [
                "IDENTITY_ENDPOINT": harness.emulator.appServiceTokenURL.absoluteString,
                "IDENTITY_HEADER": Sample.sampleAppServiceIdentityHeader,
            ]
            let app = try Self.app(
                harness, .userAssigned(.resourceID(Sample.sampleUserAssignedIdentityResourceID)), environment: environment)
            #expect(app.source == .appService)
            let result = try await app.acquireToken(forResource: Self.resource + "/.default")
            let claims = try await Self.verified(result.accessToken, harness)
            #expect(claims.stringClaim("xms_mirid") == Sample.sampleUserAssignedIdentityResourceID)
            #expect(claims.stringClaim("appid") == Sample.sampleUserAssignedIdentityClientID)
            #expect(harness.emulator.requestCount(.appService) == 1)

            environment["IDENTITY_HEADER"] = "not-the-header"
            let wrong = try Self.app(harness, environment: environment)
            let error = await Self.msalError { _ = try await wrong.acquireToken(forResource: Self.resource) }
            #expect(error?.internalCode == .managedIdentityRequestFailed)
            #expect(error?.httpStatusCode == 401)
            #expect(harness.emulator.requestCount(.appService) == 2)
        }
    }

    /// A scratch directory for the Arc agent's key files.
    final class Directory {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("msal-arc-e2e-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test(
        "Azure Arc: the challenge file the provider writes is read and answered; a provider naming a file outside the agent's directory is refused"
    )
    func arc() async throws {
        let agent = try Directory()
        let elsewhere = try Directory()
        for (providerDirectory, accepted) in [(agent.path, true), (elsewhere.path, false)] {
            var configuration = EmulatorHarness.configuration
            configuration.arcTokenDirectory = providerDirectory
            try await EmulatorHarness.with(configuration) { harness in
                let environment = [
                    "IDENTITY_ENDPOINT": harness.emulator.azureArcTokenURL.absoluteString,
                    "IMDS_ENDPOINT": harness.emulator.azureArcIMDSURL.absoluteString,
                ]
                let app = try Self.app(harness, environment: environment, arcDirectory: agent.path)
                #expect(app.source == .azureArc)
                if accepted {
                    let result = try await app.acquireToken(forResource: Self.resource)
                    let claims = try await Self.verified(result.accessToken, harness)
                    #expect(claims.stringClaim("oid") == Sample.sampleSystemAssignedIdentityObjectID)
                    #expect(harness.emulator.requestCount(.azureArc) == 2, "the challenge and the answer")
                } else {
                    let error = await Self.msalError { _ = try await app.acquireToken(forResource: Self.resource) }
                    #expect(error?.internalCode == .managedIdentityChallengeRejected)
                    #expect(harness.emulator.requestCount(.azureArc) == 1, "no secret sent back")
                }
            }
        }
    }
}
