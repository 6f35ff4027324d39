import Foundation
import MSAL
import MSALSupport
import Testing

/// The confidential client's client-credentials grant against real OpenID providers nobody here
/// wrote: a client secret at glewlwyd and Django OAuth Toolkit, and an RFC 7523 `private_key_jwt`
/// assertion signed with a certificate's key at glewlwyd (DOT does not implement it). Each checks
/// the provider's answer, the cache (a hit sends nothing, a new application reads the file), a
/// forced refresh, and the provider's refusals as typed errors with nothing cached.
@Suite("Confidential client against real OpenID providers")
struct ProviderClientCredentialsTests {
    /// A confidential client the launcher registered, from its JSON line's `confidential_clients`.
    struct Client {
        let clientID: String
        let scopes: [String]
        let secret: String?
        let privateKeyPEM: String?
        let certificatePEM: String?

        init(_ provider: LocalOIDCProvider, _ name: String) throws {
            guard let clients = provider.summary["confidential_clients"] as? [String: Any],
                let client = clients[name] as? [String: Any], let clientID = client["client_id"] as? String,
                let scopes = client["scopes"] as? [String], !scopes.isEmpty
            else {
                throw LocalOIDCProvider.Failure(
                    "\(provider.kind): the launcher registered no \(name) confidential client: \(provider.summary)")
            }
            self.clientID = clientID
            self.scopes = scopes
            secret = client["client_secret"] as? String
            privateKeyPEM = client["private_key_pem"] as? String
            certificatePEM = client["certificate_pem"] as? String
        }
    }

    static func notAllowedScopes(_ provider: LocalOIDCProvider) throws -> [String] {
        guard let clients = provider.summary["confidential_clients"] as? [String: Any],
            let scopes = clients["not_allowed_scopes"] as? [String], !scopes.isEmpty
        else { throw LocalOIDCProvider.Failure("\(provider.kind): no not_allowed_scopes in \(provider.summary)") }
        return scopes
    }

    static func application(
        _ provider: LocalOIDCProvider, clientID: String, credential: MSALClientCredential, cachePath: String
    ) throws -> MSALConfidentialClientApplication {
        let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!, options: [.allowInsecureLoopback])
        let configuration = MSALConfidentialClientApplicationConfig(clientId: clientID, clientCredential: credential, authority: authority)
        configuration.cacheConfig = MSALCacheConfig(storage: .file(path: cachePath))
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    static func forced(_ scopes: [String]) -> MSALClientCredentialParameters {
        let parameters = MSALClientCredentialParameters(scopes: scopes)
        parameters.forceRefresh = true
        return parameters
    }

    /// Runs `body` and returns the `MSALFailure` it throws; records an issue otherwise.
    static func refusal(_ body: () async throws -> MSALResult, sourceLocation: SourceLocation = #_sourceLocation) async -> MSALFailure? {
        do {
            let result = try await body()
            Issue.record("expected an MSALFailure, got a token from \(result.tokenSource)", sourceLocation: sourceLocation)
        } catch let error as MSALFailure {
            return error
        } catch {
            Issue.record("expected an MSALFailure, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test(
        "DPoP app token from glewlwyd (client secret): bound to the app's key (cnf.jkt), cached apart from the bearer token and answered from the cache with 0 requests; our validator takes it only with a proof; a forced refresh sends a new proof"
    )
    func secretDPoP() async throws {
        try await LocalOIDCProvider.with(.glewlwyd) { provider, directory in
            let client = try Client(provider, "secret")
            let secret = try #require(client.secret)
            let cachePath = directory.appendingPathComponent("cache.json").path
            let app = try Self.application(provider, clientID: client.clientID, credential: .secret(secret), cachePath: cachePath)
            func dpop(forceRefresh: Bool = false) -> MSALClientCredentialParameters {
                let parameters = MSALClientCredentialParameters(scopes: client.scopes)
                parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
                parameters.forceRefresh = forceRefresh
                return parameters
            }
            try await provider.resetStats()
            let first = try await app.acquireTokenForClient(with: dpop())
            #expect(first.tokenSource == .identityProvider)
            #expect(first.authenticationScheme == "DPoP" && first.authorizationHeader == "DPoP \(first.accessToken)")
            let api = URL(string: "https://api.example.test/orders")!
            let proof = try first.dpopProof(httpMethod: .GET, requestUrl: api)
            let jwk = try #require(try OIDCProviderLibraryTests.jwtPart(proof, segment: 0)["jwk"] as? [String: Any])
            let thumbprint = try JSONWebKey(json: JSONSerialization.data(withJSONObject: jwk)).thumbprint()
            let claims = try OIDCProviderLibraryTests.jwtPart(first.accessToken, segment: 1)
            #expect((claims["cnf"] as? [String: Any])?["jkt"] as? String == thumbprint, "glewlwyd's claims: \(claims)")

            // Our validator: with the proof only.
            let validator = try MSALAccessTokenValidator(
                authority: try MSALOIDCAuthority(url: URL(string: provider.issuer)!, options: [.allowInsecureLoopback]),
                audiences: [try #require(claims["aud"] as? String)])
            let validated = try await validator.validate(
                authorizationHeader: first.authorizationHeader, dpopProof: proof, httpMethod: "GET", requestURL: api)
            #expect(validated.dpopKeyThumbprint == thumbprint && validated.clientID == client.clientID)
            let asBearer = await #expect(throws: MSALFailure.self) {
                try await validator.validate(authorizationHeader: "Bearer \(first.accessToken)")
            }
            #expect(asBearer?.internalCode == .accessTokenSchemeMismatch)

            // From the cache with nothing sent; a bearer request is another token.
            let hit = try await app.acquireTokenForClient(with: dpop())
            #expect(hit.tokenSource == .cache && hit.accessToken == first.accessToken && hit.authenticationScheme == "DPoP")
            #expect(try await provider.tokenRequestCount() == 1)
            let bearer = try await app.acquireTokenForClient(scopes: client.scopes)
            #expect(bearer.tokenSource == .identityProvider && bearer.accessToken != first.accessToken)
            #expect((try OIDCProviderLibraryTests.jwtPart(bearer.accessToken, segment: 1)["cnf"]) == nil, "a bearer app token is unbound")
            #expect(try await provider.tokenRequestCount() == 2)
            #expect(try await app.acquireTokenForClient(with: dpop()).accessToken == first.accessToken)

            let refreshed = try await app.acquireTokenForClient(with: dpop(forceRefresh: true))
            #expect(refreshed.tokenSource == .identityProvider && refreshed.accessToken != first.accessToken)
            let refreshedClaims = try OIDCProviderLibraryTests.jwtPart(refreshed.accessToken, segment: 1)
            #expect((refreshedClaims["cnf"] as? [String: Any])?["jkt"] as? String == thumbprint)
            #expect(try await provider.tokenRequestCount() == 3)
        }
    }

    @Test(
        "A client secret: an app token from the provider, then from the cache with 0 requests (also in a new application); a forced refresh; a wrong secret and a scope not granted are typed errors, nothing cached",
        arguments: LocalOIDCProvider.Kind.allCases)
    func secret(kind: LocalOIDCProvider.Kind) async throws {
        try await LocalOIDCProvider.with(kind) { provider, directory in
            let client = try Client(provider, "secret")
            let secret = try #require(client.secret)
            let cachePath = directory.appendingPathComponent("cache.json").path
            let app = try Self.application(provider, clientID: client.clientID, credential: .secret(secret), cachePath: cachePath)
            try await provider.resetStats()

            let first = try await app.acquireTokenForClient(scopes: client.scopes)
            #expect(first.tokenSource == .identityProvider)
            #expect(!first.accessToken.isEmpty)
            #expect(first.idToken == nil && first.account.identifier == nil, "an app token has no user")
            #expect(Set(client.scopes).isSubset(of: Set(first.scopes)), "\(first.scopes)")
            #expect(try #require(first.expiresOn) > Date().addingTimeInterval(600))
            #expect(try await provider.tokenRequestCount() == 1)

            let requests = try await provider.requestCount()
            let hit = try await app.acquireTokenForClient(scopes: client.scopes)
            #expect(hit.tokenSource == .cache && hit.accessToken == first.accessToken)
            #expect(try await provider.requestCount() == requests, "a cache hit sends nothing")

            // Another application (another process, a restart) on the same file: no token request.
            let again = try Self.application(provider, clientID: client.clientID, credential: .secret(secret), cachePath: cachePath)
            let read = try await again.acquireTokenForClient(scopes: client.scopes)
            #expect(read.tokenSource == .cache && read.accessToken == first.accessToken)
            #expect(try await provider.tokenRequestCount() == 1)

            let refreshed = try await app.acquireTokenForClient(with: Self.forced(client.scopes))
            #expect(refreshed.tokenSource == .identityProvider)
            #expect(refreshed.accessToken != first.accessToken)
            #expect(try await provider.tokenRequestCount() == 2)
            #expect(try await app.acquireTokenForClient(scopes: client.scopes).accessToken == refreshed.accessToken)

            // Refusals: typed, with the request's correlation id; the cache file keeps its bytes.
            let before = try Data(contentsOf: URL(fileURLWithPath: cachePath))
            let wrong = try Self.application(provider, clientID: client.clientID, credential: .secret(secret + "x"), cachePath: cachePath)
            let wrongParameters = Self.forced(client.scopes)
            wrongParameters.correlationId = UUID()
            let refused = await Self.refusal { try await wrong.acquireTokenForClient(with: wrongParameters) }
            #expect(refused?.correlationID == wrongParameters.correlationId)
            switch kind {
            case .djangoOAuthToolkit:
                #expect(refused?.oauthError == "invalid_client", "\(String(describing: refused))")
                #expect(refused?.internalCode == .internalErrorInvalidClient, "\(String(describing: refused))")
            case .glewlwyd:
                // glewlwyd answers a failed client authentication 403 with an empty body.
                #expect(refused?.httpStatusCode == 403, "\(String(describing: refused))")
                #expect(refused?.oauthError == nil)
            }
            let scopeParameters = MSALClientCredentialParameters(scopes: try Self.notAllowedScopes(provider))
            let scopeRefused = await Self.refusal { try await app.acquireTokenForClient(with: scopeParameters) }
            // DOT says invalid_scope (RFC 6749 §5.2); glewlwyd its own scope_invalid.
            #expect(
                scopeRefused?.oauthError == (kind == .glewlwyd ? "scope_invalid" : "invalid_scope"), "\(String(describing: scopeRefused))")
            #expect(scopeRefused?.httpStatusCode == 400)
            #expect(try Data(contentsOf: URL(fileURLWithPath: cachePath)) == before, "nothing cached")
        }
    }

    @Test(
        "glewlwyd's app token is a JWT a protected API validates with MSALAccessTokenValidator: its keys from discovery, its scope and client; another audience and a changed payload are refused"
    )
    func glewlwydAccessTokenValidates() async throws {
        try await LocalOIDCProvider.with(.glewlwyd) { provider, directory in
            let client = try Client(provider, "secret")
            let app = try Self.application(
                provider, clientID: client.clientID, credential: .secret(try #require(client.secret)),
                cachePath: directory.appendingPathComponent("cache.json").path)
            let result = try await app.acquireTokenForClient(scopes: client.scopes)
            let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!, options: [.allowInsecureLoopback])
            // glewlwyd puts the granted scope in aud (its README's findings).
            let validator = try MSALAccessTokenValidator(authority: authority, audiences: client.scopes)
            let token = try await validator.validate(authorizationHeader: "Bearer " + result.accessToken)
            #expect(token.scopes == client.scopes)
            #expect(token.clientID == client.clientID)
            #expect(token.issuer == provider.issuer)
            try token.require(scopes: client.scopes)

            let elsewhere = try MSALAccessTokenValidator(authority: authority, audiences: try Self.notAllowedScopes(provider))
            do {
                _ = try await elsewhere.validate(result.accessToken)
                Issue.record("a token for another audience was accepted")
            } catch let error as MSALFailure {
                #expect(error.internalCode == .idTokenAudienceMismatch, "\(error)")
                #expect(MSALBearerChallenge(for: error).status == 401)
            }
            let parts = result.accessToken.split(separator: ".").map(String.init)
            let changed = Base64URL.encode(Array(#"{"iss":"\#(provider.issuer)","aud":"api.read","scope":"api.write"}"#.utf8))
            do {
                _ = try await validator.validate([parts[0], changed, parts[2]].joined(separator: "."))
                Issue.record("a changed payload was accepted")
            } catch let error as MSALFailure {
                #expect(error.internalCode == .jwtInvalidSignature, "\(error)")
            }
        }
    }

    @Test(
        "private_key_jwt at glewlwyd: the SDK's RS256 assertion (x5t, no kid) is accepted; each token request gets a new assertion, which glewlwyd requires (it refuses a replayed jti); a cache hit signs nothing; an unregistered key is refused"
    )
    func privateKeyJWT() async throws {
        try await LocalOIDCProvider.with(.glewlwyd) { provider, directory in
            let client = try Client(provider, "private_key_jwt")
            let certificate = try MSALClientCertificate(
                privateKeyFile: try #require(client.privateKeyPEM), certificateFile: try #require(client.certificatePEM))
            let cachePath = directory.appendingPathComponent("cache.json").path
            let app = try Self.application(provider, clientID: client.clientID, credential: .certificate(certificate), cachePath: cachePath)
            try await provider.resetStats()

            let first = try await app.acquireTokenForClient(scopes: client.scopes)
            #expect(first.tokenSource == .identityProvider)
            #expect(app.authentication.signatureCount == 1)
            #expect(try await app.acquireTokenForClient(scopes: client.scopes).tokenSource == .cache)
            #expect(app.authentication.signatureCount == 1, "a cache hit signs nothing")
            // Two more token requests within seconds: an assertion reused here would be a replay.
            for _ in 0..<2 {
                let refreshed = try await app.acquireTokenForClient(with: Self.forced(client.scopes))
                #expect(refreshed.tokenSource == .identityProvider)
            }
            #expect(app.authentication.signatureCount == 3)
            #expect(try await provider.tokenRequestCount() == 3)

            // The certificate chain in x5c changes nothing for glewlwyd.
            let withChain = try Self.application(
                provider, clientID: client.clientID, credential: .certificate(certificate, sendX5C: true), cachePath: cachePath)
            #expect(try await withChain.acquireTokenForClient(with: Self.forced(client.scopes)).tokenSource == .identityProvider)

            // A key glewlwyd does not know for this client.
            let material = directory.appendingPathComponent("stranger")
            try FileManager.default.createDirectory(at: material, withIntermediateDirectories: true)
            let key = material.appendingPathComponent("key.pem").path
            let cert = material.appendingPathComponent("cert.pem").path
            let made = try await CommandRunner.offCooperativePool {
                try ChildProcess.run(
                    "/usr/bin/openssl",
                    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=stranger"],
                    timeout: 60)
            }
            #expect(made.exitCode == 0, "\(String(decoding: made.standardError, as: UTF8.self))")
            let before = try Data(contentsOf: URL(fileURLWithPath: cachePath))
            let stranger = try Self.application(
                provider, clientID: client.clientID,
                credential: .certificate(try MSALClientCertificate(privateKeyFile: key, certificateFile: cert)), cachePath: cachePath)
            let refused = await Self.refusal { try await stranger.acquireTokenForClient(with: Self.forced(client.scopes)) }
            #expect(refused?.httpStatusCode == 403, "\(String(describing: refused))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: cachePath)) == before, "nothing cached")
        }
    }
}
