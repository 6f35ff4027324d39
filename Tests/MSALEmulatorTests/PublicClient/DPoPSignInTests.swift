import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// The decoded parts of a DPoP proof and of the access token it names.
private struct ProofParts {
    var header: [String: Any]
    var claims: [String: Any]
    /// The RFC 7638 thumbprint of the proof's `jwk`.
    var thumbprint: String

    init(_ proof: String) throws {
        let segments = proof.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(segments.count == 3)
        header = try Self.object(segments[0])
        claims = try Self.object(segments[1])
        let jwk = try #require(header["jwk"] as? [String: Any])
        let key = try JSONWebKey(json: JSONSerialization.data(withJSONObject: jwk))
        thumbprint = try key.thumbprint()
        #expect(
            try key.verify(
                signature: Base64URL.decode(segments[2]), over: Array((segments[0] + "." + segments[1]).utf8), algorithm: .es256),
            "the proof verifies with its own jwk")
    }

    static func object(_ segment: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(segment))) as? [String: Any])
    }

    /// The `cnf.jkt` of a JWT access token.
    static func boundKey(_ accessToken: String) throws -> String? {
        let segments = accessToken.split(separator: ".").map(String.init)
        try #require(segments.count == 3)
        return (try object(segments[1])["cnf"] as? [String: Any])?["jkt"] as? String
    }
}

@Suite("Emulator end to end: DPoP (RFC 9449) — proofs on token requests, dpop_jkt, bound refresh tokens, nonces, the resource's checks")
struct DPoPSignInTests {
    static func resourceURL(_ harness: EmulatorHarness) -> URL {
        URL(string: harness.emulator.baseURL.absoluteString + "/resource/me")!
    }

    /// Calls the emulator's resource with `result`'s DPoP token and `proof`.
    static func callResource(
        _ harness: EmulatorHarness, _ result: MSALResult, proof: String?, scheme: String = "DPoP"
    ) async throws
        -> RawResponse
    {
        var headers = [("Authorization", "\(scheme) \(result.accessToken)")]
        if let proof { headers.append(("DPoP", proof)) }
        return try await harness.call("GET", "/resource/me", headers: headers)
    }

    /// An application whose cache is the file at `path`.
    static func fileApplication(_ harness: EmulatorHarness, path: String) throws -> MSALPublicClientApplication {
        let configuration = MSALPublicClientApplicationConfig(
            clientId: EmulatorHarness.clientID, redirectUri: nil, authority: try harness.authority())
        configuration.cacheConfig = MSALCacheConfig(storage: .file(path: path))
        configuration.clock = harness.clock
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// The cache file at `path` as JSON.
    static func document(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// Runs `body` with the path of a cache file in a new directory, removed afterwards.
    static func withCachePath<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-dpop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory.appendingPathComponent("cache.json").path)
    }

    @Test(
        "Interactive sign-in with DPoP: the code is bound by dpop_jkt and redeemed with a proof, the access token is bound to the key (cnf.jkt), and the resource accepts it only as DPoP with a fresh proof for its request"
    )
    func interactiveSignInAndResource() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let (parameters, webUI) = EmulatorHarness.interactive(as: EmulatorHarness.adele)
            parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
            let result = try await app.acquireToken(with: parameters)

            #expect(result.authenticationScheme == "DPoP")
            #expect(result.authorizationHeader == "DPoP \(result.accessToken)")
            let proof = try result.dpopProof(httpMethod: .GET, requestUrl: Self.resourceURL(harness))
            let parts = try ProofParts(proof)
            #expect(parts.header["typ"] as? String == "dpop+jwt" && parts.header["alg"] as? String == "ES256")
            #expect(try ProofParts.boundKey(result.accessToken) == parts.thumbprint, "the token is bound to the app's DPoP key")
            let authorizationURL = try #require(webUI.authorizationURLs.first)
            let query = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "dpop_jkt" }?.value == parts.thumbprint)

            let accepted = try await Self.callResource(harness, result, proof: proof)
            #expect(accepted.status == 200 && accepted.json["userPrincipalName"] as? String == EmulatorHarness.adele)
            // The same proof again is a replay; a bearer presentation, a missing proof, another method: all refused.
            let replayed = try await Self.callResource(harness, result, proof: proof)
            #expect(replayed.status == 401 && replayed.error == "invalid_dpop_proof")
            let asBearer = try await Self.callResource(harness, result, proof: nil, scheme: "Bearer")
            #expect(asBearer.status == 401 && asBearer.error == "invalid_token")
            let withoutProof = try await Self.callResource(harness, result, proof: nil)
            #expect(withoutProof.status == 401 && withoutProof.error == "invalid_dpop_proof")
            let otherMethod = try result.dpopProof(httpMethod: .POST, requestUrl: Self.resourceURL(harness))
            let wrongMethod = try await Self.callResource(harness, result, proof: otherMethod)
            #expect(wrongMethod.status == 401 && wrongMethod.error == "invalid_dpop_proof")

            // A hostile proof whose refusal quotes its key type: no quote, backslash or line break
            // reaches the challenge header.
            let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"x\"y\\z\r\nSet-Cookie: a=b"}}"#
            let hostile = Base64URL.encode(Array(header.utf8)) + ".e30.c2ln"
            let refused = try await Self.callResource(harness, result, proof: hostile)
            #expect(refused.status == 401 && refused.error == "invalid_dpop_proof")
            let challenge = try #require(refused.headers["www-authenticate"])
            #expect(challenge.contains("kty"), "the refusal names the key type: \(challenge)")
            #expect(
                !challenge.contains("\r") && !challenge.contains("\n") && !challenge.contains("x\"y") && !challenge.contains("\\"),
                "\(challenge)")
            #expect(refused.headers["set-cookie"] == nil)
        }
    }

    @Test(
        "Silent DPoP: a cache hit without a request; a forced refresh redeems the bound refresh token with a proof; a bearer request for the account is refused before anything is sent"
    )
    func silentWithBoundRefreshToken() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let (interactive, _) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            interactive.authenticationScheme = MSALAuthenticationSchemeDPoP()
            let signedIn = try await app.acquireToken(with: interactive)
            let before = harness.emulator.requestCount(.token)

            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
            parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
            let cached = try await app.acquireTokenSilent(with: parameters)
            #expect(cached.tokenSource == .cache && cached.accessToken == signedIn.accessToken && cached.authenticationScheme == "DPoP")
            #expect(harness.emulator.requestCount(.token) == before)

            parameters.forceRefresh = true
            let refreshed = try await app.acquireTokenSilent(with: parameters)
            #expect(refreshed.tokenSource == .identityProvider && refreshed.accessToken != signedIn.accessToken)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)
            #expect(try ProofParts.boundKey(refreshed.accessToken) == ProofParts.boundKey(signedIn.accessToken))
            let proof = try refreshed.dpopProof(httpMethod: .GET, requestUrl: Self.resourceURL(harness))
            #expect(try await Self.callResource(harness, refreshed, proof: proof).status == 200)

            // The refresh token is bound: a bearer request cannot use it, and says why.
            let sent = harness.emulator.requestCount(.token)
            await #expect {
                _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
            } throws: { error in
                let failure = error as? MSALFailure
                return failure?.internalCode == .internalErrorInvalidParameter && failure?.message.contains("DPoP") == true
            }
            #expect(harness.emulator.requestCount(.token) == sent)
        }
    }

    @Test(
        "Nonces (RFC 9449 §8–9): the token endpoint's use_dpop_nonce is answered by the library with one more request; the resource's nonce challenge is read with MSALResult.dpopNonce and answered with a new proof; a rotated nonce is answered again"
    )
    func nonces() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            harness.emulator.requireDPoPNonce(true)
            let (interactive, _) = EmulatorHarness.interactive(as: EmulatorHarness.adele)
            interactive.authenticationScheme = MSALAuthenticationSchemeDPoP()
            let result = try await app.acquireToken(with: interactive)
            #expect(
                harness.emulator.requestCount(.token, grantType: .authorizationCode) == 2,
                "one use_dpop_nonce answer, then the code redeemed")

            // The resource asks for its nonce; the answer names it, and a proof with it is accepted.
            let first = try await Self.callResource(
                harness, result, proof: try result.dpopProof(httpMethod: .GET, requestUrl: Self.resourceURL(harness)))
            #expect(first.status == 401 && first.error == "use_dpop_nonce")
            let nonce = try #require(
                MSALResult.dpopNonce(wwwAuthenticate: first.headers["www-authenticate"], dpopNonce: first.headers["dpop-nonce"]))
            let second = try await Self.callResource(
                harness, result, proof: try result.dpopProof(httpMethod: .GET, requestUrl: Self.resourceURL(harness), nonce: nonce))
            #expect(second.status == 200)

            // A new nonce: the token endpoint's refusal is answered again, once.
            harness.emulator.requireDPoPNonce(true)
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
            parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
            parameters.forceRefresh = true
            let refreshed = try await app.acquireTokenSilent(with: parameters)
            #expect(refreshed.tokenSource == .identityProvider)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 2)
        }
    }

    @Test("The device code flow with DPoP: the poll carries the proof and the token is bound to the app's key")
    func deviceCode() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let parameters = MSALTokenParameters(scopes: ["User.Read"])
            parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
            let result = try await harness.signInWithDeviceCode(app, parameters, as: EmulatorHarness.ben)
            #expect(result.authenticationScheme == "DPoP")
            let proof = try result.dpopProof(httpMethod: .GET, requestUrl: Self.resourceURL(harness))
            #expect(try ProofParts.boundKey(result.accessToken) == ProofParts(proof).thumbprint)
            #expect(try await Self.callResource(harness, result, proof: proof).status == 200)
        }
    }

    @Test(
        "With a cache file the DPoP key is kept beside it (0600) and the next application uses the bound tokens; when the key is gone, the bound refresh token is not sent and the user must sign in"
    )
    func keptKeyAndLostKey() async throws {
        try await EmulatorHarness.with { harness in
            try await Self.withCachePath { path in
                func app() throws -> MSALPublicClientApplication { try Self.fileApplication(harness, path: path) }
                let (interactive, _) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
                interactive.authenticationScheme = MSALAuthenticationSchemeDPoP()
                let signedIn = try await app().acquireToken(with: interactive)

                let document = try Self.document(path)
                let (key, entry) = try #require((document["AccessToken"] as? [String: [String: Any]])?.first)
                let thumbprint = try #require(try ProofParts.boundKey(signedIn.accessToken))
                #expect(key.contains("-accesstoken_with_authscheme-") && key.hasSuffix("-dpop"))
                #expect(entry["token_type"] as? String == "DPoP" && entry["key_id"] as? String == thumbprint)
                let refreshToken = try #require((document["RefreshToken"] as? [String: [String: Any]])?.first?.value)
                #expect(refreshToken["key_id"] as? String == thumbprint, "the public client's refresh token is marked bound")
                let keyFile = path + ".dpop-key.pem"
                let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

                let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
                parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
                let again = try await app().acquireTokenSilent(with: parameters)
                #expect(again.tokenSource == .cache && again.accessToken == signedIn.accessToken)

                try FileManager.default.removeItem(atPath: keyFile)
                let sent = harness.emulator.requestCount(.token)
                await #expect {
                    _ = try await app().acquireTokenSilent(with: parameters)
                } throws: { error in
                    (error as? MSALFailure)?.code == .interactionRequired
                }
                #expect(harness.emulator.requestCount(.token) == sent, "the bound refresh token was not sent without its key")
            }
        }
    }

    @Test(
        "The emulator's token endpoint refuses what a server must: a proof for another URL, a replayed proof, a bound refresh token without a proof — each invalid_dpop_proof, and the refresh token stays usable"
    )
    func tokenEndpointRefusals() async throws {
        try await EmulatorHarness.with { harness in
            try await Self.withCachePath { path in
                let app = try Self.fileApplication(harness, path: path)
                let (interactive, _) = EmulatorHarness.interactive(as: EmulatorHarness.adele)
                interactive.authenticationScheme = MSALAuthenticationSchemeDPoP()
                let signedIn = try await app.acquireToken(with: interactive)
                let tokenPath = "/\(EmulatorHarness.contoso)/oauth2/v2.0/token"
                let tokenURL = URL(string: harness.emulator.baseURL.absoluteString + tokenPath)!
                let refreshToken = try #require(
                    ((Self.document(path)["RefreshToken"] as? [String: [String: Any]])?.first?.value)?["secret"] as? String)
                let form = [
                    ("client_id", EmulatorHarness.clientID), ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                    ("scope", "User.Read openid profile offline_access"),
                ]
                let withoutProof = try await harness.call("POST", tokenPath, form: form)
                #expect(withoutProof.status == 400 && withoutProof.error == "invalid_dpop_proof")
                // A proof for the resource, not the token endpoint.
                let elsewhere = try signedIn.dpopProof(httpMethod: .POST, requestUrl: Self.resourceURL(harness))
                let wrongURL = try await harness.call("POST", tokenPath, headers: [("DPoP", elsewhere)], form: form)
                #expect(wrongURL.status == 400 && wrongURL.error == "invalid_dpop_proof")
                // A proof for the token endpoint works once; the same proof again is a replay.
                let good = try signedIn.dpopProof(httpMethod: .POST, requestUrl: tokenURL)
                let redeemed = try await harness.call("POST", tokenPath, headers: [("DPoP", good)], form: form)
                #expect(redeemed.status == 200 && redeemed.json["token_type"] as? String == "DPoP")
                let newRefreshToken = try #require(redeemed.json["refresh_token"] as? String)
                let replay = [
                    ("client_id", EmulatorHarness.clientID), ("grant_type", "refresh_token"), ("refresh_token", newRefreshToken),
                    ("scope", "User.Read openid profile offline_access"),
                ]
                let replayed = try await harness.call("POST", tokenPath, headers: [("DPoP", good)], form: replay)
                #expect(replayed.status == 400 && replayed.error == "invalid_dpop_proof")
            }
        }
    }

    @Test(
        "Injected DPoP refusals (a wrong htu, a replayed jti, an expired proof): the token endpoint's invalid_dpop_proof is a typed error after one request, no retry, nothing cached; the resource's 401 carries the DPoP challenge, which is not a nonce request",
        arguments: MSALEmulator.Fault.DPoPProofFault.allCases)
    func injectedRefusals(fault: MSALEmulator.Fault.DPoPProofFault) async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let (interactive, _) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            interactive.authenticationScheme = MSALAuthenticationSchemeDPoP()
            let signedIn = try await app.acquireToken(with: interactive)

            harness.emulator.inject(.init(.dpopProofRefused(fault), grantType: .refreshToken, times: 1))
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
            parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
            parameters.forceRefresh = true
            let before = harness.emulator.requestCount(.token, grantType: .refreshToken)
            let refused = await #expect(throws: MSALFailure.self) { try await app.acquireTokenSilent(with: parameters) }
            #expect(refused?.oauthError == "invalid_dpop_proof" && refused?.httpStatusCode == 400, "\(String(describing: refused))")
            #expect(refused?.code == .internal && refused?.internalCode == .dpopProofInvalid, "not interactionRequired: the proof failed")
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == before + 1, "no retry of a refused proof")
            parameters.forceRefresh = false
            let cached = try await app.acquireTokenSilent(with: parameters)
            #expect(cached.tokenSource == .cache && cached.accessToken == signedIn.accessToken, "the refusal changed nothing cached")
            // The fault is spent, nothing throttled it, and the refresh token is still good.
            parameters.forceRefresh = true
            #expect(try await app.acquireTokenSilent(with: parameters).tokenSource == .identityProvider)

            harness.emulator.inject(.init(.dpopProofRefused(fault), endpoint: .resource, times: 1))
            let proof = try signedIn.dpopProof(httpMethod: .GET, requestUrl: Self.resourceURL(harness))
            let answer = try await Self.callResource(harness, signedIn, proof: proof)
            #expect(answer.status == 401)
            let challenge = try #require(answer.headers["www-authenticate"], "\(answer.headers)")
            #expect(challenge.hasPrefix("DPoP ") && challenge.contains("error=\"invalid_dpop_proof\""))
            #expect(MSALResult.dpopNonce(wwwAuthenticate: challenge, dpopNonce: "n-1") == nil)
        }
    }

}
