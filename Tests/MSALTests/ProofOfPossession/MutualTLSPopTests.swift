import Foundation
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

@testable import MSAL

#if canImport(MSALAsyncHTTPClient)
import MSALAsyncHTTPClient
import NIOSSL
#endif

/// Sends the identity platform's hosts where the test runs them: `login.microsoftonline.com` to the
/// local provider over loopback HTTP, and the mTLS hosts (`mtlsauth.microsoft.com`,
/// `<region>.mtlsauth.microsoft.com`) to the TLS front before it (`Tests/Interop/tls/tls_front.py`),
/// which checks the client certificate in a real TLS handshake and forwards it to the provider.
/// Records every request; refuses any other host, so nothing leaves the machine.
final class MutualTLSRoutingTransport: MSALHTTPTransport {
    struct Sent: Sendable {
        var url: URL
        var form: [String: String]
        var certificate: String?
    }

    private let inner: any MSALHTTPTransport
    private let emulatorPort: Int
    private let frontPort: Int
    private let sent = Mutex<[Sent]>([])

    init(inner: any MSALHTTPTransport, emulatorPort: Int, frontPort: Int) {
        self.inner = inner
        self.emulatorPort = emulatorPort
        self.frontPort = frontPort
    }

    var requests: [Sent] { sent.withLock { $0 } }
    var tokenRequests: [Sent] { requests.filter { $0.url.path.hasSuffix("/oauth2/v2.0/token") } }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let host = request.url.host ?? ""
        sent.withLock {
            $0.append(
                Sent(
                    url: request.url, form: Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first }),
                    certificate: request.clientCertificate?.x5tS256))
        }
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
        components.host = "127.0.0.1"
        if host == "login.microsoftonline.com" {
            components.scheme = "http"
            components.port = emulatorPort
        } else if host == "mtlsauth.microsoft.com" || host.hasSuffix(".mtlsauth.microsoft.com") {
            components.scheme = "https"
            components.port = frontPort
        } else {
            throw MSALFailure(.internal, internalCode: .networkFailure, message: "the test transport refused \(request.url)")
        }
        var routed = request
        routed.url = components.url!
        return try await inner.send(routed, limits: limits)
    }
}

/// Microsoft Entra's mTLS proof of possession for app tokens (``MSALAuthenticationSchemeMutualTLSPop``)
/// and bearer tokens over mutual TLS (``MSALClientCredential/tlsClientCertificate(_:)``), end to
/// end: the client certificate goes through a real TLS handshake (libcurl or AsyncHTTPClient, and
/// Python's `ssl` on the other side) to the local provider, which binds the token to it.
@Suite("Mutual TLS with Microsoft Entra: mtls_pop app tokens through a TLS front and the local provider")
struct MutualTLSPopTests {
    static let tenant = MSALEmulator.Configuration.sampleContosoTenantID
    static let clientID = "6e3b9a41-2c7d-4f5e-9a1b-8c2d3e4f5a60"
    static let otherClientID = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
    static let header = "X-Test-Client-Certificate"
    static let scope = "https://graph.microsoft.com/.default"

    struct Setup {
        let pki: TLSFront.PKI
        let emulator: MSALEmulator
        let front: TLSFront
        let directory: URL

        func transport(_ inner: (any MSALHTTPTransport)? = nil) -> MutualTLSRoutingTransport {
            MutualTLSRoutingTransport(
                inner: inner ?? MSALCurlTransport(trustedCertificatesFile: pki.caCertificate), emulatorPort: emulator.port,
                frontPort: front.port)
        }

        func application(
            _ credential: MSALClientCredential, transport: MutualTLSRoutingTransport, tenant: String = MutualTLSPopTests.tenant,
            clientID: String = MutualTLSPopTests.clientID, region: MSALAzureRegion? = nil, cache: String = "cache.json"
        ) throws -> MSALConfidentialClientApplication {
            let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!)
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: clientID, clientCredential: credential, authority: authority)
            configuration.transport = transport
            configuration.azureRegion = region
            configuration.cacheConfig = MSALCacheConfig(storage: .file(path: directory.appendingPathComponent(cache).path))
            return try MSALConfidentialClientApplication(configuration: configuration)
        }

        /// The cache file's access tokens, by key.
        func cachedAccessTokens(_ cache: String = "cache.json") throws -> [String: [String: Any]] {
            let data = try Data(contentsOf: directory.appendingPathComponent(cache))
            let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return document?["AccessToken"] as? [String: [String: Any]] ?? [:]
        }
    }

    /// Runs `body` with the provider (a confidential client registered with client-a's and
    /// client-b's certificates) behind a TLS front that asks for client certificates.
    static func with(_ body: (Setup) async throws -> Void) async throws {
        let pki = try await TLSFront.PKI.make()
        var configuration = MSALEmulator.Configuration.sample
        configuration.advertisedOrigin = "https://login.microsoftonline.com"
        configuration.clientCertificateHeader = header
        let certificates = try ["client-a", "client-b"].map { try String(contentsOfFile: pki.path("\($0).pem"), encoding: .utf8) }
        configuration.clients += [
            MSALEmulator.Client(clientID: clientID, displayName: "mTLS daemon", credentials: certificates.map { .certificate(pem: $0) }),
            MSALEmulator.Client(clientID: otherClientID, displayName: "Secret daemon", credentials: [.secret("a-secret-value")]),
        ]
        let emulator = try MSALEmulator(configuration: configuration)
        try await emulator.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-mtls-pop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let front = try await TLSFront.start(pki: pki, mode: .upstream(port: emulator.port, forwardHeader: header))
            defer { try? FileManager.default.removeItem(at: directory) }
            do {
                try await body(Setup(pki: pki, emulator: emulator, front: front, directory: directory))
            } catch {
                await front.stop()
                try await emulator.shutdown()
                throw error
            }
            await front.stop()
            try await emulator.shutdown()
        } catch {
            try? await emulator.shutdown()
            throw error
        }
    }

    static func mtlsPop(forceRefresh: Bool = false) -> MSALClientCredentialParameters {
        let parameters = MSALClientCredentialParameters(scopes: [scope])
        parameters.authenticationScheme = MSALAuthenticationSchemeMutualTLSPop()
        parameters.forceRefresh = forceRefresh
        return parameters
    }

    static func claims(_ token: String) throws -> JWT { try JWT.decodeUnverified(token) }

    @Test(
        "An mtls_pop app token with a certificate credential: sent to mtlsauth.microsoft.com over TLS with the certificate, token_type=mtls_pop and no assertion; bound to it (cnf x5t#S256); cached apart (…-mtls_pop, kid) and answered from the cache; a bearer request still signs an assertion at the global host"
    )
    func appToken() async throws {
        try await Self.with { setup in
            let certificate = try setup.pki.clientCertificate("client-a")
            let transport = setup.transport()
            let app = try setup.application(.certificate(certificate), transport: transport)

            let first = try await app.acquireTokenForClient(with: Self.mtlsPop())
            #expect(first.tokenSource == .identityProvider && first.authenticationScheme == "mtls_pop")
            #expect(first.authorizationHeader == "mtls_pop \(first.accessToken)")
            #expect(try Self.claims(first.accessToken).claims.root["cnf"]?["x5t#S256"]?.string == certificate.x5tS256)
            let sent = try #require(transport.tokenRequests.last)
            #expect(sent.url.absoluteString == "https://mtlsauth.microsoft.com/\(Self.tenant)/oauth2/v2.0/token")
            #expect(sent.certificate == certificate.x5tS256)
            #expect(sent.form["token_type"] == "mtls_pop" && sent.form["grant_type"] == "client_credentials")
            #expect(sent.form["client_assertion"] == nil && sent.form["client_assertion_type"] == nil && sent.form["client_secret"] == nil)

            let cached = try setup.cachedAccessTokens()
            let key = try #require(cached.keys.first { $0.hasSuffix("-mtls_pop") })
            #expect(key.contains("-accesstoken_with_authscheme-\(Self.clientID)-"))
            #expect(cached[key]?["token_type"] as? String == "mtls_pop")
            #expect(cached[key]?["kid"] as? String == certificate.x5tS256 || cached[key]?["key_id"] as? String == certificate.x5tS256)

            let count = transport.tokenRequests.count
            let second = try await app.acquireTokenForClient(with: Self.mtlsPop())
            #expect(second.tokenSource == .cache && second.accessToken == first.accessToken && second.authenticationScheme == "mtls_pop")
            #expect(transport.tokenRequests.count == count)

            // A bearer request: an assertion at the global token endpoint, a token bound to nothing.
            let bearer = try await app.acquireTokenForClient(scopes: [Self.scope])
            #expect(bearer.authenticationScheme == "Bearer" && bearer.tokenSource == .identityProvider)
            #expect(try Self.claims(bearer.accessToken).claims.root["cnf"] == nil)
            let bearerRequest = try #require(transport.tokenRequests.last)
            #expect(bearerRequest.url.host == "login.microsoftonline.com" && bearerRequest.certificate == nil)
            #expect(bearerRequest.form["client_assertion"] != nil && bearerRequest.form["token_type"] == nil)
            #expect(try await app.acquireTokenForClient(with: Self.mtlsPop()).accessToken == first.accessToken)
        }
    }

    @Test(
        "The provider's resource takes the mtls_pop token only over TLS with its certificate: accepted with it (as mtls_pop and as Bearer), refused without a certificate or with another one"
    )
    func resource() async throws {
        try await Self.with { setup in
            let (a, b) = (try setup.pki.clientCertificate("client-a"), try setup.pki.clientCertificate("client-b"))
            let result = try await setup.application(.certificate(a), transport: setup.transport()).acquireTokenForClient(
                with: Self.mtlsPop())
            let transport = MSALCurlTransport(trustedCertificatesFile: setup.pki.caCertificate)
            func call(_ header: String, certificate: MSALClientCertificate?) async throws -> MSALHTTPResponse {
                var request = MSALHTTPRequest(method: .get, url: setup.front.url("/resource/me"), headers: ["Authorization": header])
                request.clientCertificate = certificate
                return try await transport.send(request, limits: .default)
            }
            let accepted = try await call(result.authorizationHeader, certificate: a)
            #expect(accepted.statusCode == 200, "\(String(decoding: accepted.body, as: UTF8.self))")
            #expect(try await call("Bearer \(result.accessToken)", certificate: a).statusCode == 200)
            for certificate in [nil, b] {
                let refused = try await call(result.authorizationHeader, certificate: certificate)
                #expect(refused.statusCode == 401)
                #expect(String(decoding: refused.body, as: UTF8.self).contains("client certificate"))
            }
            // A forged forwarding header from the client is replaced by the front's own.
            var forged = MSALHTTPRequest(
                method: .get, url: setup.front.url("/resource/me"),
                headers: ["Authorization": result.authorizationHeader, Self.header: Data(a.certificate.chain[0]).base64EncodedString()])
            forged.clientCertificate = b
            #expect(try await transport.send(forged, limits: .default).statusCode == 401)
        }
    }

    @Test(
        "MSAL for Python 1.39 on the same cache file: with only the mtls_pop app token cached, its bearer request hands that token out (token_type mtls_pop, no request: it does not filter app tokens by token_type, as with a cache MSAL.NET writes); with a bearer token cached too it answers the bearer one; it writes the mtls_pop entry back unchanged, and swift-msal still answers both from the cache"
    )
    func pythonSharesTheCache() async throws {
        try await Self.with { setup in
            let certificate = try setup.pki.clientCertificate("client-a")
            let transport = setup.transport()
            let app = try setup.application(.certificate(certificate), transport: transport)
            let bound = try await app.acquireTokenForClient(with: Self.mtlsPop())
            let before = try setup.cachedAccessTokens()
            let key = try #require(before.keys.first { $0.hasSuffix("-mtls_pop") })

            func python() async throws -> (requests: Int?, result: [String: Any]) {
                let spec: [String: Any] = [
                    "emulator": setup.emulator.baseURL.absoluteString, "advertised": "https://login.microsoftonline.com",
                    "authority": "https://login.microsoftonline.com/\(Self.tenant)", "client_id": Self.clientID, "scopes": [Self.scope],
                    "cache_file": setup.directory.appendingPathComponent("cache.json").path, "calls": 1,
                    "private_key_file": setup.pki.path("client-a.key"), "certificate_file": setup.pki.path("client-a.pem"),
                ]
                let specURL = setup.directory.appendingPathComponent("spec-\(UUID().uuidString).json")
                try JSONSerialization.data(withJSONObject: spec).write(to: specURL)
                let output = try await PythonMSAL.runChecked("app_token.py", [specURL.path]).jsonObject()
                return (output["token_requests"] as? Int, try #require((output["results"] as? [[String: Any]])?.first))
            }
            let only = try await python()
            #expect(only.requests == 0 && only.result["access_token"] as? String == bound.accessToken)
            #expect(only.result["token_type"] as? String == "mtls_pop")

            let bearer = try await app.acquireTokenForClient(scopes: [Self.scope])
            #expect(bearer.tokenSource == .identityProvider)
            let both = try await python()
            #expect(both.requests == 0 && both.result["access_token"] as? String == bearer.accessToken, "\(both.result)")
            #expect(both.result["token_type"] as? String == "Bearer")

            let after = try setup.cachedAccessTokens()
            #expect(after[key]?["secret"] as? String == bound.accessToken)
            #expect(after[key]?["token_type"] as? String == "mtls_pop")
            #expect(after[key]?["kid"] as? String == before[key]?["kid"] as? String)
            let requests = transport.tokenRequests.count
            #expect(try await app.acquireTokenForClient(with: Self.mtlsPop()).accessToken == bound.accessToken)
            #expect(try await app.acquireTokenForClient(scopes: [Self.scope]).accessToken == bearer.accessToken)
            #expect(transport.tokenRequests.count == requests)
        }
    }

    @Test(
        "Another certificate never gets the token bound to the first: a new request and a token bound to it, which replaces the first (one key per scheme and scopes, as MSAL.NET keys it)"
    )
    func certificateRotation() async throws {
        try await Self.with { setup in
            let (a, b) = (try setup.pki.clientCertificate("client-a"), try setup.pki.clientCertificate("client-b"))
            let transport = setup.transport()
            let first = try await setup.application(.certificate(a), transport: transport).acquireTokenForClient(with: Self.mtlsPop())
            let rotated = try await setup.application(.tlsClientCertificate(b), transport: transport).acquireTokenForClient(
                with: Self.mtlsPop())
            #expect(rotated.tokenSource == .identityProvider && rotated.accessToken != first.accessToken)
            #expect(try Self.claims(rotated.accessToken).claims.root["cnf"]?["x5t#S256"]?.string == b.x5tS256)
            #expect(transport.tokenRequests.last?.certificate == b.x5tS256)
            // One entry per scheme and scopes, as MSAL.NET keys it (the kid is not in the key): the
            // new token replaced the first, so the first certificate asks again, never taking b's.
            let keys = try setup.cachedAccessTokens().keys.filter { $0.hasSuffix("-mtls_pop") }
            #expect(keys.count == 1)
            let again = try await setup.application(.certificate(a), transport: transport).acquireTokenForClient(with: Self.mtlsPop())
            #expect(again.tokenSource == .identityProvider && again.accessToken != rotated.accessToken)
            #expect(try Self.claims(again.accessToken).claims.root["cnf"]?["x5t#S256"]?.string == a.x5tS256)
        }
    }

    @Test("A region: the request goes to <region>.mtlsauth.microsoft.com")
    func regional() async throws {
        try await Self.with { setup in
            let transport = setup.transport()
            let app = try setup.application(
                .certificate(try setup.pki.clientCertificate("client-a")), transport: transport, region: .named("westus2"))
            _ = try await app.acquireTokenForClient(with: Self.mtlsPop())
            #expect(transport.tokenRequests.last?.url.host == "westus2.mtlsauth.microsoft.com")
        }
    }

    @Test(
        "tlsClientCertificate without mtls_pop: a bearer app token over mutual TLS, at the mTLS host, bound to the certificate, with no assertion"
    )
    func bearerOverMutualTLS() async throws {
        try await Self.with { setup in
            let certificate = try setup.pki.clientCertificate("client-a")
            let transport = setup.transport()
            let result = try await setup.application(.tlsClientCertificate(certificate), transport: transport).acquireTokenForClient(
                scopes: [Self.scope])
            #expect(result.authenticationScheme == "Bearer")
            #expect(try Self.claims(result.accessToken).claims.root["cnf"]?["x5t#S256"]?.string == certificate.x5tS256)
            let sent = try #require(transport.tokenRequests.last)
            #expect(sent.url.host == "mtlsauth.microsoft.com" && sent.certificate == certificate.x5tS256)
            #expect(sent.form["client_assertion"] == nil && sent.form["token_type"] == nil)
        }
    }

    @Test(
        "Refused before any token request: mtls_pop with a secret, with a multi-tenant authority,; an unregistered certificate is invalid_client from the provider, nothing cached"
    )
    func refusals() async throws {
        try await Self.with { setup in
            let transport = setup.transport()
            let secret = try setup.application(.secret("a-secret-value"), transport: transport, clientID: Self.otherClientID)
            let noCertificate = await expectMSALError { try await secret.acquireTokenForClient(with: Self.mtlsPop()) }
            #expect(noCertificate?.internalCode == .internalErrorInvalidParameter)
            #expect(noCertificate?.message.contains("certificate credential") == true)
            let common = try setup.application(
                .certificate(try setup.pki.clientCertificate("client-a")), transport: transport, tenant: "organizations")
            let multiTenant = await expectMSALError { try await common.acquireTokenForClient(with: Self.mtlsPop()) }
            #expect(multiTenant?.internalCode == .internalErrorInvalidParameter)
            #expect(transport.tokenRequests.isEmpty)

            // Presented in TLS and trusted by the front, but not registered for the application.
            let stranger = try setup.application(
                .certificate(try setup.pki.clientCertificate("client-self")), transport: transport, cache: "stranger.json")
            let refused = await expectMSALError { try await stranger.acquireTokenForClient(with: Self.mtlsPop()) }
            #expect(refused?.oauthError == "invalid_client" && refused?.httpStatusCode == 401)
            #expect(transport.tokenRequests.count == 1 && transport.tokenRequests.last?.url.host == "mtlsauth.microsoft.com")
            let file = setup.directory.appendingPathComponent("stranger.json").path
            if FileManager.default.fileExists(atPath: file) { #expect(try setup.cachedAccessTokens("stranger.json").isEmpty) }
        }
    }

    #if canImport(MSALAsyncHTTPClient)
    @Test("The same mtls_pop app token through MSALAsyncHTTPClientTransport: the certificate in SwiftNIO SSL's handshake")
    func asyncHTTPClient() async throws {
        try await Self.with { setup in
            let certificate = try setup.pki.clientCertificate("client-b")
            let client = MSALAsyncHTTPClientTransport()
            client.clientCertificateTLSConfiguration.trustRoots = .file(setup.pki.caCertificate)
            let transport = setup.transport(client)
            let result = try await setup.application(.certificate(certificate), transport: transport).acquireTokenForClient(
                with: Self.mtlsPop())
            #expect(result.authenticationScheme == "mtls_pop")
            #expect(try Self.claims(result.accessToken).claims.root["cnf"]?["x5t#S256"]?.string == certificate.x5tS256)
        }
    }
    #endif
}
