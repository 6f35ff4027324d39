import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

/// `MSALConfidentialClientApplication.acquireTokenForClient` against the emulator over loopback
/// HTTP with the default transport: secrets, certificates, the cache, concurrency, `refresh_in`,
/// and the errors of a refused credential or scope.
@Suite("Confidential client: app tokens from the emulator")
struct ConfidentialClientTests {
    typealias Grant = ClientCredentialsGrantTests

    static let graphDefault = "https://graph.microsoft.com/.default"

    static func application(
        _ harness: EmulatorHarness, clientID: String = Grant.secretClientID, credential: MSALClientCredential = .secret(Grant.secret),
        tenant: String = EmulatorHarness.contoso, cache: MSALCacheConfig = .memory
    ) throws -> MSALConfidentialClientApplication {
        let configuration = MSALConfidentialClientApplicationConfig(
            clientId: clientID, clientCredential: credential, authority: try harness.authority(tenant))
        configuration.cacheConfig = cache
        configuration.clock = harness.clock
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    static func certificateCredential() throws -> MSALClientCredential {
        .certificate(
            try MSALClientCertificate(privateKeyPEM: Grant.material.privateKeyPEM, certificatePEM: Grant.material.certificatePEM))
    }

    static func grants(_ harness: EmulatorHarness) -> Int {
        harness.emulator.requestCount(.token, grantType: .clientCredentials)
    }

    static func msalError(_ body: () async throws -> Void) async -> MSALFailure? {
        do {
            try await body()
            return nil
        } catch {
            return error as? MSALFailure
        }
    }

    @Test("A secret: the token endpoint once, then the cache with 0 requests; forceRefresh asks again; the result names no user")
    func secretThenCache() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness)
            let first = try await app.acquireTokenForClient(scopes: [Self.graphDefault])
            #expect(first.tokenSource == .identityProvider)
            #expect(first.scopes == [Self.graphDefault])
            #expect(first.idToken == nil)
            #expect(first.account.identifier == nil)
            #expect(first.account.username == nil)
            #expect(first.tenantProfile.tenantId == EmulatorHarness.contoso)
            #expect(first.authorizationHeader == "Bearer \(first.accessToken)")
            let claims = try JWT.decodeUnverified(first.accessToken)
            #expect(claims.stringClaim("idtyp") == "app")
            #expect(claims.stringListClaim("roles") == ["User.Read.All", "Mail.Send"])
            #expect(Self.grants(harness) == 1)

            let second = try await app.acquireTokenForClient(scopes: [Self.graphDefault])
            #expect(second.tokenSource == .cache)
            #expect(second.accessToken == first.accessToken)
            #expect(second.expiresOn == first.expiresOn)
            #expect(Self.grants(harness) == 1)

            let parameters = MSALClientCredentialParameters(scopes: [Self.graphDefault])
            parameters.forceRefresh = true
            let forced = try await app.acquireTokenForClient(with: parameters)
            #expect(forced.tokenSource == .identityProvider)
            #expect(forced.accessToken != first.accessToken)
            #expect(Self.grants(harness) == 2)
            // The forced token replaced the cached one.
            #expect(try await app.acquireTokenForClient(scopes: [Self.graphDefault]).accessToken == forced.accessToken)
            #expect(Self.grants(harness) == 2)
        }
    }

    @Test("Per tenant and per resource: each its own token, each then from the cache")
    func perTenantAndResource() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness)
            let contoso = try await app.acquireTokenForClient(scopes: [Self.graphDefault])
            let fabrikamParameters = MSALClientCredentialParameters(scopes: [Self.graphDefault])
            fabrikamParameters.authority = try harness.authority(EmulatorHarness.fabrikam)
            let fabrikam = try await app.acquireTokenForClient(with: fabrikamParameters)
            let backend = try await app.acquireTokenForClient(scopes: ["api://backend/.default"])
            #expect(try JWT.decodeUnverified(fabrikam.accessToken).stringClaim("tid") == EmulatorHarness.fabrikam)
            #expect(try JWT.decodeUnverified(backend.accessToken).stringListClaim("aud") == ["api://backend"])
            #expect(Set([contoso.accessToken, fabrikam.accessToken, backend.accessToken]).count == 3)
            #expect(Self.grants(harness) == 3)
            #expect(try await app.acquireTokenForClient(with: fabrikamParameters).accessToken == fabrikam.accessToken)
            #expect(try await app.acquireTokenForClient(scopes: ["api://backend/.default"]).accessToken == backend.accessToken)
            #expect(try await app.acquireTokenForClient(scopes: [Self.graphDefault]).accessToken == contoso.accessToken)
            #expect(Self.grants(harness) == 3)
        }
    }

    @Test("A certificate: one signature serves every request for 540 s, then a new one; the emulator verified each")
    func certificateSignsOncePerLifetime() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness, clientID: Grant.certificateClientID, credential: try Self.certificateCredential())
            let parameters = MSALClientCredentialParameters(scopes: [Self.graphDefault])
            parameters.forceRefresh = true
            for _ in 0..<5 {
                let result = try await app.acquireTokenForClient(with: parameters)
                #expect(try JWT.decodeUnverified(result.accessToken).stringClaim("azpacr") == "2")
            }
            #expect(Self.grants(harness) == 5)
            #expect(app.authentication.signatureCount == 1)
            harness.emulator.advanceClock(by: 541)
            _ = try await app.acquireTokenForClient(with: parameters)
            #expect(app.authentication.signatureCount == 2)
            #expect(Self.grants(harness) == 6)
        }
    }

    @Test("Concurrent requests with an empty cache share one token request")
    func concurrentRequestsShareOne() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness, clientID: Grant.certificateClientID, credential: try Self.certificateCredential())
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<16 {
                    group.addTask { try await app.acquireTokenForClient(scopes: [Self.graphDefault]).accessToken }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(Self.grants(harness) == 1)
            #expect(app.authentication.signatureCount == 1)
        }
    }

    @Test("Expiry and refresh_in: a token near expiry is replaced; past refresh_on it is replaced, or kept while the service fails")
    func expiryAndRefreshIn() async throws {
        var configuration = Grant.configuration
        configuration.lifetimes.appTokenRefreshIn = 1200
        try await EmulatorHarness.with(configuration) { harness in
            let app = try Self.application(harness)
            let first = try await app.acquireTokenForClient(scopes: [Self.graphDefault])
            let refreshOn = try #require(first.refreshOn)
            #expect(abs(refreshOn.timeIntervalSince(harness.emulator.now) - 1200) < 5)
            harness.emulator.advanceClock(by: 1201)
            // Past refresh_on, the service failing: the still-valid token comes back.
            let fault = harness.emulator.inject(MSALEmulator.Fault(.serverError(status: 503), grantType: .clientCredentials))
            let kept = try await app.acquireTokenForClient(scopes: [Self.graphDefault])
            #expect(kept.accessToken == first.accessToken)
            #expect(kept.tokenSource == .cache)
            harness.emulator.removeFault(fault)
            // After the throttling window a 5xx opens (a retry is not sent at once), the service answers again.
            harness.emulator.advanceClock(by: 300)
            let replaced = try await app.acquireTokenForClient(scopes: [Self.graphDefault])
            #expect(replaced.tokenSource == .identityProvider)
            #expect(replaced.accessToken != first.accessToken)
            // Within the 5-minute expiry buffer: replaced too.
            let before = Self.grants(harness)
            harness.emulator.advanceClock(by: 3600 - 299)  // from the replaced token's issue
            #expect(try await app.acquireTokenForClient(scopes: [Self.graphDefault]).tokenSource == .identityProvider)
            #expect(Self.grants(harness) == before + 1)
        }
    }

    @Test("A claims challenge skips the cache and sends claims with the client capabilities")
    func claimsSkipTheCache() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: Grant.secretClientID, clientCredential: .secret(Grant.secret),
                authority: try harness.authority(EmulatorHarness.contoso))
            configuration.cacheConfig = .memory
            configuration.clock = harness.clock
            configuration.clientApplicationCapabilities = ["CP1"]
            let transport = FormRecordingTransport()
            configuration.transport = transport
            let app = try MSALConfidentialClientApplication(configuration: configuration)
            _ = try await app.acquireTokenForClient(scopes: [Self.graphDefault])
            let parameters = MSALClientCredentialParameters(scopes: [Self.graphDefault])
            parameters.claimsRequest = try MSALClaimsRequest(jsonString: #"{"access_token":{"nbf":{"essential":true,"value":"1"}}}"#)
            let challenged = try await app.acquireTokenForClient(with: parameters)
            #expect(challenged.tokenSource == .identityProvider)
            #expect(Self.grants(harness) == 2)
            let forms = transport.forms
            #expect(forms.count == 2)
            #expect(forms.first?.contains { $0.name == "claims" && $0.value.contains("CP1") } == true, "capabilities alone")
            let claims = try #require(forms.last?.first { $0.name == "claims" }?.value)
            #expect(claims.contains("\"nbf\"") && claims.contains("CP1"))
            #expect(forms.last?.first { $0.name == "grant_type" }?.value == "client_credentials")
            #expect(forms.last?.first { $0.name == "client_secret" }?.value == Grant.secret)
        }
    }

    @Test(
        "Refused: a wrong secret, a public client, an unregistered certificate, a scope without /.default; typed, correlated, nothing cached"
    )
    func refusals() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let stranger = try MSALEmulator.Client.makeCertificate(commonName: "stranger")
            let cases: [(String, MSALConfidentialClientApplication, [String], MSALInternalError)] = [
                (
                    "wrong secret", try Self.application(harness, credential: .secret("wrong")), [Self.graphDefault],
                    .internalErrorInvalidClient
                ),
                (
                    "public client", try Self.application(harness, clientID: EmulatorHarness.clientID), [Self.graphDefault],
                    .internalErrorInvalidClient
                ),
                (
                    "unregistered certificate",
                    try Self.application(
                        harness, clientID: Grant.certificateClientID,
                        credential: .certificate(
                            try MSALClientCertificate(privateKeyPEM: stranger.privateKeyPEM, certificatePEM: stranger.certificatePEM))),
                    [Self.graphDefault], .internalErrorInvalidClient
                ),
                ("delegated scope", try Self.application(harness), ["User.Read"], .internalErrorInvalidScope),
            ]
            for (name, app, scopes, internalCode) in cases {
                let parameters = MSALClientCredentialParameters(scopes: scopes)
                let correlationID = UUID()
                parameters.correlationId = correlationID
                let error = await Self.msalError { _ = try await app.acquireTokenForClient(with: parameters) }
                #expect(error?.code == .internal, "\(name)")
                #expect(error?.internalCode == internalCode, "\(name): \(String(describing: error))")
                #expect(error?.correlationID == correlationID, "\(name)")
                #expect(error?.oauthError != nil, "\(name)")
                let cached = try await app.cache.read(clientID: "") { $0.document[.accessToken].isEmpty }
                #expect(cached, "\(name): nothing cached")
            }
            let empty = await Self.msalError { _ = try await Self.application(harness).acquireTokenForClient(scopes: [" "]) }
            #expect(empty?.internalCode == .internalErrorInvalidParameter)
        }
    }

    @Test("The file cache holds the app token as MSAL for Python writes it, and a second application answers from it")
    func fileCacheShape() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-cca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.json").path
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let cache = MSALCacheConfig(storage: .file(path: path))
            let result = try await Self.application(harness, cache: cache).acquireTokenForClient(scopes: [Self.graphDefault])
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let accessTokens = try #require(document["AccessToken"] as? [String: [String: Any]])
            #expect(accessTokens.count == 1)
            let (key, entry) = try #require(accessTokens.first)
            let host = harness.emulator.baseURL.host! + ":" + String(harness.emulator.baseURL.port!)
            #expect(key == "-\(host)-accesstoken-\(Grant.secretClientID)-\(EmulatorHarness.contoso)-\(Self.graphDefault)")
            #expect(entry["home_account_id"] is NSNull)
            #expect(entry["environment"] as? String == host)
            #expect(entry["realm"] as? String == EmulatorHarness.contoso)
            #expect(entry["credential_type"] as? String == "AccessToken")
            #expect(entry["target"] as? String == Self.graphDefault)
            #expect(entry["secret"] as? String == result.accessToken)
            #expect(entry["token_type"] as? String == "Bearer")
            for field in ["cached_at", "expires_on", "extended_expires_on"] { #expect(entry[field] is String, "\(field)") }
            #expect((document["AppMetadata"] as? [String: Any])?.keys.first == "appmetadata-\(host)-\(Grant.secretClientID)")
            for section in ["Account", "IdToken", "RefreshToken"] {
                #expect((document[section] as? [String: Any])?.isEmpty ?? true, "\(section)")
            }
            // Another instance (another process would do the same) answers from the file.
            let other = try Self.application(harness, cache: cache)
            #expect(try await other.acquireTokenForClient(scopes: [Self.graphDefault]).tokenSource == .cache)
            #expect(Self.grants(harness) == 1)
            // A public client sharing the file lists no account for an app token.
            let publicConfiguration = MSALPublicClientApplicationConfig(
                clientId: Grant.secretClientID, redirectUri: nil, authority: try harness.authority(EmulatorHarness.contoso))
            publicConfiguration.cacheConfig = cache
            #expect(try MSALPublicClientApplication(configuration: publicConfiguration).allAccounts().isEmpty)
        }
    }

    @Test("The completion-block twin delivers the same result")
    func completionBlock() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness)
            let token: String = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: [Self.graphDefault])) { result, error in
                    if let result {
                        continuation.resume(returning: result.accessToken)
                    } else {
                        continuation.resume(
                            throwing: error
                                ?? MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "no result, no error"))
                    }
                }
            }
            #expect(try await app.acquireTokenForClient(scopes: [Self.graphDefault]).accessToken == token)
        }
    }
}

/// The default transport, keeping the form of every token request it sends.
final class FormRecordingTransport: MSALHTTPTransport {
    private let inner = MSALCurlTransport()
    private let recorded = Mutex<[[URLQueryItem]]>([])

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        if request.url.path.hasSuffix("/token"), let body = request.body {
            var components = URLComponents()
            components.percentEncodedQuery = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "+", with: "%20")
            recorded.withLock { $0.append(components.queryItems ?? []) }
        }
        return try await inner.send(request, limits: limits)
    }

    /// The token request forms, in order; each a list of (name, value).
    var forms: [[(name: String, value: String)]] {
        recorded.withLock { $0 }.map { items in items.map { ($0.name, $0.value ?? "") } }
    }
}
