import Foundation
import MSAL
import MSALJOSE
import MSALSupport
import Testing

/// The confidential client's mutual-TLS client authentication (RFC 8705 §2,
/// ``MSALClientCredential/tlsClientCertificate(_:)``) against glewlwyd, which nobody here wrote,
/// started by its launcher with `--mtls`: glewlwyd serves HTTPS itself under a private CA, checks
/// client certificates only on its `mtls_endpoint_aliases`, and binds the tokens it issues to the
/// certificate (`cnf` `x5t#S256`). A `tls_client_auth` client (registered by subject DN) and a
/// `self_signed_tls_client_auth` client (registered by its certificate) get app tokens; a
/// `tls_client_auth` web app signs a user in (authorization code) and refreshes her tokens; other
/// certificates are refused as typed errors and nothing is cached.
///
/// glewlwyd runs without the launcher's counting proxy here (a plain-HTTP proxy cannot carry the
/// client's certificate), so the requests are counted by ``RecordingTransport`` in front of
/// ``MSALCurlTransport``.
@Suite("Mutual TLS client authentication against glewlwyd")
struct ProviderMutualTLSTests {
    /// A certificate and key the launcher made, with what it computed of the certificate, and the
    /// client registered for it (`nil` for the certificates no client is registered with).
    struct Material {
        let clientID: String?
        let scopes: [String]
        /// The web app's registered redirect URI (`nil` for the others).
        let redirectURI: String?
        let privateKeyPEM: String
        let certificatePEM: String
        /// `x5t#S256` as the launcher computed it from the DER (openssl).
        let x5tS256: String

        init(_ object: Any?, _ name: String) throws {
            guard let object = object as? [String: Any], let privateKeyPEM = object["private_key_pem"] as? String,
                let certificatePEM = object["certificate_pem"] as? String, let x5tS256 = object["x5t#S256"] as? String
            else { throw LocalOIDCProvider.Failure("glewlwyd --mtls: no usable \(name) in the launcher's JSON line") }
            clientID = object["client_id"] as? String
            scopes = object["scopes"] as? [String] ?? []
            redirectURI = object["redirect_uri"] as? String
            self.privateKeyPEM = privateKeyPEM
            self.certificatePEM = certificatePEM
            self.x5tS256 = x5tS256
        }

        /// The certificate credential read from the launcher's files.
        func certificate() throws -> MSALClientCertificate {
            try MSALClientCertificate(privateKeyFile: privateKeyPEM, certificateFile: certificatePEM)
        }
    }

    /// What the launcher's JSON line says about its mutual-TLS set-up.
    struct Setup {
        /// The CA of glewlwyd's server certificate (and of the CA-signed client certificates).
        let caFile: String
        /// Discovery's `token_endpoint` and `mtls_endpoint_aliases` `token_endpoint`.
        let tokenEndpoint: URL
        let mtlsTokenEndpoint: URL
        /// The `tls_client_auth` (subject DN) and `self_signed_tls_client_auth` clients.
        let clients: [String: Material]
        /// CA-signed with a subject no client has; self-signed and trusted by nobody.
        let wrongDN: Material
        let stranger: Material
        /// The `tls_client_auth` web app (authorization code + refresh token), with the
        /// `tls_client_auth` client's certificate.
        let webClient: Material

        init(_ provider: LocalOIDCProvider) throws {
            let summary = provider.summary
            guard summary["mtls"] as? Bool == true, let caFile = summary["ca_file"] as? String,
                let tokenEndpoint = (summary["token_endpoint"] as? String).flatMap(URL.init(string:)),
                let mtlsTokenEndpoint = (summary["mtls_token_endpoint"] as? String).flatMap(URL.init(string:)),
                let clients = summary["mtls_clients"] as? [String: Any],
                let certificates = summary["mtls_certificates"] as? [String: Any]
            else { throw LocalOIDCProvider.Failure("glewlwyd did not start in --mtls mode: \(summary)") }
            self.caFile = caFile
            self.tokenEndpoint = tokenEndpoint
            self.mtlsTokenEndpoint = mtlsTokenEndpoint
            var materials: [String: Material] = [:]
            for name in ["tls_client_auth", "self_signed_tls_client_auth"] {
                let material = try Material(clients[name], name)
                guard material.clientID != nil, !material.scopes.isEmpty else {
                    throw LocalOIDCProvider.Failure("glewlwyd --mtls: the \(name) client has no client_id or scopes")
                }
                materials[name] = material
            }
            self.clients = materials
            wrongDN = try Material(certificates["wrong_dn"], "wrong_dn")
            stranger = try Material(certificates["stranger"], "stranger")
            webClient = try Material(summary["mtls_web_client"], "mtls_web_client")
            guard webClient.clientID != nil, webClient.redirectURI != nil else {
                throw LocalOIDCProvider.Failure("glewlwyd --mtls: the web app has no client_id or redirect_uri")
            }
        }

        func client(_ method: String) throws -> Material {
            guard let client = clients[method] else { throw LocalOIDCProvider.Failure("no \(method) client") }
            return client
        }
    }

    /// A transport that records every request (its URL, form fields and client certificate) and
    /// sends it with ``MSALCurlTransport``, trusting only the launcher's CA.
    final class RecordingTransport: MSALHTTPTransport {
        /// One request as it reached the transport.
        struct Sent: Sendable {
            let method: MSALHTTPRequest.Method
            let url: URL
            let form: [String: String]
            let certificateThumbprint: String?
        }

        private let transport: MSALCurlTransport
        private let sent = Mutex<[Sent]>([])

        init(trusting caFile: String) {
            transport = MSALCurlTransport(trustedCertificatesFile: caFile)
        }

        func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
            var form: [String: String] = [:]
            if let body = request.body, request.method == .post {
                for item in URLComponents(string: "?" + String(decoding: body, as: UTF8.self))?.queryItems ?? [] {
                    form[item.name] = item.value ?? ""
                }
            }
            let entry = Sent(
                method: request.method, url: request.url, form: form, certificateThumbprint: request.clientCertificate?.x5tS256)
            sent.withLock { $0.append(entry) }
            return try await transport.send(request, limits: limits)
        }

        /// The POSTs with a `grant_type`, in order.
        var tokenRequests: [Sent] {
            sent.withLock { $0 }.filter { $0.method == .post && $0.form["grant_type"] != nil }
        }
    }

    static func application(
        _ provider: LocalOIDCProvider, clientID: String, certificate: MSALClientCertificate, transport: RecordingTransport,
        cachePath: String
    ) throws -> MSALConfidentialClientApplication {
        // https: no .allowInsecureLoopback needed.
        let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!)
        let configuration = MSALConfidentialClientApplicationConfig(
            clientId: clientID, clientCredential: .tlsClientCertificate(certificate), authority: authority)
        configuration.transport = transport
        configuration.cacheConfig = MSALCacheConfig(storage: .file(path: cachePath))
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    /// The claims of a JWT access token, decoded without any check.
    static func claims(_ token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3, "not a compact JWT: \(token.prefix(40))")
        let payload = try Base64URL.decode(String(parts[1]))
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    /// Checks that `request` is a `grantType` request of `clientID` to the mTLS token
    /// endpoint, presenting `certificate` in TLS and nothing else in the form.
    static func expectMutualTLSRequest(
        _ request: RecordingTransport.Sent?, clientID: String, certificate: String, setup: Setup,
        grantType: String = "client_credentials", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let request else {
            Issue.record("no token request was sent", sourceLocation: sourceLocation)
            return
        }
        #expect(request.url == setup.mtlsTokenEndpoint, "sent to \(request.url)", sourceLocation: sourceLocation)
        #expect(request.certificateThumbprint == certificate, "the TLS client certificate", sourceLocation: sourceLocation)
        #expect(request.form["grant_type"] == grantType, sourceLocation: sourceLocation)
        #expect(request.form["client_id"] == clientID, "RFC 8705 §2: the form names the client", sourceLocation: sourceLocation)
        for field in ["client_secret", "client_assertion", "client_assertion_type", "token_type"] {
            #expect(request.form[field] == nil, "\(field) in a mutual-TLS token request", sourceLocation: sourceLocation)
        }
    }

    /// Runs `body` and returns the `MSALFailure` it throws; records an issue otherwise.
    static func refusal(_ body: () async throws -> MSALResult, sourceLocation: SourceLocation = #_sourceLocation) async -> MSALFailure? {
        await ProviderClientCredentialsTests.refusal(body, sourceLocation: sourceLocation)
    }

    /// glewlwyd's refusal of a client certificate: `403` with an empty body, which swift-msal
    /// reports as ``MSALInternalError/internalErrorUnhandledResponse`` (no OAuth error to map).
    static func expectCertificateRefused(_ failure: MSALFailure?, correlationID: UUID, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(failure?.code == .internal, "\(String(describing: failure))", sourceLocation: sourceLocation)
        #expect(failure?.internalCode == .internalErrorUnhandledResponse, "\(String(describing: failure))", sourceLocation: sourceLocation)
        #expect(failure?.httpStatusCode == 403, sourceLocation: sourceLocation)
        #expect(failure?.oauthError == nil, sourceLocation: sourceLocation)
        #expect(failure?.isThrottlingCacheHit == false, sourceLocation: sourceLocation)
        #expect(failure?.correlationID == correlationID, sourceLocation: sourceLocation)
    }

    @Test(
        "An app token over mutual TLS at glewlwyd's mtls_endpoint_aliases token endpoint, bound to the client's certificate (cnf x5t#S256); then from the cache with no request, also in a new application; a forced refresh presents the certificate again",
        arguments: ["tls_client_auth", "self_signed_tls_client_auth"])
    func boundAppToken(method: String) async throws {
        try await LocalOIDCProvider.with(.glewlwyd, ["--mtls"]) { provider, directory in
            let setup = try Setup(provider)
            let client = try setup.client(method)
            let clientID = try #require(client.clientID)
            let certificate = try client.certificate()
            #expect(certificate.x5tS256 == client.x5tS256, "swift-msal's thumbprint of the certificate is openssl's")

            // Discovery names the alias, and the library reads it.
            let transport = RecordingTransport(trusting: setup.caFile)
            let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!)
            let metadata = try await MSALAuthorityResolver(transport: transport).metadata(for: authority)
            #expect(metadata.mtlsTokenEndpoint == setup.mtlsTokenEndpoint)
            #expect(metadata.tokenEndpoint == setup.tokenEndpoint && setup.tokenEndpoint != setup.mtlsTokenEndpoint)

            let cachePath = directory.appendingPathComponent("cache.json").path
            let app = try Self.application(
                provider, clientID: clientID, certificate: certificate, transport: transport, cachePath: cachePath)
            // glewlwyd checks certificates only on the alias: a token proves the request went there with it.
            let first = try await app.acquireTokenForClient(scopes: client.scopes)
            #expect(first.tokenSource == .identityProvider)
            #expect(first.idToken == nil && first.account.identifier == nil, "an app token has no user")
            #expect(Set(client.scopes).isSubset(of: Set(first.scopes)), "\(first.scopes)")
            #expect(try #require(first.expiresOn) > Date().addingTimeInterval(600))
            // RFC 8705 §3: a certificate-bound token is still presented as a bearer token.
            #expect(first.authenticationScheme == "Bearer")
            #expect(first.authorizationHeader == "Bearer " + first.accessToken)
            #expect(transport.tokenRequests.count == 1)
            Self.expectMutualTLSRequest(transport.tokenRequests.first, clientID: clientID, certificate: certificate.x5tS256, setup: setup)

            let claims = try Self.claims(first.accessToken)
            let confirmation = try #require(claims["cnf"] as? [String: Any], "no cnf in \(claims)")
            #expect(confirmation["x5t#S256"] as? String == certificate.x5tS256, "bound to the certificate presented: \(confirmation)")
            #expect(claims["client_id"] as? String == clientID)
            #expect(claims["iss"] as? String == provider.issuer)

            // Our API-side validator takes glewlwyd's certificate-bound token only over a connection
            // with its certificate (glewlwyd puts the granted scopes in aud, as its own API audience).
            let audience = try #require(claims["aud"] as? String)
            let validator = try MSALAccessTokenValidator(
                authority: authority, audiences: [audience], transport: MSALCurlTransport(trustedCertificatesFile: setup.caFile))
            let der = certificate.certificate.chain[0]
            let validated = try await validator.validate(authorizationHeader: first.authorizationHeader, clientCertificate: der)
            #expect(validated.certificateThumbprint == certificate.x5tS256)
            let other = try setup.stranger.certificate().certificate.chain[0]
            for presented in [nil, other] as [[UInt8]?] {
                await #expect {
                    _ = try await validator.validate(authorizationHeader: first.authorizationHeader, clientCertificate: presented)
                } throws: { ($0 as? MSALFailure)?.internalCode == .certificateBindingMismatch }
            }
            await #expect {
                _ = try await validator.validate(authorizationHeader: first.authorizationHeader)
            } throws: { ($0 as? MSALFailure)?.internalCode == .accessTokenSchemeMismatch }

            // Cache hits: nothing sent, nothing presented.
            let requests = transport.tokenRequests.count
            let hit = try await app.acquireTokenForClient(scopes: client.scopes)
            #expect(hit.tokenSource == .cache && hit.accessToken == first.accessToken)
            let again = try Self.application(
                provider, clientID: clientID, certificate: certificate, transport: transport, cachePath: cachePath)
            let read = try await again.acquireTokenForClient(scopes: client.scopes)
            #expect(read.tokenSource == .cache && read.accessToken == first.accessToken)
            #expect(transport.tokenRequests.count == requests, "a cache hit sends nothing")

            // A forced refresh: a new token request over TLS with the certificate, a new bound token.
            let parameters = MSALClientCredentialParameters(scopes: client.scopes)
            parameters.forceRefresh = true
            let refreshed = try await app.acquireTokenForClient(with: parameters)
            #expect(refreshed.tokenSource == .identityProvider)
            #expect(refreshed.accessToken != first.accessToken)
            #expect(transport.tokenRequests.count == requests + 1)
            Self.expectMutualTLSRequest(transport.tokenRequests.last, clientID: clientID, certificate: certificate.x5tS256, setup: setup)
            let refreshedConfirmation = try Self.claims(refreshed.accessToken)["cnf"] as? [String: Any]
            #expect(refreshedConfirmation?["x5t#S256"] as? String == certificate.x5tS256)
            #expect(try await app.acquireTokenForClient(scopes: client.scopes).accessToken == refreshed.accessToken)
        }
    }

    @Test(
        "glewlwyd refuses other certificates (an untrusted self-signed one; a CA-signed one with another subject DN; the tls_client_auth client's for the self-signed client) with 403: a typed MSALFailure, nothing cached, and a later request with the right certificate still goes to glewlwyd, over a connection of its own; the wrong certificate stays refused after it"
    )
    func otherCertificatesRefused() async throws {
        try await LocalOIDCProvider.with(.glewlwyd, ["--mtls"]) { provider, directory in
            let setup = try Setup(provider)
            // One transport for every application: libcurl must not give a request a connection
            // made with another certificate.
            let transport = RecordingTransport(trusting: setup.caFile)
            let dnClient = try setup.client("tls_client_auth")
            let selfSignedClient = try setup.client("self_signed_tls_client_auth")
            let cases: [(client: Material, wrong: [Material])] = [
                (dnClient, [setup.stranger, setup.wrongDN]),
                (selfSignedClient, [setup.stranger, dnClient]),
            ]
            for (index, (client, wrongCertificates)) in cases.enumerated() {
                let clientID = try #require(client.clientID)
                let cachePath = directory.appendingPathComponent("cache-\(index).json").path
                var wrongApplications: [(MSALConfidentialClientApplication, MSALClientCertificate)] = []
                for wrong in wrongCertificates {
                    let certificate = try wrong.certificate()
                    let app = try Self.application(
                        provider, clientID: clientID, certificate: certificate, transport: transport, cachePath: cachePath)
                    wrongApplications.append((app, certificate))
                    let parameters = MSALClientCredentialParameters(scopes: client.scopes)
                    parameters.correlationId = UUID()
                    let sent = transport.tokenRequests.count
                    let refused = await Self.refusal { try await app.acquireTokenForClient(with: parameters) }
                    Self.expectCertificateRefused(refused, correlationID: try #require(parameters.correlationId))
                    #expect(transport.tokenRequests.count == sent + 1)
                    Self.expectMutualTLSRequest(
                        transport.tokenRequests.last, clientID: clientID, certificate: certificate.x5tS256, setup: setup)
                }
                // No access token in the cache file, if a refusal wrote one at all.
                let written = (try? Data(contentsOf: URL(fileURLWithPath: cachePath))).map { String(decoding: $0, as: UTF8.self) }
                #expect(!(written ?? "").lowercased().contains("-accesstoken"), "a refusal cached a token: \(written ?? "")")

                // The right certificate, on the same cache: not a cache hit, a token request.
                let certificate = try client.certificate()
                let app = try Self.application(
                    provider, clientID: clientID, certificate: certificate, transport: transport, cachePath: cachePath)
                let sent = transport.tokenRequests.count
                let result = try await app.acquireTokenForClient(scopes: client.scopes)
                #expect(result.tokenSource == .identityProvider)
                #expect(transport.tokenRequests.count == sent + 1)
                Self.expectMutualTLSRequest(
                    transport.tokenRequests.last, clientID: clientID, certificate: certificate.x5tS256, setup: setup)
                let confirmation = try Self.claims(result.accessToken)["cnf"] as? [String: Any]
                #expect(confirmation?["x5t#S256"] as? String == certificate.x5tS256)

                // With a connection made with the right certificate open, a wrong one is still refused
                // (forced: the cache now holds the right certificate's token for this client).
                let stored = try Data(contentsOf: URL(fileURLWithPath: cachePath))
                for (wrongApp, wrongCertificate) in wrongApplications {
                    let parameters = MSALClientCredentialParameters(scopes: client.scopes)
                    parameters.forceRefresh = true
                    parameters.correlationId = UUID()
                    let refused = await Self.refusal { try await wrongApp.acquireTokenForClient(with: parameters) }
                    Self.expectCertificateRefused(refused, correlationID: try #require(parameters.correlationId))
                    Self.expectMutualTLSRequest(
                        transport.tokenRequests.last, clientID: clientID, certificate: wrongCertificate.x5tS256, setup: setup)
                }
                #expect(try Data(contentsOf: URL(fileURLWithPath: cachePath)) == stored, "a refusal changed the cache")
                #expect(try await app.acquireTokenForClient(scopes: client.scopes).accessToken == result.accessToken)
            }
        }
    }

    @Test(
        "msal app-token --mtls --ca-file against glewlwyd: a bound app token through the alias, then from the cache file; without --ca-file the TLS handshake fails (tlsFailure); without --mtls glewlwyd refuses the assertion"
    )
    func command() async throws {
        try await LocalOIDCProvider.with(.glewlwyd, ["--mtls"]) { provider, directory in
            let setup = try Setup(provider)
            let client = try setup.client("tls_client_auth")
            let clientID = try #require(client.clientID)
            let cache = directory.appendingPathComponent("cli-cache.json").path
            let common = [
                "app-token", "--authority", provider.issuer, "--authority-kind", "oidc", "--client-id", clientID, "--scopes",
                client.scopes.joined(separator: " "), "--certificate", client.certificatePEM, "--private-key", client.privateKeyPEM,
                "--cache", cache, "--output", "json",
            ]
            let first = try await CommandRunner.run(common + ["--mtls", "--ca-file", setup.caFile])
            #expect(first.status == 0, "\(first.standardError)")
            let json = try first.json()
            #expect(json["token_source"] as? String == "identity_provider")
            #expect(json["authentication_scheme"] as? String == "Bearer")
            let token = try #require(json["access_token"] as? String)
            #expect((try Self.claims(token)["cnf"] as? [String: Any])?["x5t#S256"] as? String == client.x5tS256)

            let hit = try await CommandRunner.run(common + ["--mtls", "--ca-file", setup.caFile])
            #expect(try hit.json()["access_token"] as? String == token)
            #expect(try hit.json()["token_source"] as? String == "cache")

            // The system's trust store does not know the test CA.
            let untrusted = try await CommandRunner.run(common + ["--mtls", "--force-refresh"])
            #expect(untrusted.status != 0)
            let error = try untrusted.json()["error"] as? [String: Any]
            #expect(error?["internal_name"] as? String == "tlsFailure", "\(untrusted.standardOutput)")

            // A signed assertion instead: the client is registered for tls_client_auth only.
            let assertion = try await CommandRunner.run(common + ["--ca-file", setup.caFile, "--force-refresh"])
            #expect(assertion.status != 0)
            let refused = try assertion.json()["error"] as? [String: Any]
            #expect(refused?["internal_name"] as? String == "internalErrorUnhandledResponse", "\(assertion.standardOutput)")
        }
    }

    @Test(
        "A web app with tls_client_auth signs a user in at glewlwyd: the code is redeemed over mutual TLS at the alias, the user's tokens are bound to the certificate and cached; silent hits send nothing; refreshes present the certificate and get bound tokens; another certificate's refresh is refused as a typed error and the cache keeps the user's refresh token"
    )
    func webAppSignIn() async throws {
        try await LocalOIDCProvider.with(.glewlwyd, ["--mtls"]) { provider, directory in
            let setup = try Setup(provider)
            let web = setup.webClient
            let clientID = try #require(web.clientID)
            let redirectURI = try #require(web.redirectURI)
            let certificate = try web.certificate()
            let transport = RecordingTransport(trusting: setup.caFile)
            let cachePath = directory.appendingPathComponent("web-cache.json").path
            let app = try Self.application(
                provider, clientID: clientID, certificate: certificate, transport: transport, cachePath: cachePath)

            // Sign-in: alice on glewlwyd's own login and consent pages (the scripted agent), which
            // hands back the redirect instead of following it to the web app's (unreachable) host.
            let flow = try await app.initiateAuthorizationCodeFlow(
                with: MSALAuthorizationCodeParameters(scopes: ["email"], redirectUri: redirectURI))
            let agent = try await CommandRunner.run(
                [
                    LocalOIDCProvider.providersDirectory.appendingPathComponent("glewlwyd/login_agent.py").path,
                    flow.authorizationURL.absoluteString, "--username", "alice", "--password=" + (try provider.password("alice")),
                    "--no-deliver",
                ], environment: ["SSL_CERT_FILE": setup.caFile], executable: LocalOIDCProvider.python)
            #expect(agent.status == 0, "\(agent.standardError)")
            let redirect = try #require(
                agent.standardOutput.split(separator: "\n").last.flatMap { URL(string: String($0)) }, "\(agent.standardOutput)")
            #expect(redirect.absoluteString.hasPrefix(redirectURI + "?"))
            #expect(transport.tokenRequests.isEmpty, "nothing redeemed before the redirect")

            let signedIn = try await app.acquireTokenByAuthorizationCode(flow: flow, redirectURL: redirect)
            #expect(signedIn.tokenSource == .identityProvider)
            #expect(signedIn.account.username == "alice")
            #expect(signedIn.idToken != nil)
            #expect(signedIn.scopes.contains("email"), "\(signedIn.scopes)")
            #expect(signedIn.authorizationHeader == "Bearer " + signedIn.accessToken)
            #expect(transport.tokenRequests.count == 1)
            let redemption = transport.tokenRequests.last
            Self.expectMutualTLSRequest(
                redemption, clientID: clientID, certificate: certificate.x5tS256, setup: setup, grantType: "authorization_code")
            #expect(redemption?.form["code_verifier"] == flow.codeVerifier)
            #expect(redemption?.form["redirect_uri"] == redirectURI)
            let claims = try Self.claims(signedIn.accessToken)
            #expect((claims["cnf"] as? [String: Any])?["x5t#S256"] as? String == certificate.x5tS256, "\(claims)")
            #expect(claims["client_id"] as? String == clientID)

            // Our validator: the user's token only with the web app's certificate.
            let authority = try MSALOIDCAuthority(url: URL(string: provider.issuer)!)
            let validator = try MSALAccessTokenValidator(
                authority: authority, audiences: [try #require(claims["aud"] as? String)],
                transport: MSALCurlTransport(trustedCertificatesFile: setup.caFile))
            let validated = try await validator.validate(
                authorizationHeader: signedIn.authorizationHeader, clientCertificate: certificate.certificate.chain[0])
            #expect(validated.certificateThumbprint == certificate.x5tS256)
            #expect(validated.subject == claims["sub"] as? String)
            let stranger = try setup.stranger.certificate().certificate.chain[0]
            await #expect {
                _ = try await validator.validate(authorizationHeader: signedIn.authorizationHeader, clientCertificate: stranger)
            } throws: { ($0 as? MSALFailure)?.internalCode == .certificateBindingMismatch }

            // Silent: the cached token, nothing sent, also from a new application on the cache file.
            let account = signedIn.account
            let hit = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["email"], account: account))
            #expect(hit.tokenSource == .cache && hit.accessToken == signedIn.accessToken)
            let reopened = try Self.application(
                provider, clientID: clientID, certificate: certificate, transport: transport, cachePath: cachePath)
            let accounts = try await reopened.allAccounts()
            #expect(accounts.map(\.username) == ["alice"])
            let read = try await reopened.acquireTokenSilent(
                with: MSALSilentTokenParameters(scopes: ["email"], account: try #require(accounts.first)))
            #expect(read.tokenSource == .cache && read.accessToken == signedIn.accessToken)
            #expect(transport.tokenRequests.count == 1, "a cache hit sends nothing")

            // Refresh: glewlwyd's refresh tokens are used once, so two refreshes in a row prove the
            // rotated one was cached; each presents the certificate at the alias.
            var current = signedIn
            for _ in 0..<2 {
                let parameters = MSALSilentTokenParameters(scopes: ["email"], account: account)
                parameters.forceRefresh = true
                let refreshed = try await app.acquireTokenSilent(with: parameters)
                #expect(refreshed.tokenSource == .identityProvider)
                #expect(refreshed.accessToken != current.accessToken)
                #expect(refreshed.account.homeAccountId?.identifier == account.homeAccountId?.identifier)
                let request = transport.tokenRequests.last
                Self.expectMutualTLSRequest(
                    request, clientID: clientID, certificate: certificate.x5tS256, setup: setup, grantType: "refresh_token")
                #expect(request?.form["refresh_token"]?.isEmpty == false)
                #expect((try Self.claims(refreshed.accessToken)["cnf"] as? [String: Any])?["x5t#S256"] as? String == certificate.x5tS256)
                current = refreshed
            }
            #expect(transport.tokenRequests.count == 3)

            // The same web app configured with another certificate (CA-signed, another subject):
            // glewlwyd refuses its refresh; a typed error, and the cache is untouched, so the right
            // certificate still refreshes with the refresh token kept.
            let stored = try Data(contentsOf: URL(fileURLWithPath: cachePath))
            let wrongApp = try Self.application(
                provider, clientID: clientID, certificate: try setup.wrongDN.certificate(), transport: transport, cachePath: cachePath)
            let wrongParameters = MSALSilentTokenParameters(scopes: ["email"], account: account)
            wrongParameters.forceRefresh = true
            wrongParameters.correlationId = UUID()
            let refused = await Self.refusal { try await wrongApp.acquireTokenSilent(with: wrongParameters) }
            Self.expectCertificateRefused(refused, correlationID: try #require(wrongParameters.correlationId))
            #expect(transport.tokenRequests.last?.certificateThumbprint == setup.wrongDN.x5tS256)
            #expect(try Data(contentsOf: URL(fileURLWithPath: cachePath)) == stored, "a refusal changed the cache")

            let parameters = MSALSilentTokenParameters(scopes: ["email"], account: account)
            parameters.forceRefresh = true
            let recovered = try await app.acquireTokenSilent(with: parameters)
            #expect(recovered.tokenSource == .identityProvider && recovered.accessToken != current.accessToken)
            Self.expectMutualTLSRequest(
                transport.tokenRequests.last, clientID: clientID, certificate: certificate.x5tS256, setup: setup, grantType: "refresh_token"
            )
        }
    }
}
