import Foundation
import MSALEmulator
import MSALJOSE
import Testing

/// The emulator's confidential clients over HTTP: client authentication (secret and
/// `private_key_jwt`) on the token endpoint and the client-credentials grant.
@Suite("Emulator: confidential clients and the client-credentials grant")
struct ClientCredentialsGrantTests {
    static let secretClientID = "3a1f5c7e-9b2d-4f60-8e1a-5c3b7d9f1e20"
    static let certificateClientID = "8d2e4f60-1a3b-4c5d-9e7f-0a1b2c3d4e5f"
    static let strictClientID = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
    static let secret = "s3cr3t~value.for-the_emulator"
    static let resource = "https://graph.microsoft.com"

    /// One key and certificate for the whole suite (RSA key generation is the slow part).
    static let material: (privateKeyPEM: String, certificatePEM: String) = {
        do { return try MSALEmulator.Client.makeCertificate(commonName: "emulator tests") } catch { fatalError("\(error)") }
    }()

    static func credential() throws -> ClientCertificate {
        try ClientCertificate(privateKeyPEM: Array(material.privateKeyPEM.utf8), certificatePEM: Array(material.certificatePEM.utf8))
    }

    static var configuration: MSALEmulator.Configuration {
        var configuration = EmulatorHarness.configuration
        configuration.clients += [
            MSALEmulator.Client(
                clientID: secretClientID, displayName: "Daemon (secret)", credentials: [.secret("an older secret"), .secret(secret)],
                appRoles: [resource: ["User.Read.All", "Mail.Send"]]),
            MSALEmulator.Client(
                clientID: certificateClientID, displayName: "Daemon (certificate)",
                credentials: [.certificate(pem: material.certificatePEM)]),
            MSALEmulator.Client(
                clientID: strictClientID, displayName: "Daemon (no assertion reuse)",
                credentials: [.certificate(pem: material.certificatePEM)], acceptsReusedAssertions: false),
        ]
        return configuration
    }

    static func tokenPath(_ tenant: String = EmulatorHarness.contoso) -> String { "/\(tenant)/oauth2/v2.0/token" }

    static func form(clientID: String, scope: String = "\(resource)/.default", _ extra: [(String, String)]) -> [(String, String)] {
        [("client_id", clientID), ("grant_type", "client_credentials"), ("scope", scope)] + extra
    }

    /// A signed assertion for `clientID` at `harness`'s Contoso token endpoint, issued `age` seconds ago.
    static func assertion(
        _ harness: EmulatorHarness, clientID: String = certificateClientID, audience: String? = nil, age: Int64 = 0,
        lifetime: Int64 = 600, jwtID: String = UUID().uuidString, thumbprint: ClientCertificate.Thumbprint = .sha256,
        credential: ClientCertificate? = nil
    ) throws -> String {
        let signer = try credential ?? Self.credential()
        return try signer.signAssertion(
            clientID: clientID, audience: audience ?? harness.emulator.baseURL.absoluteString + tokenPath(),
            issuedAt: Int64(harness.emulator.now.timeIntervalSince1970) - age, lifetime: lifetime, jwtID: jwtID,
            thumbprint: thumbprint, sendX5C: false)
    }

    static func assertionFields(_ assertion: String) -> [(String, String)] {
        [("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"), ("client_assertion", assertion)]
    }

    /// The verified claims of an access token from the emulator's own keys.
    static func verifiedToken(_ response: RawResponse, _ harness: EmulatorHarness) async throws -> JWT {
        let keys = try await harness.call("GET", "/\(EmulatorHarness.contoso)/discovery/v2.0/keys")
        let token = try #require(response.json["access_token"] as? String)
        return try JWTVerifier(keySet: try JSONWebKeySet(json: [UInt8](keys.body))).verify(token)
    }

    static func expectError(
        _ response: RawResponse, status: Int = 401, error: String = "invalid_client", code: Int, _ comment: Comment,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(comment): \(response.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(response.error == error, comment, sourceLocation: sourceLocation)
        #expect(response.errorCodes == [code], comment, sourceLocation: sourceLocation)
        #expect(response.json["access_token"] == nil, comment, sourceLocation: sourceLocation)
    }

    @Test("A secret: an app token with roles, idtyp app and azpacr 1; no refresh token, ID token, client_info or scope")
    func secretAppToken() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            for tenant in [EmulatorHarness.contoso, "contoso.example"] {
                let response = try await harness.call(
                    "POST", Self.tokenPath(tenant), form: Self.form(clientID: Self.secretClientID, [("client_secret", Self.secret)]))
                #expect(response.status == 200, "\(response.text.prefix(300))")
                #expect(Set(response.json.keys) == ["token_type", "expires_in", "ext_expires_in", "access_token"])
                #expect(response.json["token_type"] as? String == "Bearer")
                #expect(response.json["expires_in"] as? Int == 3600)
                let token = try await Self.verifiedToken(response, harness)
                #expect(token.stringListClaim("aud") == [Self.resource])
                #expect(token.stringClaim("idtyp") == "app")
                #expect(token.stringClaim("azp") == Self.secretClientID)
                #expect(token.stringClaim("azpacr") == "1")
                #expect(token.stringClaim("tid") == EmulatorHarness.contoso)
                #expect(token.stringClaim("iss") == "\(harness.emulator.baseURL.absoluteString)/\(EmulatorHarness.contoso)/v2.0")
                #expect(token.stringListClaim("roles") == ["User.Read.All", "Mail.Send"])
                #expect(token.stringClaim("scp") == nil)
                #expect(token.stringClaim("preferred_username") == nil)
                let objectID = try #require(token.stringClaim("oid"))
                #expect(token.stringClaim("sub") == objectID)
                #expect(objectID.count == 36)
            }
            // The service principal's object id is per tenant and the same every time.
            let fabrikam = try await harness.call(
                "POST", Self.tokenPath(EmulatorHarness.fabrikam),
                form: Self.form(clientID: Self.secretClientID, scope: "api://backend/.default", [("client_secret", Self.secret)]))
            let contoso = try await harness.call(
                "POST", Self.tokenPath(), form: Self.form(clientID: Self.secretClientID, [("client_secret", Self.secret)]))
            let fabrikamToken = try JWT.decodeUnverified(try #require(fabrikam.json["access_token"] as? String))
            let contosoToken = try JWT.decodeUnverified(try #require(contoso.json["access_token"] as? String))
            #expect(fabrikamToken.stringListClaim("aud") == ["api://backend"])
            #expect(fabrikamToken.stringListClaim("roles") == nil, "no roles granted for that resource")
            #expect(fabrikamToken.stringClaim("oid") != contosoToken.stringClaim("oid"))
            #expect(harness.emulator.requestCount(.token, grantType: .clientCredentials) == 4)
        }
    }

    @Test("refresh_in is sent only when the lifetimes ask for it")
    func refreshIn() async throws {
        var configuration = Self.configuration
        configuration.lifetimes.appTokenRefreshIn = 1800
        try await EmulatorHarness.with(configuration) { harness in
            let response = try await harness.call(
                "POST", Self.tokenPath(), form: Self.form(clientID: Self.secretClientID, [("client_secret", Self.secret)]))
            #expect(response.json["refresh_in"] as? Int == 1800)
        }
    }

    @Test(
        "Secrets and grants refused as Entra refuses them: wrong, missing, from a public client, both kinds, a multi-tenant alias, a scope without /.default"
    )
    func secretErrors() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            func post(_ form: [(String, String)], tenant: String = EmulatorHarness.contoso) async throws -> RawResponse {
                try await harness.call("POST", Self.tokenPath(tenant), form: form)
            }
            let daemon = Self.secretClientID
            Self.expectError(try await post(Self.form(clientID: daemon, [("client_secret", "wrong")])), code: 7000215, "wrong secret")
            Self.expectError(
                try await post(Self.form(clientID: daemon, [("client_secret", Self.secret + "x")])), code: 7000215, "secret with a suffix")
            Self.expectError(try await post(Self.form(clientID: daemon, [])), code: 7000218, "no credential")
            Self.expectError(
                try await post(Self.form(clientID: EmulatorHarness.clientID, [("client_secret", Self.secret)])), code: 700025,
                "a public client with a secret")
            Self.expectError(try await post(Self.form(clientID: EmulatorHarness.clientID, [])), code: 7000218, "a public client")
            Self.expectError(
                try await post(Self.form(clientID: daemon, [("client_secret", Self.secret)] + Self.assertionFields("a.b.c"))),
                status: 400, error: "invalid_request", code: 900144, "secret and assertion")
            for alias in ["common", "organizations"] {
                Self.expectError(
                    try await post(Self.form(clientID: daemon, [("client_secret", Self.secret)]), tenant: alias), status: 400,
                    error: "invalid_request", code: 9001023, "/\(alias)")
            }
            for scope in ["https://graph.microsoft.com/User.Read", "User.Read", "/.default", "\(Self.resource)/.default api://x/.default"] {
                Self.expectError(
                    try await post(Self.form(clientID: daemon, scope: scope, [("client_secret", Self.secret)])), status: 400,
                    error: "invalid_scope", code: 1002012, "scope \(scope)")
            }
            // A confidential client must authenticate on every grant, not only client_credentials.
            Self.expectError(
                try await post([("client_id", daemon), ("grant_type", "refresh_token"), ("refresh_token", "x"), ("scope", "User.Read")]),
                code: 7000218, "a refresh without the secret")
        }
    }

    @Test("A certificate: PS256 with x5t#S256 and RS256 with x5t are accepted (azpacr 2); the same assertion may be reused")
    func certificateAppToken() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            for thumbprint in [ClientCertificate.Thumbprint.sha256, .sha1] {
                let assertion = try Self.assertion(harness, thumbprint: thumbprint)
                for _ in 0..<2 {
                    let response = try await harness.call(
                        "POST", Self.tokenPath(), form: Self.form(clientID: Self.certificateClientID, Self.assertionFields(assertion)))
                    #expect(response.status == 200, "\(thumbprint): \(response.text.prefix(300))")
                    let token = try await Self.verifiedToken(response, harness)
                    #expect(token.stringClaim("azpacr") == "2")
                    #expect(token.stringClaim("azp") == Self.certificateClientID)
                }
            }
            // The audience may name the tenant by domain, as the request's path does.
            let byDomain = try Self.assertion(
                harness, audience: harness.emulator.baseURL.absoluteString + Self.tokenPath("contoso.example"))
            let response = try await harness.call(
                "POST", Self.tokenPath("contoso.example"),
                form: Self.form(clientID: Self.certificateClientID, Self.assertionFields(byDomain)))
            #expect(response.status == 200, "\(response.text.prefix(300))")
        }
    }

    @Test("Bad assertions: replayed jti, reuse where refused, wrong audience, issuer, time, certificate, signature, type and shape")
    func assertionErrors() async throws {
        try await EmulatorHarness.with(Self.configuration) { harness in
            func post(_ assertion: String, clientID: String = Self.certificateClientID, type: String? = nil) async throws -> RawResponse {
                var fields = Self.assertionFields(assertion)
                if let type { fields[0].1 = type }
                return try await harness.call("POST", Self.tokenPath(), form: Self.form(clientID: clientID, fields))
            }
            // The same jti in a new assertion is a replay.
            let jwtID = UUID().uuidString
            #expect(try await post(try Self.assertion(harness, jwtID: jwtID)).status == 200)
            Self.expectError(try await post(try Self.assertion(harness, age: 1, jwtID: jwtID)), code: 50012, "replayed jti")
            // A client registered without assertion reuse refuses the very same assertion twice.
            let once = try Self.assertion(harness, clientID: Self.strictClientID)
            #expect(try await post(once, clientID: Self.strictClientID).status == 200)
            Self.expectError(try await post(once, clientID: Self.strictClientID), code: 50012, "reused where refused")

            let base = harness.emulator.baseURL.absoluteString
            Self.expectError(
                try await post(try Self.assertion(harness, audience: base + Self.tokenPath(EmulatorHarness.fabrikam))), code: 50012,
                "another tenant's token endpoint")
            Self.expectError(try await post(try Self.assertion(harness, audience: base)), code: 50012, "the issuer, not the endpoint")
            Self.expectError(
                try await post(try Self.assertion(harness, clientID: Self.secretClientID), clientID: Self.secretClientID), code: 700027,
                "signed for another client, which has no certificate")
            Self.expectError(
                try await post(try Self.assertion(harness, clientID: Self.strictClientID), clientID: Self.certificateClientID),
                code: 700021,
                "iss and sub name another client")
            Self.expectError(try await post(try Self.assertion(harness, age: 1000)), code: 700024, "expired beyond the skew")
            Self.expectError(try await post(try Self.assertion(harness, age: -900)), code: 700024, "not yet valid")
            #expect(try await post(try Self.assertion(harness, age: 750)).status == 200, "expired within the 5-minute skew")

            let stranger = try MSALEmulator.Client.makeCertificate(commonName: "unregistered")
            let strangerCredential = try ClientCertificate(
                privateKeyPEM: Array(stranger.privateKeyPEM.utf8), certificatePEM: Array(stranger.certificatePEM.utf8))
            Self.expectError(
                try await post(try Self.assertion(harness, credential: strangerCredential)), code: 700027, "unregistered certificate")

            let good = try Self.assertion(harness)
            var tampered = Array(good)
            let last = tampered.count - 5
            tampered[last] = tampered[last] == "A" ? "B" : "A"
            Self.expectError(try await post(String(tampered)), code: 700027, "tampered signature")
            Self.expectError(
                try await post(good, type: "urn:ietf:params:oauth:client-assertion-type:saml2-bearer"), code: 50027, "assertion type")
            for malformed in ["not-a-jwt", "a.b.c", String(repeating: "A", count: 17_000) + ".e30.x"] {
                Self.expectError(try await post(malformed), code: 50027, "malformed \(malformed.prefix(16))")
            }
            // HS256 with the certificate's thumbprint: refused before any key is used.
            let header = Base64URL.encode(
                Array(#"{"alg":"HS256","x5t#S256":"\#(Base64URL.encode(try Self.credential().sha256Thumbprint))"}"#.utf8))
            Self.expectError(try await post("\(header).e30.c2ln"), code: 50027, "HS256")
        }
    }

    @Test("Configuration: an unreadable certificate, an empty secret or a role with a space is refused at start")
    func configurationChecks() throws {
        func refused(_ client: MSALEmulator.Client) -> Bool {
            var configuration = MSALEmulator.Configuration.sample
            configuration.clients.append(client)
            do {
                _ = try MSALEmulator(configuration: configuration)
                return false
            } catch {
                return (error as? MSALEmulatorError)?.code == .invalidConfiguration
            }
        }
        #expect(
            refused(
                MSALEmulator.Client(
                    clientID: "a", displayName: "A",
                    credentials: [.certificate(pem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")])))
        #expect(refused(MSALEmulator.Client(clientID: "b", displayName: "B", credentials: [.certificate(pem: "")])))
        #expect(refused(MSALEmulator.Client(clientID: "c", displayName: "C", credentials: [.secret("")])))
        #expect(refused(MSALEmulator.Client(clientID: "d", displayName: "D", credentials: [.secret("x")], appRoles: ["api://x": ["a b"]])))
        #expect(
            !refused(MSALEmulator.Client(clientID: "e", displayName: "E", credentials: [.certificate(pem: Self.material.certificatePEM)])))
    }

    @Test("Discovery names the client authentication methods and assertion algorithms")
    func discovery() async throws {
        try await EmulatorHarness.with { harness in
            let document = try await harness.call("GET", "/\(EmulatorHarness.contoso)/v2.0/.well-known/openid-configuration")
            #expect(
                document.json["token_endpoint_auth_methods_supported"] as? [String] == ["none", "client_secret_post", "private_key_jwt"])
            #expect(document.json["token_endpoint_auth_signing_alg_values_supported"] as? [String] == ["RS256", "PS256"])
            #expect((document.json["grant_types_supported"] as? [String])?.contains("client_credentials") == true)
        }
    }
}
