import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// A signed HTTP request, decoded, its signature checked with its own `cnf.jwk`.
private struct SignedRequest {
    var header: [String: Any]
    var claims: [String: Any]
    /// The claims of the access token it carries (`at`).
    var tokenClaims: [String: Any]

    init(_ header: String) throws {
        let prefix = "PoP "
        try #require(header.hasPrefix(prefix), "the Authorization header is PoP <signed request>")
        let segments = header.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(segments.count == 3)
        func object(_ segment: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(segment))) as? [String: Any])
        }
        self.header = try object(segments[0])
        claims = try object(segments[1])
        let jwk = try #require((claims["cnf"] as? [String: Any])?["jwk"] as? [String: Any])
        let key = try JSONWebKey(json: JSONSerialization.data(withJSONObject: jwk))
        #expect(self.header["kid"] as? String == (try key.thumbprint()), "kid is the thumbprint of cnf.jwk")
        let valid = try key.verify(
            signature: Base64URL.decode(segments[2]), over: Array((segments[0] + "." + segments[1]).utf8), algorithm: .rs256)
        #expect(valid, "the signed request verifies with cnf.jwk")
        let token = try #require(claims["at"] as? String).split(separator: ".").map(String.init)
        try #require(token.count == 3)
        tokenClaims = try object(token[1])
    }
}

@Suite("Emulator end to end: MSAL's proof-of-possession tokens (token_type=pop, req_cnf, signed HTTP requests)")
struct ProofOfPossessionSignInTests {
    static let resource = URL(string: "https://graph.example.com/v1.0/me?select=id")!

    static func pop(nonce: String? = nil) -> MSALAuthenticationSchemePop {
        MSALAuthenticationSchemePop(httpMethod: .GET, request: resource, nonce: nonce, additionalParameters: nil)
    }

    @Test(
        "The provider's resource takes a PoP token only inside a signed request for its own URL by the token's key: accepted for /resource/me; refused for another path, another method, another key, and as Bearer"
    )
    func resourceChecksSignedRequests() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let resource = URL(string: harness.emulator.baseURL.absoluteString + "/resource/me")!
            let (parameters, _) = EmulatorHarness.interactive(as: EmulatorHarness.adele)
            parameters.authenticationScheme = MSALAuthenticationSchemePop(
                httpMethod: .GET, request: resource, nonce: nil, additionalParameters: nil)
            let result = try await app.acquireToken(with: parameters)
            let accepted = try await harness.resource(result.authorizationHeader)
            #expect(accepted.status == 200, "\(accepted.text)")
            #expect(accepted.json["userPrincipalName"] as? String == EmulatorHarness.adele)

            func silent(_ url: URL, _ method: MSALHttpMethod = .GET) async throws -> String {
                let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
                parameters.authenticationScheme = MSALAuthenticationSchemePop(
                    httpMethod: method, request: url, nonce: nil, additionalParameters: nil)
                return try await app.acquireTokenSilent(with: parameters).authorizationHeader
            }
            let elsewhere = try await silent(URL(string: harness.emulator.baseURL.absoluteString + "/resource/other")!)
            #expect(try await harness.resource(elsewhere).status == 401)
            #expect(try await harness.resource(try await silent(resource, .POST)).status == 401)
            let accessToken = try #require(try SignedRequest(result.authorizationHeader).claims["at"] as? String)
            let stranger = try SignedHTTPRequest.make(
                key: try ProofKey.generate(.signedHTTPRequest), accessToken: accessToken, method: "GET", url: resource, nonce: nil,
                timestamp: Int64(harness.emulator.now.timeIntervalSince1970))
            let otherKey = try await harness.resource("PoP \(stranger)")
            #expect(otherKey.status == 401 && otherKey.text.contains("another key"))
            let asBearer = try await harness.resource("Bearer \(accessToken)")
            #expect(asBearer.status == 401 && asBearer.text.contains("PoP"))
            #expect(try await harness.resource(try await silent(resource)).status == 200)

            // A hostile header whose refusal quotes it: no quote or line break reaches the challenge.
            let hostile = Base64URL.encode(Array(#"{"alg":"RS256","crit":["x\"y\r\nSet-Cookie: a=b"]}"#.utf8)) + ".e30.c2ln"
            let refused = try await harness.resource("PoP \(hostile)")
            #expect(refused.status == 401)
            let challenge = try #require(refused.headers["www-authenticate"])
            #expect(!challenge.contains("\r") && !challenge.contains("\n") && !challenge.contains("x\"y"), "\(challenge)")
            #expect(refused.headers["set-cookie"] == nil)
        }
    }

    @Test(
        "Interactive sign-in with PoP: the token is bound to the app's key (cnf.kid = req_cnf's kid), and the result presents it as a signed request for the resource request"
    )
    func interactiveSignIn() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let (parameters, _) = EmulatorHarness.interactive(as: EmulatorHarness.adele)
            parameters.authenticationScheme = Self.pop(nonce: "resource-nonce")
            let result = try await app.acquireToken(with: parameters)

            #expect(result.authenticationScheme == "Pop")
            #expect(result.authorizationHeader == "PoP \(result.accessToken)")
            let signed = try SignedRequest(result.authorizationHeader)
            #expect(signed.header["typ"] as? String == "pop" && signed.header["alg"] as? String == "RS256")
            #expect(signed.claims["m"] as? String == "GET" && signed.claims["u"] as? String == "graph.example.com")
            #expect(signed.claims["p"] as? String == "/v1.0/me" && signed.claims["nonce"] as? String == "resource-nonce")
            let now = Int(harness.emulator.now.timeIntervalSince1970)
            #expect(abs((signed.claims["ts"] as? Int ?? 0) - now) <= 5)
            // The emulator bound the token to the key the request named.
            #expect((signed.tokenClaims["cnf"] as? [String: Any])?["kid"] as? String == signed.header["kid"] as? String)
            #expect(harness.emulator.requestCount(.token, grantType: .authorizationCode) == 1)
        }
    }

    @Test(
        "Silent PoP answers from the cache with a new signed request each call; a bearer request never takes the bound token, nor a PoP request the bearer one"
    )
    func silentKeepsSchemesApart() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let signedIn = try await harness.signIn(app, as: EmulatorHarness.adele)
            #expect(signedIn.authenticationScheme == "Bearer" && signedIn.authorizationHeader == "Bearer \(signedIn.accessToken)")
            let account = signedIn.account

            // A PoP request does not take the bearer token: it redeems the refresh token for a bound one.
            let before = harness.emulator.requestCount(.token)
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
            parameters.authenticationScheme = Self.pop()
            let first = try await app.acquireTokenSilent(with: parameters)
            #expect(first.tokenSource == .identityProvider)
            #expect(harness.emulator.requestCount(.token, grantType: .refreshToken) == 1)
            let firstSigned = try SignedRequest(first.authorizationHeader)
            #expect((firstSigned.tokenClaims["cnf"] as? [String: Any])?["kid"] as? String == firstSigned.header["kid"] as? String)

            // Again: from the cache, the same bound token in a new signed request.
            let second = try await app.acquireTokenSilent(with: parameters)
            #expect(second.tokenSource == .cache)
            #expect(harness.emulator.requestCount(.token) == before + 1)
            let secondSigned = try SignedRequest(second.authorizationHeader)
            #expect(secondSigned.claims["at"] as? String == firstSigned.claims["at"] as? String)
            #expect(secondSigned.claims["nonce"] as? String != firstSigned.claims["nonce"] as? String)
            #expect(second.accessToken != first.accessToken)

            // A bearer request still gets the bearer token from the cache: the bound token did not replace it.
            let bearer = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(bearer.tokenSource == .cache && bearer.accessToken == signedIn.accessToken)
            #expect(bearer.authenticationScheme == "Bearer")
            #expect(harness.emulator.requestCount(.token) == before + 1)
        }
    }

    @Test(
        "The cache file keeps a bound token under its own key (accesstoken_with_authscheme, …-pop) with token_type pop and the key's thumbprint; the key is kept beside it (0600), so the next application uses the token; a new key does not"
    )
    func cacheKeysAndKeyBinding() async throws {
        try await EmulatorHarness.with { harness in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-pop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("cache.json").path
            func app() throws -> MSALPublicClientApplication {
                let configuration = MSALPublicClientApplicationConfig(
                    clientId: EmulatorHarness.clientID, redirectUri: nil, authority: try harness.authority())
                configuration.cacheConfig = MSALCacheConfig(storage: .file(path: path))
                configuration.clock = harness.clock
                return try MSALPublicClientApplication(configuration: configuration)
            }
            let first = try app()
            let (interactive, _) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            interactive.authenticationScheme = Self.pop()
            let signedIn = try await first.acquireToken(with: interactive)
            let kid = try #require(try SignedRequest(signedIn.authorizationHeader).header["kid"] as? String)

            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let accessTokens = try #require(document["AccessToken"] as? [String: [String: Any]])
            #expect(accessTokens.count == 1)
            let (key, entry) = try #require(accessTokens.first)
            #expect(key.contains("-accesstoken_with_authscheme-") && key.hasSuffix("-pop"))
            #expect(entry["credential_type"] as? String == "AccessToken" && entry["token_type"] as? String == "pop")
            #expect(entry["key_id"] as? String == kid && entry["kid"] as? String == kid)
            let keyFile = path + ".shr-key.pem"
            let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

            // The next application object (a new process would do the same) reads the kept key: a cache hit.
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
            parameters.authenticationScheme = Self.pop()
            let tokenRequests = harness.emulator.requestCount(.token)
            let again = try await app().acquireTokenSilent(with: parameters)
            #expect(again.tokenSource == .cache)
            #expect(try SignedRequest(again.authorizationHeader).header["kid"] as? String == kid)
            #expect(harness.emulator.requestCount(.token) == tokenRequests)

            // Without the key the cached token cannot be used: a new key, and a token bound to it.
            try FileManager.default.removeItem(atPath: keyFile)
            let refreshed = try await app().acquireTokenSilent(with: parameters)
            #expect(refreshed.tokenSource == .identityProvider)
            let otherKid = try #require(try SignedRequest(refreshed.authorizationHeader).header["kid"] as? String)
            #expect(otherKid != kid)
        }
    }

    @Test("The device code flow with PoP: the poll asks for a bound token, and the result presents it as a signed request")
    func deviceCode() async throws {
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let parameters = MSALTokenParameters(scopes: ["User.Read"])
            parameters.authenticationScheme = Self.pop(nonce: "n-device")
            let result = try await harness.signInWithDeviceCode(app, parameters, as: EmulatorHarness.ben)
            #expect(result.account.username == EmulatorHarness.ben && result.authenticationScheme == "Pop")
            let signed = try SignedRequest(result.authorizationHeader)
            #expect(signed.claims["nonce"] as? String == "n-device")
            #expect((signed.tokenClaims["cnf"] as? [String: Any])?["kid"] as? String == signed.header["kid"] as? String)
        }
    }

    @Test("Bad PoP parameters are typed errors before any request: a resource URL without a host, an unknown scheme type")
    func badParameters() async throws {
        final class OtherScheme: MSALAuthenticationSchemeProtocol {
            var scheme: MSALAuthScheme { .pop }
            var authenticationScheme: String { "Other" }
        }
        try await EmulatorHarness.with { harness in
            let app = try harness.application()
            let signedIn = try await harness.signIn(app, as: EmulatorHarness.adele)
            let before = harness.emulator.requestCount(.token)
            for scheme: any MSALAuthenticationSchemeProtocol in [
                MSALAuthenticationSchemePop(
                    httpMethod: .POST, request: URL(string: "urn:example:resource")!, nonce: nil, additionalParameters: nil),
                OtherScheme(),
            ] {
                let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
                parameters.authenticationScheme = scheme
                await #expect {
                    _ = try await app.acquireTokenSilent(with: parameters)
                } throws: { error in
                    (error as? MSALFailure)?.internalCode == .internalErrorInvalidParameter
                }
            }
            #expect(harness.emulator.requestCount(.token) == before)
        }
    }
}
