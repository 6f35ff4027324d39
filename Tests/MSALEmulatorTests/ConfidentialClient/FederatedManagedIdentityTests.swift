import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

/// Federated managed identity (FMI) and the request extras of `acquireTokenForClient` against the
/// emulator over loopback HTTP: `fmi_path` in the body and tokens cached apart per path, extra
/// body parameters, the assertion provider's request context, `sendX5C` per request and extra
/// claims in a certificate's assertion; bad input refused before anything is sent.
@Suite("Confidential client: FMI paths, extra body parameters and the assertion's context")
struct FederatedManagedIdentityTests {
    typealias Grant = ClientCredentialsGrantTests
    typealias Client = ConfidentialClientTests

    static let exchange = "api://AzureADTokenExchange/.default"

    static func parameters(fmiPath: String? = nil, extra: [String: String]? = nil) -> MSALClientCredentialParameters {
        let parameters = MSALClientCredentialParameters(scopes: [Self.exchange])
        parameters.fmiPath = fmiPath
        parameters.extraBodyParameters = extra
        return parameters
    }

    static func application(
        _ harness: EmulatorHarness, credential: MSALClientCredential = .secret(Grant.secret), clientID: String = Grant.secretClientID,
        transport: (any MSALHTTPTransport)? = nil
    ) throws -> MSALConfidentialClientApplication {
        let configuration = MSALConfidentialClientApplicationConfig(
            clientId: clientID, clientCredential: credential, authority: try harness.authority(EmulatorHarness.contoso))
        configuration.clock = harness.clock
        configuration.transport = transport
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    /// The forms of the client-credentials requests the emulator logged.
    static func forms(_ harness: EmulatorHarness) -> [[String: String]] {
        harness.emulator.requests.filter { $0.grantType == .clientCredentials }.map(\.form)
    }

    @Test("fmi_path is sent; each path's token is cached apart from the others and from the plain token, memo included")
    func pathsAreCachedApart() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness)
            let first = try await app.acquireTokenForClient(with: Self.parameters(fmiPath: "agents/a"))
            #expect(first.tokenSource == .identityProvider)
            #expect(try JWT.decodeUnverified(first.accessToken).stringClaim("fmi_path") == "agents/a")
            #expect(Self.forms(harness).last?["fmi_path"] == "agents/a")

            let again = try await app.acquireTokenForClient(with: Self.parameters(fmiPath: "agents/a"))
            #expect(again.tokenSource == .cache)
            #expect(again.accessToken == first.accessToken)
            // The remembered hit of path a is not path b's, nor the plain request's.
            let second = try await app.acquireTokenForClient(with: Self.parameters(fmiPath: "agents/b"))
            #expect(second.tokenSource == .identityProvider)
            #expect(try JWT.decodeUnverified(second.accessToken).stringClaim("fmi_path") == "agents/b")
            let plain = try await app.acquireTokenForClient(with: Self.parameters())
            #expect(plain.tokenSource == .identityProvider)
            #expect(try JWT.decodeUnverified(plain.accessToken).stringClaim("fmi_path") == nil)
            #expect(Self.forms(harness).last?["fmi_path"] == nil)
            #expect(Client.grants(harness) == 3)

            // Each is answered from the cache from now on, with its own token.
            #expect(try await app.acquireTokenForClient(with: Self.parameters(fmiPath: "agents/a")).accessToken == first.accessToken)
            #expect(try await app.acquireTokenForClient(with: Self.parameters(fmiPath: "agents/b")).accessToken == second.accessToken)
            #expect(try await app.acquireTokenForClient(with: Self.parameters()).accessToken == plain.accessToken)
            #expect(Client.grants(harness) == 3)
        }
    }

    @Test("Extra body parameters are sent and key the token: other values, or none, ask again; an empty value is sent but keys nothing")
    func extraBodyParameters() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness)
            let first = try await app.acquireTokenForClient(with: Self.parameters(extra: ["custom_param": "v1"]))
            #expect(Self.forms(harness).last?["custom_param"] == "v1")
            #expect(try await app.acquireTokenForClient(with: Self.parameters(extra: ["custom_param": "v1"])).tokenSource == .cache)
            let other = try await app.acquireTokenForClient(with: Self.parameters(extra: ["custom_param": "v2"]))
            #expect(other.tokenSource == .identityProvider)
            #expect(other.accessToken != first.accessToken)
            #expect(try await app.acquireTokenForClient(with: Self.parameters()).tokenSource == .identityProvider)
            #expect(Client.grants(harness) == 3)
            // An empty value adds no key: the plain token answers, and the field is still sent when asked for.
            let empty = try await app.acquireTokenForClient(with: Self.parameters(extra: ["custom_param": ""]))
            #expect(empty.tokenSource == .cache)
            let forced = Self.parameters(extra: ["custom_param": ""])
            forced.forceRefresh = true
            _ = try await app.acquireTokenForClient(with: forced)
            #expect(Self.forms(harness).last?["custom_param"] == "")
        }
    }

    @Test(
        "Bad FMI paths and extra parameters are typed invalid-parameter errors, before anything is sent",
        arguments: [
            ("traversal", "agents/../admin", nil), ("dot segment", "agents/./a", nil), ("leading slash", "/agents/a", nil),
            ("space", "agents/a b", nil), ("tab", "agents/a\tb", nil), ("line break", "agents/a\nb", nil),
            ("backslash", "agents\\a", nil), ("empty", "", nil), ("257 bytes", String(repeating: "a", count: 257), nil),
            ("reserved extra", nil, "client_assertion"), ("reserved extra, another case", nil, "Scope"),
            ("fmi_path as an extra", nil, "fmi_path"), ("extra with a space", nil, "custom param"),
        ] as [(String, String?, String?)])
    func badInput(name: String, fmiPath: String?, extraName: String?) async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness)
            let parameters = Self.parameters(fmiPath: fmiPath, extra: extraName.map { [$0: "x"] })
            let correlationID = UUID()
            parameters.correlationId = correlationID
            let error = try #require(await Client.msalError { _ = try await app.acquireTokenForClient(with: parameters) })
            #expect(error.internalCode == .internalErrorInvalidParameter, "\(name)")
            #expect(error.correlationID == correlationID)
            #expect(harness.emulator.requests.isEmpty, "nothing was sent for \(name)")
        }
    }

    @Test("The longest path (256 bytes) and non-ASCII segments are sent as given")
    func boundaryPaths() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness)
            for path in [String(repeating: "a", count: 256), "agents/équipe-ü/1"] {
                _ = try await app.acquireTokenForClient(with: Self.parameters(fmiPath: path))
                #expect(Self.forms(harness).last?["fmi_path"] == path)
            }
        }
    }

    @Test("The assertion provider is told the client, endpoint, FMI path for the assertion, claims and capabilities; the path is not sent")
    func assertionProviderContext() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let seen = Mutex<[MSALClientAssertionRequest]>([])
            let signer = try Grant.credential()
            let credential = MSALClientCredential.assertion { request in
                seen.withLock { $0.append(request) }
                return try signer.signAssertion(
                    clientID: request.clientId, audience: request.tokenEndpoint,
                    issuedAt: Int64(harness.emulator.now.timeIntervalSince1970),
                    lifetime: 600, jwtID: UUID().uuidString, thumbprint: .sha256, sendX5C: false)
            }
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: Grant.certificateClientID, clientCredential: credential, authority: try harness.authority(EmulatorHarness.contoso)
            )
            configuration.clock = harness.clock
            configuration.clientApplicationCapabilities = ["CP1"]
            let app = try MSALConfidentialClientApplication(configuration: configuration)
            let parameters = Self.parameters(fmiPath: "agents/instance-1")
            parameters.fmiPathForClientAssertion = "agents/blueprint"
            _ = try await app.acquireTokenForClient(with: parameters)
            let request = try #require(seen.withLock { $0 }.first)
            #expect(request.clientId == Grant.certificateClientID)
            #expect(request.tokenEndpoint.hasSuffix("/\(EmulatorHarness.contoso)/oauth2/v2.0/token"))
            #expect(request.clientAssertionFmiPath == "agents/blueprint")
            #expect(request.clientCapabilities == ["CP1"])
            #expect(request.claims?.contains("CP1") == true)
            let form = try #require(Self.forms(harness).last)
            #expect(form["fmi_path"] == "agents/instance-1")
            #expect(!form.values.contains("agents/blueprint"))
        }
    }

    @Test("sendX5C per request overrides the credential's; extra claims are signed into the certificate's assertion")
    func certificateAssertionOptions() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let transport = FormRecordingTransport()
            let certificate = try MSALClientCertificate(
                privateKeyPEM: Grant.material.privateKeyPEM, certificatePEM: Grant.material.certificatePEM)
            let app = try Self.application(
                harness,
                credential: .certificate(certificate, sendX5C: false, extraClaims: ["xms_ficpath": "agents/a", "tenant_hint": "t"]),
                clientID: Grant.certificateClientID, transport: transport)
            func assertion(_ index: Int) throws -> (header: [String: Any], claims: JWT) {
                let value = try #require(transport.forms[index].first { $0.name == "client_assertion" }?.value)
                let header = try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(String(value.split(separator: ".")[0]))))
                return (try #require(header as? [String: Any]), try JWT.decodeUnverified(value))
            }
            _ = try await app.acquireTokenForClient(with: Self.parameters())
            let plain = try assertion(0)
            #expect(plain.header["x5c"] == nil)
            #expect(plain.claims.stringClaim("xms_ficpath") == "agents/a")
            #expect(plain.claims.stringClaim("tenant_hint") == "t")
            #expect(plain.claims.stringClaim("iss") == Grant.certificateClientID)

            let withChain = Self.parameters(fmiPath: "agents/a")
            withChain.sendX5C = true
            _ = try await app.acquireTokenForClient(with: withChain)
            #expect(try assertion(1).header["x5c"] != nil)
            #expect(Client.grants(harness) == 2, "the emulator took both assertions")
        }
    }

    @Test("sendX5C per request on on-behalf-of and user FIC requests")
    func perRequestChainOnUserRequests() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let transport = FormRecordingTransport()
            let certificate = try MSALClientCertificate(
                privateKeyPEM: Grant.material.privateKeyPEM, certificatePEM: Grant.material.certificatePEM)
            let app = try Self.application(
                harness, credential: .certificate(certificate), clientID: Grant.certificateClientID, transport: transport)
            func sendsChain(_ index: Int) throws -> Bool {
                let value = try #require(transport.forms[index].first { $0.name == "client_assertion" }?.value)
                let header = try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(String(value.split(separator: ".")[0]))))
                return try #require(header as? [String: Any])["x5c"] != nil
            }
            // On behalf of a user whose token names this client as its audience.
            let user = try harness.application(tenant: EmulatorHarness.contoso)
            let incoming = try await harness.signIn(
                user, as: EmulatorHarness.adele, scopes: ["api://\(Grant.certificateClientID)/access_as_user"])
            let onBehalf = MSALOnBehalfOfParameters(scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: incoming.accessToken)
            onBehalf.sendX5C = true
            _ = try await app.acquireTokenOnBehalfOf(with: onBehalf)
            #expect(try sendsChain(0))

            // The agent's user FIC request, with and without the chain.
            let instance = MSALClientCredentialParameters(scopes: [Self.exchange])
            _ = try await app.acquireTokenForClient(with: instance)
            #expect(try !sendsChain(1))
            let fic = MSALUserFederatedIdentityCredentialParameters(
                scopes: ["User.Read"], assertion: try await app.acquireTokenForClient(with: instance).accessToken,
                username: EmulatorHarness.ben)
            fic.sendX5C = true
            _ = try await app.acquireTokenByUserFederatedIdentityCredential(with: fic)
            #expect(try sendsChain(2))
        }
    }

    @Test("The assertion providers of on-behalf-of, user FIC, silent and migration requests are told the claims sent and the capabilities")
    func assertionContextOnUserRequests() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let seen = Mutex<[MSALClientAssertionRequest]>([])
            let signer = try Grant.credential()
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: Grant.certificateClientID,
                clientCredential: .assertion { request in
                    seen.withLock { $0.append(request) }
                    return try signer.signAssertion(
                        clientID: request.clientId, audience: request.tokenEndpoint,
                        issuedAt: Int64(harness.emulator.now.timeIntervalSince1970), lifetime: 600, jwtID: UUID().uuidString,
                        thumbprint: .sha256, sendX5C: false)
                }, authority: try harness.authority(EmulatorHarness.contoso))
            configuration.clock = harness.clock
            configuration.clientApplicationCapabilities = ["CP1"]
            let app = try MSALConfidentialClientApplication(configuration: configuration)
            func expectToldCapabilities(_ what: String) throws {
                let request = try #require(seen.withLock { $0.last }, "\(what)")
                #expect(request.clientCapabilities == ["CP1"], "\(what)")
                #expect(request.claims?.contains("CP1") == true, "\(what)")
                let form = try #require(harness.emulator.requests.last { $0.endpoint == .token }?.form)
                #expect(form["claims"] == request.claims, "\(what): the provider is told the claims the request sent")
            }
            let user = try harness.application(tenant: EmulatorHarness.contoso)
            let incoming = try await harness.signIn(
                user, as: EmulatorHarness.adele, scopes: ["api://\(Grant.certificateClientID)/access_as_user"])
            _ = try await app.acquireTokenOnBehalfOf(userAssertion: incoming.accessToken, scopes: ["https://graph.microsoft.com/User.Read"])
            try expectToldCapabilities("on-behalf-of")

            let instance = try await app.acquireTokenForClient(scopes: [Self.exchange]).accessToken
            let fic = MSALUserFederatedIdentityCredentialParameters(
                scopes: ["User.Read"], assertion: instance, username: EmulatorHarness.ben)
            let ben = try await app.acquireTokenByUserFederatedIdentityCredential(with: fic)
            try expectToldCapabilities("user FIC")

            let forced = MSALSilentTokenParameters(scopes: ["User.Read"], account: ben.account)
            forced.forceRefresh = true
            _ = try await app.acquireTokenSilent(with: forced)
            try expectToldCapabilities("a silent refresh")

            let brought = try harness.emulator.mintRefreshToken(of: EmulatorHarness.adele, clientID: Grant.certificateClientID)
            _ = try await app.acquireToken(byRefreshToken: brought, scopes: ["User.Read"])
            try expectToldCapabilities("a migration")
        }
    }

    @Test("A bad fmiPathForClientAssertion is refused even when the same token was just remembered for a plain request")
    func assertionPathCheckedOnRememberedHits() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Self.application(harness)
            _ = try await app.acquireTokenForClient(with: Self.parameters())
            _ = try await app.acquireTokenForClient(with: Self.parameters())  // a cache hit, now remembered
            let bad = Self.parameters()
            bad.fmiPathForClientAssertion = "agents/../root"
            let error = try #require(await Client.msalError { _ = try await app.acquireTokenForClient(with: bad) })
            #expect(error.internalCode == .internalErrorInvalidParameter)
            #expect(Client.grants(harness) == 1)
        }
    }

    @Test("Extra assertion claims that would replace a registered claim, or too many, fail the application's creation")
    func refusedExtraClaims() throws {
        let certificate = try MSALClientCertificate(
            privateKeyPEM: Grant.material.privateKeyPEM, certificatePEM: Grant.material.certificatePEM)
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.example")!)
        for claims in [["aud": "x"], ["exp": "1"], ["": "x"], Dictionary(uniqueKeysWithValues: (0..<17).map { ("c\($0)", "v") })] {
            #expect {
                _ = try MSALConfidentialClientApplication(
                    clientId: Grant.certificateClientID, clientCredential: .certificate(certificate, extraClaims: claims),
                    authority: authority)
            } throws: { ($0 as? MSALFailure)?.internalCode == .internalErrorInvalidParameter }
        }
    }
}
