import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// swift-msal's `MSALManagedIdentityApplication` and MSAL for Python 1.39's `ManagedIdentityClient`
/// against the same local provider's managed-identity endpoints (IMDS through
/// `AZURE_POD_IDENTITY_AUTHORITY_HOST`, App Service, Azure Arc with its key file in the agent's
/// real token directory): both detect the same source and get the same identity's token; a
/// user-assigned identity's token cached by one is the other's cache hit with 0 requests.
/// Everything stays on 127.0.0.1 (the Python side refuses any other host).
@Suite("Managed identity: interop with MSAL for Python", .serialized)
struct PythonManagedIdentityInteropTests {
    typealias Sample = MSALEmulator.Configuration
    /// Where the Arc agent keeps its key files on Linux; MSAL for Python's path is fixed to it.
    static let arcDirectory = "/var/opt/azcmagent/tokens"

    enum Source: String, CaseIterable, CustomTestStringConvertible {
        case imds, appService, azureArc
        var testDescription: String { rawValue }

        func environment(_ emulator: MSALEmulator) -> [String: String] {
            switch self {
            case .imds: ["AZURE_POD_IDENTITY_AUTHORITY_HOST": emulator.baseURL.absoluteString]
            case .appService:
                ["IDENTITY_ENDPOINT": emulator.appServiceTokenURL.absoluteString, "IDENTITY_HEADER": Sample.sampleAppServiceIdentityHeader]
            case .azureArc:
                ["IDENTITY_ENDPOINT": emulator.azureArcTokenURL.absoluteString, "IMDS_ENDPOINT": emulator.azureArcIMDSURL.absoluteString]
            }
        }

        /// MSAL for Python's name of the source.
        var pythonName: String {
            switch self {
            case .imds: "DEFAULT_TO_VM"
            case .appService: "APP_SERVICE"
            case .azureArc: "AZURE_ARC"
            }
        }

        var swiftSource: MSALManagedIdentitySource {
            switch self {
            case .imds: .imds
            case .appService: .appService
            case .azureArc: .azureArc
            }
        }

        var endpoint: MSALEmulator.Endpoint {
            switch self {
            case .imds: .imds
            case .appService: .appService
            case .azureArc: .azureArc
            }
        }
    }

    final class Setup {
        let emulator: MSALEmulator
        let folder: URL

        init(arc: Bool) async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-mi-interop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var configuration = Sample.sample
            if arc {
                // The agent's real directory: MSAL for Python accepts no other. CI runs as root.
                do {
                    try FileManager.default.createDirectory(
                        atPath: PythonManagedIdentityInteropTests.arcDirectory, withIntermediateDirectories: true,
                        attributes: [.posixPermissions: 0o700])
                } catch {
                    throw PythonMSAL.Failure(
                        "the Azure Arc interop test needs \(PythonManagedIdentityInteropTests.arcDirectory) (run as root): \(error)")
                }
                configuration.arcTokenDirectory = PythonManagedIdentityInteropTests.arcDirectory
            }
            emulator = try MSALEmulator(configuration: configuration)
            try await emulator.start()
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        var cacheFile: String { folder.appendingPathComponent("cache.json").path }

        func swift(
            _ identity: MSALManagedIdentity, _ source: Source, cache: MSALCacheConfig = .memory
        ) throws -> MSALManagedIdentityApplication {
            let configuration = MSALManagedIdentityConfig(identity: identity)
            configuration.environment = source.environment(emulator)
            configuration.cacheConfig = cache
            configuration.arcAgentPath = "/nonexistent/himds"
            return try MSALManagedIdentityApplication(configuration: configuration)
        }

        func python(
            _ identity: [String: Any], _ source: Source, resource: String, calls: Int = 1
        ) async throws -> (source: String, results: [[String: Any]]) {
            let spec: [String: Any] = [
                "environment": source.environment(emulator), "identity": identity, "resource": resource, "cache_file": cacheFile,
                "calls": calls,
            ]
            let specURL = folder.appendingPathComponent("spec-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: spec).write(to: specURL)
            let output = try await PythonMSAL.runChecked("managed_identity.py", [specURL.path]).jsonObject()
            #expect((output["msal_python_version"] as? String)?.hasPrefix("1.") == true)
            return (try #require(output["source"] as? String), try #require(output["results"] as? [[String: Any]]))
        }

        static func with(arc: Bool = false, _ body: (Setup) async throws -> Void) async throws {
            let setup = try await Setup(arc: arc)
            do {
                try await body(setup)
            } catch {
                try? await setup.emulator.shutdown()
                throw error
            }
            try? await setup.emulator.shutdown()
        }
    }

    static let resource = "https://vault.azure.net"
    static let identityClaims = ["aud", "oid", "appid", "tid", "iss", "xms_mirid", "idtyp"]

    static func claims(_ token: String) throws -> [String: String] {
        let jwt = try JWT.decodeUnverified(token)
        var claims: [String: String] = [:]
        for name in identityClaims { claims[name] = jwt.stringClaim(name) ?? jwt.stringListClaim(name)?.joined(separator: " ") }
        return claims
    }

    @Test(
        "Each source: both libraries detect it and get the system-assigned identity's token with the same claims",
        arguments: Source.allCases)
    func sameAnswer(_ source: Source) async throws {
        try await Setup.with(arc: source == .azureArc) { setup in
            let systemAssigned: [String: Any] = ["ManagedIdentityIdType": "SystemAssigned", "Id": NSNull()]
            let python = try await setup.python(systemAssigned, source, resource: Self.resource)
            #expect(python.source == source.pythonName)
            let pythonToken = try #require(python.results.first?["access_token"] as? String, "\(python.results)")
            #expect(python.results.first?["token_source"] as? String == "identity_provider")

            let app = try setup.swift(.systemAssigned, source)
            #expect(app.source == source.swiftSource)
            let swiftToken = try await app.acquireToken(forResource: Self.resource).accessToken
            #expect(swiftToken != pythonToken)
            let expected = try Self.claims(pythonToken)
            #expect(try Self.claims(swiftToken) == expected)
            #expect(expected["oid"] == Sample.sampleSystemAssignedIdentityObjectID)
            #expect(expected["aud"] == Self.resource)
            // One request each (Arc: the challenge and the answer, each).
            #expect(setup.emulator.requestCount(source.endpoint) == (source == .azureArc ? 4 : 2))
        }
    }

    @Test(
        "A user-assigned identity's token cached by either library is the other's cache hit with 0 requests",
        arguments: [Source.imds, .appService])
    func sharedCache(_ source: Source) async throws {
        try await Setup.with { setup in
            let identity: [String: Any] = ["ManagedIdentityIdType": "ClientId", "Id": Sample.sampleUserAssignedIdentityClientID]
            let cache = MSALCacheConfig(storage: .file(path: setup.cacheFile))
            // MSAL for Python first; its second call is its own cache hit.
            let python = try await setup.python(identity, source, resource: Self.resource, calls: 2).results
            #expect(python.map { $0["token_source"] as? String } == ["identity_provider", "cache"])
            let pythonToken = try #require(python.first?["access_token"] as? String)
            #expect(setup.emulator.requestCount(source.endpoint) == 1)

            let app = try setup.swift(.userAssigned(.clientID(Sample.sampleUserAssignedIdentityClientID)), source, cache: cache)
            let fromPython = try await app.acquireToken(forResource: Self.resource)
            #expect(fromPython.tokenSource == .cache)
            #expect(fromPython.accessToken == pythonToken)
            #expect(setup.emulator.requestCount(source.endpoint) == 1)

            // swift-msal first for another resource; MSAL for Python answers from it.
            let storage = "https://storage.azure.com"
            let swiftToken = try await app.acquireToken(forResource: storage)
            #expect(swiftToken.tokenSource == .identityProvider)
            #expect(setup.emulator.requestCount(source.endpoint) == 2)
            let reverse = try await setup.python(identity, source, resource: storage).results
            #expect(reverse.first?["token_source"] as? String == "cache", "\(reverse)")
            #expect(reverse.first?["access_token"] as? String == swiftToken.accessToken)
            #expect(setup.emulator.requestCount(source.endpoint) == 2)
        }
    }
}
