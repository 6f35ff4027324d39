import Foundation
import MSAL
import MSALEmulator
import MSALSupport
import Testing

/// Sends requests for the emulator's advertised origin to where it listens; anything else is refused.
final class AdvertisedOriginTransport: MSALHTTPTransport {
    private let advertised: String
    private let target: String
    private let inner = MSALCurlTransport()

    init(_ emulator: MSALEmulator) {
        advertised = emulator.advertisedBaseURL.absoluteString
        target = emulator.baseURL.absoluteString
    }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let url = request.url.absoluteString
        guard url.hasPrefix(advertised + "/") else {
            throw MSALFailure(.internal, internalCode: .networkFailure, message: "the test transport refused \(url)")
        }
        var rewritten = request
        rewritten.url = URL(string: target + url.dropFirst(advertised.count))!
        return try await inner.send(rewritten, limits: limits)
    }
}

/// swift-msal's `MSALConfidentialClientApplication` and MSAL for Python 1.39's
/// `ConfidentialClientApplication`, both pointed at one local provider (the emulator, named
/// `https://login.microsoftonline.com`), sharing one cache file: an app token either one cached is
/// served by the other with 0 requests, for a secret and for a certificate (MSAL for Python's own
/// PS256 assertion, `x5t#S256` padded and `x5c`, verified by the emulator).
@Suite("MSAL for Python's ConfidentialClientApplication and swift-msal share app tokens", .serialized)
struct PythonConfidentialClientInteropTests {
    static let clientID = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
    static let secret = "interop~secret.value-1"
    static let scope = "https://graph.microsoft.com/.default"
    static let advertised = "https://login.microsoftonline.com"

    final class Setup {
        let folder: URL
        let emulator: MSALEmulator
        let certificate: (privateKeyPEM: String, certificatePEM: String)

        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cca-py-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            certificate = try MSALEmulator.Client.makeCertificate(commonName: "interop")
            try Data(certificate.privateKeyPEM.utf8).write(to: folder.appendingPathComponent("app.key"))
            try Data(certificate.certificatePEM.utf8).write(to: folder.appendingPathComponent("app.crt"))
            var configuration = MSALEmulator.Configuration.sample
            configuration.advertisedOrigin = PythonConfidentialClientInteropTests.advertised
            configuration.clients.append(
                MSALEmulator.Client(
                    clientID: PythonConfidentialClientInteropTests.clientID, displayName: "Interop daemon",
                    credentials: [.secret(PythonConfidentialClientInteropTests.secret), .certificate(pem: certificate.certificatePEM)],
                    appRoles: ["https://graph.microsoft.com": ["Application.Read.All"]]))
            emulator = try MSALEmulator(configuration: configuration)
            try await emulator.start()
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        var cachePath: String { folder.appendingPathComponent("cache.json").path }
        var grants: Int { emulator.requestCount(.token, grantType: .clientCredentials) }

        func authority(_ tenant: String) -> String { "\(PythonConfidentialClientInteropTests.advertised)/\(tenant)" }

        func swiftApplication(tenant: String, certificate useCertificate: Bool) throws -> MSALConfidentialClientApplication {
            let credential: MSALClientCredential =
                useCertificate
                ? .certificate(
                    try MSALClientCertificate(privateKeyPEM: certificate.privateKeyPEM, certificatePEM: certificate.certificatePEM))
                : .secret(PythonConfidentialClientInteropTests.secret)
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: PythonConfidentialClientInteropTests.clientID, clientCredential: credential,
                authority: try MSALAADAuthority(url: URL(string: authority(tenant))!))
            configuration.cacheConfig = MSALCacheConfig(storage: .file(path: cachePath))
            configuration.transport = AdvertisedOriginTransport(emulator)
            return try MSALConfidentialClientApplication(configuration: configuration)
        }

        /// Runs `app_token.py`; returns its results and how many token requests it sent.
        func python(
            tenant: String, certificate useCertificate: Bool, calls: Int = 1, forceFirst: Bool = false
        ) async throws -> (
            results: [[String: Any]], tokenRequests: Int
        ) {
            var spec: [String: Any] = [
                "emulator": emulator.baseURL.absoluteString, "advertised": PythonConfidentialClientInteropTests.advertised,
                "authority": authority(tenant), "client_id": PythonConfidentialClientInteropTests.clientID,
                "scopes": [PythonConfidentialClientInteropTests.scope], "cache_file": cachePath, "calls": calls,
                "force_refresh_first": forceFirst,
            ]
            if useCertificate {
                spec["private_key_file"] = folder.appendingPathComponent("app.key").path
                spec["certificate_file"] = folder.appendingPathComponent("app.crt").path
            } else {
                spec["secret"] = PythonConfidentialClientInteropTests.secret
            }
            let specURL = folder.appendingPathComponent("spec-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: spec).write(to: specURL)
            let output = try await PythonMSAL.runChecked("app_token.py", [specURL.path]).jsonObject()
            return (try #require(output["results"] as? [[String: Any]]), try #require(output["token_requests"] as? Int))
        }

        func shutdown() async { try? await emulator.shutdown() }

        /// Runs `body` with a started emulator and a fresh folder, shut down afterwards.
        static func with(_ body: (Setup) async throws -> Void) async throws {
            let setup = try await Setup()
            do {
                try await body(setup)
            } catch {
                await setup.shutdown()
                throw error
            }
            await setup.shutdown()
        }
    }

    @Test(
        "Secret: swift-msal's cached app token is MSAL for Python's cache hit (0 requests), and MSAL for Python's new token is swift-msal's",
        arguments: [MSALEmulator.Configuration.sampleContosoTenantID, "contoso.example"])
    func secretBothWays(tenant: String) async throws {
        try await Setup.with { setup in try await secretBothWays(tenant: tenant, setup) }
    }

    private func secretBothWays(tenant: String, _ setup: Setup) async throws {
        let swift = try setup.swiftApplication(tenant: tenant, certificate: false)
        let ours = try await swift.acquireTokenForClient(scopes: [Self.scope])
        #expect(ours.tokenSource == .identityProvider)
        #expect(setup.grants == 1)

        let python = try await setup.python(tenant: tenant, certificate: false, calls: 2)
        #expect(python.tokenRequests == 0, "MSAL for Python found swift-msal's token")
        for result in python.results {
            #expect(result["access_token"] as? String == ours.accessToken, "\(result)")
            #expect(result["token_source"] as? String == "cache")
        }
        #expect(setup.grants == 1)

        // MSAL for Python gets a new token (a claims challenge skips its cache) and stores it; a new
        // swift-msal application (another process would be the same) answers with it, 0 requests.
        let refreshed = try await setup.python(tenant: tenant, certificate: false, forceFirst: true)
        #expect(refreshed.tokenRequests == 1)
        let theirs = try #require(refreshed.results.first?["access_token"] as? String)
        #expect(theirs != ours.accessToken)
        #expect(setup.grants == 2)
        let reread = try await setup.swiftApplication(tenant: tenant, certificate: false).acquireTokenForClient(scopes: [Self.scope])
        #expect(reread.tokenSource == .cache)
        #expect(reread.accessToken == theirs)
        #expect(setup.grants == 2)
    }

    @Test(
        "Certificate: MSAL for Python's assertion (PS256, padded x5t#S256, x5c) passes the emulator; each library serves the other's token")
    func certificateBothWays() async throws {
        try await Setup.with { setup in try await certificateBothWays(setup) }
    }

    private func certificateBothWays(_ setup: Setup) async throws {
        let tenant = MSALEmulator.Configuration.sampleContosoTenantID
        let python = try await setup.python(tenant: tenant, certificate: true)
        #expect(python.tokenRequests == 1)
        let theirs = try #require(python.results.first?["access_token"] as? String, "\(python.results)")
        #expect(setup.grants == 1)

        let swift = try setup.swiftApplication(tenant: tenant, certificate: true)
        let reread = try await swift.acquireTokenForClient(scopes: [Self.scope])
        #expect(reread.tokenSource == .cache)
        #expect(reread.accessToken == theirs)

        let parameters = MSALClientCredentialParameters(scopes: [Self.scope])
        parameters.forceRefresh = true
        let ours = try await swift.acquireTokenForClient(with: parameters)
        #expect(ours.tokenSource == .identityProvider)
        #expect(swift.authentication.signatureCount == 1)
        #expect(setup.grants == 2)
        let back = try await setup.python(tenant: tenant, certificate: true)
        #expect(back.tokenRequests == 0)
        #expect(back.results.first?["access_token"] as? String == ours.accessToken)
    }
}
