import Foundation
import MSALJOSE
import MSALJSON
import Testing

@testable import MSAL

/// A compact DPoP proof split into its decoded header and claims, its signature checked with the
/// `jwk` of its own header.
private struct DecodedProof {
    var header: [String: Any]
    var claims: [String: Any]

    init(_ token: String) throws {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(segments.count == 3)
        header = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(segments[0]))) as? [String: Any])
        claims = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(segments[1]))) as? [String: Any])
        let keyObject = try #require(header["jwk"] as? [String: Any])
        let key = try JSONWebKey(json: JSONSerialization.data(withJSONObject: keyObject))
        let algorithm = try #require(JWSAlgorithm(rawValue: header["alg"] as? String ?? ""))
        let valid = try key.verify(
            signature: Base64URL.decode(segments[2]), over: Array((segments[0] + "." + segments[1]).utf8), algorithm: algorithm)
        #expect(valid, "the signature verifies with the key the proof carries")
    }

    var jwk: [String: String]? { header["jwk"] as? [String: String] }
    var jti: String? { claims["jti"] as? String }
    var htm: String? { claims["htm"] as? String }
    var htu: String? { claims["htu"] as? String }
    var nonce: String? { claims["nonce"] as? String }
    var iat: Int? { claims["iat"] as? Int }
}

@Suite("DPoP client support (RFC 9449): challenges, nonces, resource proofs, token requests, schemes and dpop_jkt")
struct DPoPClientTests {
    static let key = Result { try ProofKey.generate(.dpop) }

    /// The key's public JWK as a JSON object of strings, as a proof's header carries it.
    fileprivate static func publicJWK(_ key: ProofKey) throws -> [String: String] {
        try #require(try JSONSerialization.jsonObject(with: Data(JSONWriter.write(key.publicJWK))) as? [String: String])
    }

    /// The proof a request carries in its `DPoP` header, decoded and verified.
    fileprivate static func proof(_ request: MSALHTTPRequest?) throws -> DecodedProof {
        let request = try #require(request)
        #expect(request.headers.values(of: "DPoP").count == 1, "exactly one DPoP header")
        return try DecodedProof(try #require(request.headers["DPoP"]))
    }
}

// MARK: - WWW-Authenticate challenges

extension DPoPClientTests {
    @Suite("WWW-Authenticate challenges (RFC 9110 §11.6.1, RFC 9449 §7.1)")
    struct Challenges {
        @Test("RFC 9449 §9's challenge asks for a nonce, with its error and error_description read as parameters")
        func rfcChallenge() {
            let header = #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#
            #expect(DPoPChallenge.asksForNonce(header))
            #expect(
                DPoPChallenge.challenges(header) == [
                    DPoPChallenge.Challenge(
                        scheme: "DPoP",
                        parameters: ["error": "use_dpop_nonce", "error_description": "Resource server requires nonce in DPoP proof"])
                ])
        }

        @Test("Several challenges in one header: each gets its own parameters, and the DPoP one is found after a Bearer one")
        func severalChallenges() {
            let header = #"Bearer realm="x", DPoP algs="ES256", error="use_dpop_nonce""#
            #expect(DPoPChallenge.asksForNonce(header))
            #expect(
                DPoPChallenge.challenges(header) == [
                    DPoPChallenge.Challenge(scheme: "Bearer", parameters: ["realm": "x"]),
                    DPoPChallenge.Challenge(scheme: "DPoP", parameters: ["algs": "ES256", "error": "use_dpop_nonce"]),
                ])
            // The same error on another scheme is not a DPoP challenge.
            #expect(!DPoPChallenge.asksForNonce(#"Bearer error="use_dpop_nonce", DPoP algs="ES256""#))
        }

        @Test("The scheme and parameter names are read ignoring case; the error value is not")
        func caseInsensitiveScheme() {
            for header in [
                #"dpop error="use_dpop_nonce""#, #"DPOP error="use_dpop_nonce""#, #"DpOp ERROR="use_dpop_nonce""#,
                #"Bearer realm="x", dPoP Error=use_dpop_nonce"#,
            ] {
                #expect(DPoPChallenge.asksForNonce(header), "\(header)")
            }
            #expect(!DPoPChallenge.asksForNonce(#"DPoP error="USE_DPOP_NONCE""#))
        }

        @Test("Quoted strings: backslash escapes are undone, and commas, quotes and scheme names inside one are only text")
        func quotedStrings() {
            let header = #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#
            #expect(
                DPoPChallenge.challenges(header) == [
                    DPoPChallenge.Challenge(scheme: "Newauth", parameters: ["realm": "apps", "type": "1", "title": #"Login to "apps""#]),
                    DPoPChallenge.Challenge(scheme: "Basic", parameters: ["realm": "simple"]),
                ])
            #expect(DPoPChallenge.asksForNonce(#"DPoP error="use\_dpop\_nonce""#), "a quoted-pair stands for its character")
            let disguised = #"Bearer realm="a \"quoted\" realm, DPoP error=use_dpop_nonce", error="invalid_token""#
            #expect(!DPoPChallenge.asksForNonce(disguised))
            #expect(
                DPoPChallenge.challenges(disguised) == [
                    DPoPChallenge.Challenge(
                        scheme: "Bearer", parameters: ["realm": #"a "quoted" realm, DPoP error=use_dpop_nonce"#, "error": "invalid_token"])
                ])
        }

        @Test("A token68 (Basic credentials with = padding) neither becomes a parameter nor hides the DPoP challenge after it")
        func token68() {
            let header = #"Basic dXNlcjpwYXNz==, DPoP error="use_dpop_nonce""#
            #expect(DPoPChallenge.asksForNonce(header))
            #expect(
                DPoPChallenge.challenges(header) == [
                    DPoPChallenge.Challenge(scheme: "Basic", parameters: [:]),
                    DPoPChallenge.Challenge(scheme: "DPoP", parameters: ["error": "use_dpop_nonce"]),
                ])
            #expect(!DPoPChallenge.asksForNonce("Basic dXNlcjpwYXNz=="))
            #expect(DPoPChallenge.challenges("Basic dXNlcjpwYXNz==") == [DPoPChallenge.Challenge(scheme: "Basic", parameters: [:])])
            #expect(DPoPChallenge.asksForNonce(#"Basic dXNlcjpwYXNzd29yZA, DPoP error="use_dpop_nonce""#), "a token68 without padding")
        }

        @Test("A DPoP challenge with another error, without an error, or repeating error after invalid_token does not ask for a nonce")
        func otherErrors() {
            #expect(!DPoPChallenge.asksForNonce(#"DPoP error="invalid_token""#))
            #expect(!DPoPChallenge.asksForNonce(#"DPoP error="invalid_dpop_proof", error_description="Invalid DPoP key binding""#))
            #expect(!DPoPChallenge.asksForNonce(#"DPoP algs="ES256 PS256""#))
            #expect(!DPoPChallenge.asksForNonce("DPoP"))
            #expect(
                !DPoPChallenge.asksForNonce(#"DPoP error="invalid_token", error="use_dpop_nonce""#), "the first of a repeated parameter")
            #expect(!DPoPChallenge.asksForNonce(#"error="use_dpop_nonce""#), "a parameter without a challenge")
        }

        @Test("A quoted string without its closing quote does not parse: the parameter is dropped, so it is not trusted")
        func unterminatedQuotedString() {
            #expect(!DPoPChallenge.asksForNonce(#"DPoP error="use_dpop_nonce"#))
            #expect(DPoPChallenge.challenges(#"DPoP error="use_dpop_nonce"#) == [DPoPChallenge.Challenge(scheme: "DPoP", parameters: [:])])
            #expect(DPoPChallenge.asksForNonce(#"DPoP error="use_dpop_nonce", realm="open"#))
        }

        @Test("Garbage, empty, non-ASCII and very long headers (past the 8192-byte cut) are read without crashing and ask for nothing")
        func garbage() {
            let long = String(repeating: "x", count: DPoPChallenge.maximumLength + 10)
            let headers = [
                "", " ", ",,,,", "=====", #"""""#, "\\", #"DPoP error=""#, #"DPoP error=\"#, "DPoP error=", #"DPoP ="use_dpop_nonce""#,
                "\u{0}\u{1}\u{7F}", #"DPöP error="use_dpop_nonce""#, "😀 DPoP😀 error=😀",
                long, long + #", DPoP error="use_dpop_nonce""#,
                String(repeating: #"""#, count: 20_000), String(repeating: "=", count: 20_000), String(repeating: "\\", count: 20_000),
                String(repeating: ", ", count: 20_000), "DPoP error=\"" + String(repeating: "\\\"", count: 20_000),
                String(repeating: "a=b ", count: 20_000), String(repeating: "é", count: 20_000),
            ]
            for header in headers {
                #expect(!DPoPChallenge.asksForNonce(header), "\(header.prefix(40))")
            }
        }

        @Test("A long header whose DPoP challenge lies inside the first 8192 bytes still asks for a nonce; one cut short there does not")
        func longHeaders() {
            let tail = String(repeating: #", Other realm="padding""#, count: 1000)
            #expect((#"DPoP error="use_dpop_nonce""# + tail).utf8.count > DPoPChallenge.maximumLength)
            #expect(DPoPChallenge.asksForNonce(#"DPoP error="use_dpop_nonce""# + tail))
            #expect(DPoPChallenge.asksForNonce(String(repeating: #"DPoP error="use_dpop_nonce", "#, count: 1000)))
            let padding = String(repeating: "a", count: DPoPChallenge.maximumLength - 4)
            #expect(!DPoPChallenge.asksForNonce("Bearer realm=\(padding), DPoP error=use_dpop_nonce"))
        }
    }
}

// MARK: - Nonce memory

extension DPoPClientTests {
    @Suite("DPoP nonces: RFC 9449 §8.1's NQCHAR, one per origin, at most 32 origins")
    struct Nonces {
        @Test("A nonce is 1 to 1024 of %x21 / %x23-5B / %x5D-7E: empty, too long, quote, backslash, space, controls and non-ASCII are not")
        func validity() {
            for valid in [
                "!", "~", "n1", "eyJ7S_zG.eyJH0-Z.HX4w-7v", String(repeating: "a", count: 1024), "#$%&'()*+,-./0123456789:;<=>?@[]^_`{|}",
            ] {
                #expect(DPoPNonces.isValid(valid), "\(valid.prefix(40))")
            }
            for invalid in [
                "", String(repeating: "a", count: 1025), #"a"b"#, #"a\b"#, "a b", " ", "a\tb", "a\nb", "\u{7F}", "\u{0}", "nonce-é", "😀",
                "\u{00A0}",
            ] {
                #expect(!DPoPNonces.isValid(invalid), "\(invalid.prefix(40))")
            }
        }

        @Test("The origin: scheme and host in lower case, the default port left out, another port kept, path, query and fragment ignored")
        func origins() throws {
            let cases: [(String, String)] = [
                ("https://Server.Example.COM/token", "https://server.example.com"),
                ("HTTPS://server.example.com:443/a/b?c=d#e", "https://server.example.com"),
                ("http://server.example.com:80/", "http://server.example.com"),
                ("https://server.example.com:8443/token?x=1", "https://server.example.com:8443"),
                ("http://server.example.com:443/token", "http://server.example.com:443"),
                ("https://server.example.com:80/token", "https://server.example.com:80"),
                ("http://127.0.0.1:8080/api/oidc/token", "http://127.0.0.1:8080"),
            ]
            for (url, expected) in cases {
                #expect(DPoPNonces.origin(try #require(URL(string: url))) == expected, "\(url)")
            }
        }

        @Test("Each origin keeps its own last nonce; a later one replaces it; an invalid one is ignored")
        func perOrigin() {
            let nonces = DPoPNonces()
            #expect(nonces.nonce(for: "https://a.example") == nil)
            nonces.remember("n1", for: "https://a.example")
            nonces.remember("m1", for: "https://b.example")
            #expect(nonces.nonce(for: "https://a.example") == "n1")
            #expect(nonces.nonce(for: "https://b.example") == "m1")
            #expect(nonces.nonce(for: "https://a.example:8443") == nil)
            nonces.remember("n2", for: "https://a.example")
            #expect(nonces.nonce(for: "https://a.example") == "n2")
            for invalid in ["", "bad nonce", #"bad"nonce"#, #"bad\nonce"#, String(repeating: "n", count: 1025), "é"] {
                nonces.remember(invalid, for: "https://a.example")
                #expect(nonces.nonce(for: "https://a.example") == "n2", "\(invalid.prefix(20)) is ignored")
            }
            nonces.remember("c1", for: "https://c.example")
            #expect(nonces.nonce(for: "https://c.example") == "c1")
            nonces.remember("bad nonce", for: "https://d.example")
            #expect(nonces.nonce(for: "https://d.example") == nil)
        }

        @Test("At most 32 origins are kept: the 33rd forgets the one remembered longest ago, and remembering an origin again renews it")
        func capacity() {
            #expect(DPoPNonces.capacity == 32)
            let nonces = DPoPNonces()
            for index in 0..<32 { nonces.remember("n\(index)", for: "https://s\(index).example") }
            for index in 0..<32 { #expect(nonces.nonce(for: "https://s\(index).example") == "n\(index)") }
            nonces.remember("n32", for: "https://s32.example")
            #expect(nonces.nonce(for: "https://s0.example") == nil, "the oldest is forgotten")
            for index in 1...32 { #expect(nonces.nonce(for: "https://s\(index).example") == "n\(index)") }

            // s1 is now the oldest; renewing it makes s2 the one to go.
            nonces.remember("n1-again", for: "https://s1.example")
            nonces.remember("n33", for: "https://s33.example")
            #expect(nonces.nonce(for: "https://s1.example") == "n1-again")
            #expect(nonces.nonce(for: "https://s2.example") == nil)
            // An invalid nonce for a new origin evicts nothing.
            nonces.remember("bad nonce", for: "https://s34.example")
            #expect(nonces.nonce(for: "https://s3.example") == "n3")
        }
    }
}

// MARK: - Resource proofs from a result

extension DPoPClientTests {
    @Suite("MSALResult's DPoP proofs for resource requests")
    struct ResultProofs {
        static let correlation = UUID(uuidString: "8C1A2B3D-4E5F-4A6B-9C7D-0E1F2A3B4C5D")!

        static func bearer(_ token: String = "eyJ.dpop-bound.token") throws -> MSALResult {
            MSALResult(
                accessToken: token, expiresOn: Date().addingTimeInterval(3600), idToken: nil, scopes: ["api://resource/.default"],
                tenantProfile: MSALTenantProfile(
                    identifier: "", environment: "login.example.com", tenantId: "t", isHomeTenantProfile: false, idToken: nil),
                account: MSALAccount(application: "login.example.com"),
                authority: try MSALAuthority.authority(url: try #require(URL(string: "https://login.microsoftonline.com/common"))),
                correlationId: correlation, tokenSource: .identityProvider)
        }

        static func dpop(_ token: String = "eyJ.dpop-bound.token") throws -> (MSALResult, ProofKey) {
            let key = try DPoPClientTests.key.get()
            let bearer = try bearer(token)
            return (bearer.presented(scheme: "DPoP", headerScheme: "DPoP", token: bearer.boundAccessToken, dpopKey: key), key)
        }

        @Test("A DPoP result presents the token as issued: Authorization DPoP <token>, scheme DPoP, and keeps its key when reissued")
        func presentation() throws {
            let (result, key) = try Self.dpop()
            #expect(result.authorizationHeader == "DPoP eyJ.dpop-bound.token")
            #expect(result.authenticationScheme == "DPoP")
            #expect(result.accessToken == "eyJ.dpop-bound.token")
            #expect(result.dpopKey?.thumbprint == key.thumbprint)
            #expect(result.correlated(UUID()).dpopKey?.thumbprint == key.thumbprint)
            let authority = try MSALAuthority.authority(url: try #require(URL(string: "https://login.microsoftonline.com/organizations")))
            let reissued = result.reissued(authority: authority, correlationID: UUID())
            #expect(reissued.dpopKey?.thumbprint == key.thumbprint && reissued.authorizationHeader == "DPoP eyJ.dpop-bound.token")
            #expect(try Self.bearer().dpopKey == nil)
            #expect(try Self.bearer().authorizationHeader == "Bearer eyJ.dpop-bound.token")
        }

        @Test("TokenClient.present with .dpop(key:) makes the DPoP result; without a presentation the result is the bearer one")
        func presentedByClient() throws {
            let harness = try TokenRequestHarness([])
            let key = try DPoPClientTests.key.get()
            let bearer = try Self.bearer("at-value")
            let result = try harness.client.present(bearer, .dpop(key: key))
            #expect(result.authorizationHeader == "DPoP at-value" && result.authenticationScheme == "DPoP")
            #expect(result.dpopKey?.thumbprint == key.thumbprint)
            let proof = try DecodedProof(
                try result.dpopProof(httpMethod: .GET, requestUrl: try #require(URL(string: "https://r.example/"))))
            #expect(proof.claims["ath"] as? String == (try DPoPProof.tokenHash("at-value")))
            #expect(try harness.client.present(bearer, nil) === bearer)
        }

        @Test(
            "The proof: typ dpop+jwt, ES256, the key's public jwk (which verifies it); htm, htu without query or fragment, ath, iat now, a new jti each time"
        )
        func proofContents() throws {
            let (result, key) = try Self.dpop()
            let url = try #require(URL(string: "https://Resource.Example.org:443/api/items?page=2&q=x#top"))
            let before = Int(Date().timeIntervalSince1970)
            let first = try DecodedProof(try result.dpopProof(httpMethod: .GET, requestUrl: url))
            let second = try DecodedProof(try result.dpopProof(httpMethod: .PATCH, requestUrl: url))
            let after = Int(Date().timeIntervalSince1970)

            #expect(first.header["typ"] as? String == "dpop+jwt")
            #expect(first.header["alg"] as? String == "ES256")
            #expect(first.jwk == (try DPoPClientTests.publicJWK(key)))
            #expect(first.header["kid"] == nil && first.header.count == 3)
            #expect(first.htm == "GET" && second.htm == "PATCH")
            #expect(first.htu == "https://resource.example.org/api/items" && second.htu == first.htu)
            #expect(first.claims["ath"] as? String == (try DPoPProof.tokenHash("eyJ.dpop-bound.token")))
            let iat = try #require(first.iat)
            #expect(iat >= before - 1 && iat <= after + 1)
            #expect(first.nonce == nil && first.claims["nonce"] == nil)
            let jti = try #require(first.jti)
            #expect(try Base64URL.decode(jti).count == 16)
            #expect(second.jti != nil && second.jti != jti)
            #expect(Set(first.claims.keys) == ["jti", "htm", "htu", "iat", "ath"])
        }

        @Test("Every HTTP method is named as sent; an http URL with a port and an upper-case scheme is accepted and normalized")
        func methodsAndURLs() throws {
            let (result, _) = try Self.dpop()
            for method in MSALHttpMethod.allCases {
                let proof = try DecodedProof(
                    try result.dpopProof(httpMethod: method, requestUrl: try #require(URL(string: "https://r.example/x"))))
                #expect(proof.htm == MSALParameterStringForHttpMethod(method))
            }
            let local = try DecodedProof(
                try result.dpopProof(httpMethod: .GET, requestUrl: try #require(URL(string: "HTTP://LocalHost:8080/api?x=1"))))
            #expect(local.htu == "http://localhost:8080/api")
            let bare = try DecodedProof(try result.dpopProof(httpMethod: .GET, requestUrl: try #require(URL(string: "https://r.example"))))
            #expect(bare.htu == "https://r.example/")
        }

        @Test("A nonce, when given, is carried as the nonce claim")
        func nonce() throws {
            let (result, _) = try Self.dpop()
            let url = try #require(URL(string: "https://resource.example.org/api"))
            let proof = try DecodedProof(try result.dpopProof(httpMethod: .POST, requestUrl: url, nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v"))
            #expect(proof.nonce == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
            let edge = try DecodedProof(try result.dpopProof(httpMethod: .POST, requestUrl: url, nonce: "!~"))
            #expect(edge.nonce == "!~")
        }

        @Test("A bearer or PoP result, an ftp URL, a URL without a host and an invalid nonce are typed invalid-parameter errors")
        func errors() throws {
            let (result, _) = try Self.dpop()
            let url = try #require(URL(string: "https://resource.example.org/api"))
            func expectInvalidParameter(_ what: String, _ body: () throws -> String) {
                let error = #expect(throws: MSALFailure.self, "\(what)") { _ = try body() }
                #expect(error?.code == .internal, "\(what)")
                #expect(error?.internalCode == .internalErrorInvalidParameter, "\(what)")
                #expect(error?.correlationID == Self.correlation, "\(what)")
            }
            let bearer = try Self.bearer()
            expectInvalidParameter("a bearer result") { try bearer.dpopProof(httpMethod: .GET, requestUrl: url) }
            let pop = bearer.presented(scheme: "Pop", headerScheme: "PoP", token: "signed-request")
            expectInvalidParameter("a PoP result") { try pop.dpopProof(httpMethod: .GET, requestUrl: url) }
            for text in ["ftp://files.example.org/a", "file:///etc/passwd", "wss://r.example/socket", "urn:example:resource"] {
                let other = try #require(URL(string: text))
                expectInvalidParameter(text) { try result.dpopProof(httpMethod: .GET, requestUrl: other) }
            }
            var hostless = 0
            for text in ["https:///no-host", "https:/path-only", "http:relative"] {
                guard let noHost = URL(string: text) else { continue }
                hostless += 1
                expectInvalidParameter(text) { try result.dpopProof(httpMethod: .GET, requestUrl: noHost) }
            }
            #expect(hostless >= 2, "Foundation parses these URLs without a host")
            for nonce in ["", "a b", #"a"b"#, #"a\b"#, "é", String(repeating: "n", count: 1025)] {
                expectInvalidParameter("nonce \(nonce.prefix(20))") {
                    try result.dpopProof(httpMethod: .GET, requestUrl: url, nonce: nonce)
                }
            }
        }

        @Test("dpopNonce(wwwAuthenticate:dpopNonce:) gives the nonce only for a DPoP use_dpop_nonce challenge with a valid nonce")
        func nonceFromResponse() {
            let challenge = #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#
            #expect(MSALResult.dpopNonce(wwwAuthenticate: challenge, dpopNonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v") == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
            #expect(MSALResult.dpopNonce(wwwAuthenticate: #"Bearer realm="x", dpop error=use_dpop_nonce"#, dpopNonce: "n1") == "n1")
            #expect(MSALResult.dpopNonce(wwwAuthenticate: challenge, dpopNonce: nil) == nil)
            #expect(MSALResult.dpopNonce(wwwAuthenticate: nil, dpopNonce: "n1") == nil)
            #expect(MSALResult.dpopNonce(wwwAuthenticate: #"DPoP error="invalid_token""#, dpopNonce: "n1") == nil)
            #expect(MSALResult.dpopNonce(wwwAuthenticate: #"Bearer error="use_dpop_nonce""#, dpopNonce: "n1") == nil)
            #expect(MSALResult.dpopNonce(wwwAuthenticate: "", dpopNonce: "n1") == nil)
            for invalid in ["", "a b", #"a"b"#, String(repeating: "n", count: 1025)] {
                #expect(MSALResult.dpopNonce(wwwAuthenticate: challenge, dpopNonce: invalid) == nil, "\(invalid.prefix(20))")
            }
        }
    }
}

// MARK: - Token requests

/// A public client on a scripted transport and a manual clock, for its ``TokenClient``.
private struct TokenRequestHarness {
    static let tokenEndpoint = URL(string: "https://Login.Example.com:443/tenant/oauth2/v2.0/token?slice=testslice&dc=ESTS-PUB")!
    static let htu = "https://login.example.com/tenant/oauth2/v2.0/token"
    static let origin = "https://login.example.com"
    static let now: Int = 1_700_001_000

    let transport: QueueTransport
    let clock: ManualClock
    let app: MSALPublicClientApplication
    var client: TokenClient { app.client }

    init(_ steps: [QueueTransport.Step]) throws {
        transport = QueueTransport(steps)
        clock = ManualClock(Double(Self.now))
        let config = MSALPublicClientApplicationConfig(
            clientId: "6cb04018-a3f5-46a7-b995-940c78f5aef3", redirectUri: nil,
            authority: try MSALAuthority.authority(url: try #require(URL(string: "https://login.microsoftonline.com/common"))))
        config.cacheConfig = .memory
        config.transport = transport
        config.clock = clock
        app = try MSALPublicClientApplication(configuration: config)
    }

    /// A code redemption (a POST that is never retried) to ``tokenEndpoint``.
    static func redemption(_ url: URL = tokenEndpoint) -> MSALHTTPRequest {
        TokenRequests.authorizationCode(
            tokenEndpoint: url, clientID: "6cb04018-a3f5-46a7-b995-940c78f5aef3", code: "c0de", redirectURI: "http://localhost:51234",
            scope: "openid offline_access", codeVerifier: "v3rifier", claims: nil, extraQueryParameters: nil)
    }

    /// A refresh (an idempotent POST, retried once by the pipeline) to ``tokenEndpoint``.
    static func refresh() -> MSALHTTPRequest {
        TokenRequests.refresh(
            tokenEndpoint: tokenEndpoint, clientID: "6cb04018-a3f5-46a7-b995-940c78f5aef3", refreshToken: "rt",
            scope: "openid offline_access", claims: nil, extraQueryParameters: nil)
    }

    func send(
        _ request: MSALHTTPRequest = TokenRequestHarness.redemption(), presentation: TokenPresentation?
    ) async throws -> MSALHTTPResponse {
        try await client.sendTokenRequest(request, presentation: presentation, correlationID: UUID())
    }

    static let success = MSALHTTPResponse.json(200, #"{"access_token":"at","token_type":"DPoP","expires_in":3600}"#)

    static func useNonce(_ status: Int = 400, nonce: String?) -> MSALHTTPResponse {
        .json(
            status, #"{"error":"use_dpop_nonce","error_description":"Authorization server requires nonce in DPoP proof"}"#,
            headers: nonce.map { ["DPoP-Nonce": $0] } ?? [:])
    }
}

extension DPoPClientTests {
    @Suite("Token requests with DPoP proofs: a fresh proof per attempt, the server's nonce, one retry for use_dpop_nonce")
    struct TokenRequestProofs {
        @Test("Without a presentation, a token request carries no DPoP header and no nonce is asked for")
        func noPresentation() async throws {
            let harness = try TokenRequestHarness([
                .respond(TokenRequestHarness.useNonce(nonce: "n1")), .respond(TokenRequestHarness.success),
            ])
            let response = try await harness.send(presentation: nil)
            #expect(response.statusCode == 400, "a bearer request is not retried for a nonce")
            #expect(harness.transport.callCount == 1)
            #expect(harness.transport.requests.first?.headers.contains("DPoP") == false)
        }

        @Test(
            "With .dpop(key:), the request carries one DPoP proof: POST, the token endpoint without its query, iat from the clock, no ath")
        func proofOnEveryRequest() async throws {
            let key = try DPoPClientTests.key.get()
            let harness = try TokenRequestHarness([.respond(TokenRequestHarness.success), .respond(TokenRequestHarness.success)])
            #expect(try await harness.send(presentation: .dpop(key: key)).statusCode == 200)
            #expect(try await harness.send(presentation: .dpop(key: key)).statusCode == 200)
            let requests = harness.transport.requests
            #expect(requests.count == 2)
            var jtis: Set<String> = []
            for request in requests {
                let proof = try DPoPClientTests.proof(request)
                #expect(proof.header["typ"] as? String == "dpop+jwt" && proof.header["alg"] as? String == "ES256")
                #expect(proof.jwk == (try DPoPClientTests.publicJWK(key)))
                #expect(proof.htm == "POST")
                #expect(proof.htu == TokenRequestHarness.htu)
                #expect(proof.iat == TokenRequestHarness.now)
                #expect(proof.claims["ath"] == nil && proof.nonce == nil)
                jtis.insert(try #require(proof.jti))
                // The request itself is untouched: its URL keeps the query, its form and content type are sent.
                #expect(request.url == TokenRequestHarness.tokenEndpoint)
                #expect(request.body == TokenRequestHarness.redemption().body)
                #expect(request.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
            }
            #expect(jtis.count == 2)
        }

        @Test("A proof the caller put on the request is replaced by the client's own", arguments: ["DPoP", "dpop"])
        func callerHeaderReplaced(name: String) async throws {
            let key = try DPoPClientTests.key.get()
            let harness = try TokenRequestHarness([.respond(TokenRequestHarness.success)])
            var request = TokenRequestHarness.redemption()
            request.headers.add(name: name, value: "stale.proof.value")
            _ = try await harness.send(request, presentation: .dpop(key: key))
            let proof = try DPoPClientTests.proof(harness.transport.requests.first)
            #expect(proof.htu == TokenRequestHarness.htu)
        }

        @Test(
            "use_dpop_nonce with a DPoP-Nonce is answered once: exactly two calls, the second proof carries the nonce and a new jti",
            arguments: [400, 401])
        func nonceRetry(status: Int) async throws {
            let key = try DPoPClientTests.key.get()
            let harness = try TokenRequestHarness([
                .respond(TokenRequestHarness.useNonce(status, nonce: "n1")), .respond(TokenRequestHarness.success),
            ])
            let response = try await harness.send(presentation: .dpop(key: key))
            #expect(response.statusCode == 200)
            let requests = harness.transport.requests
            try #require(requests.count == 2)
            let first = try DPoPClientTests.proof(requests[0])
            let second = try DPoPClientTests.proof(requests[1])
            #expect(first.nonce == nil)
            #expect(second.nonce == "n1")
            #expect(first.jti != nil && second.jti != nil && first.jti != second.jti)
            #expect(second.htm == "POST" && second.htu == TokenRequestHarness.htu)
            #expect(requests[1].body == requests[0].body && requests[1].url == requests[0].url)
            #expect(harness.client.dpopNonces.nonce(for: TokenRequestHarness.origin) == "n1")
        }

        @Test("A second use_dpop_nonce is returned to the caller: exactly two calls, no loop; its nonce is still remembered")
        func noLoop() async throws {
            let key = try DPoPClientTests.key.get()
            let harness = try TokenRequestHarness([
                .respond(TokenRequestHarness.useNonce(nonce: "n1")), .respond(TokenRequestHarness.useNonce(nonce: "n2")),
                .respond(TokenRequestHarness.success),
            ])
            let response = try await harness.send(presentation: .dpop(key: key))
            #expect(response.statusCode == 400)
            #expect(OAuthErrorResponse(body: response.body).error == "use_dpop_nonce")
            #expect(harness.transport.callCount == 2)
            #expect(try DPoPClientTests.proof(harness.transport.requests.last).nonce == "n1")
            #expect(harness.client.dpopNonces.nonce(for: TokenRequestHarness.origin) == "n2")
            // The next request starts afresh: it may be answered once more.
            #expect(try await harness.send(presentation: .dpop(key: key)).statusCode == 200)
            #expect(try DPoPClientTests.proof(harness.transport.requests.last).nonce == "n2")
        }

        @Test("use_dpop_nonce without a DPoP-Nonce, or with one a proof may not carry, is returned at once and nothing is remembered")
        func nonceMissingOrInvalid() async throws {
            let key = try DPoPClientTests.key.get()
            for nonce in [nil, "", "bad nonce", #"bad"nonce"#, String(repeating: "n", count: 1025)] {
                let harness = try TokenRequestHarness([
                    .respond(TokenRequestHarness.useNonce(nonce: nonce)), .respond(TokenRequestHarness.success),
                ])
                let response = try await harness.send(presentation: .dpop(key: key))
                #expect(response.statusCode == 400, "\(String(describing: nonce?.prefix(20)))")
                #expect(harness.transport.callCount == 1, "\(String(describing: nonce?.prefix(20)))")
                #expect(harness.client.dpopNonces.nonce(for: TokenRequestHarness.origin) == nil)
            }
        }

        @Test("Another error with a DPoP-Nonce is not retried, but its nonce is carried by the next proof")
        func otherErrorNonce() async throws {
            let key = try DPoPClientTests.key.get()
            let harness = try TokenRequestHarness([
                .respond(.json(400, #"{"error":"invalid_grant"}"#, headers: ["DPoP-Nonce": "n3"])),
                .respond(.json(400, #"{"error":"invalid_dpop_proof"}"#, headers: ["DPoP-Nonce": "n4"])),
                .respond(TokenRequestHarness.success),
            ])
            #expect(try await harness.send(presentation: .dpop(key: key)).statusCode == 400)
            #expect(harness.transport.callCount == 1)
            #expect(try await harness.send(presentation: .dpop(key: key)).statusCode == 400)
            #expect(harness.transport.callCount == 2)
            #expect(try DPoPClientTests.proof(harness.transport.requests[1]).nonce == "n3")
            #expect(try await harness.send(presentation: .dpop(key: key)).statusCode == 200)
            #expect(try DPoPClientTests.proof(harness.transport.requests[2]).nonce == "n4")
        }

        @Test("A 200 with a DPoP-Nonce makes the next proof to that origin carry it, and only to that origin")
        func nonceFromSuccess() async throws {
            let key = try DPoPClientTests.key.get()
            let harness = try TokenRequestHarness([
                .respond(.json(200, #"{"access_token":"at","token_type":"DPoP","expires_in":3600}"#, headers: ["dpop-nonce": "n2"])),
                .respond(TokenRequestHarness.success), .respond(TokenRequestHarness.success),
            ])
            _ = try await harness.send(presentation: .dpop(key: key))
            #expect(try DPoPClientTests.proof(harness.transport.requests[0]).nonce == nil)
            _ = try await harness.send(presentation: .dpop(key: key))
            #expect(try DPoPClientTests.proof(harness.transport.requests[1]).nonce == "n2")
            let elsewhere = try #require(URL(string: "https://login.example.com:8443/tenant/oauth2/v2.0/token"))
            _ = try await harness.send(TokenRequestHarness.redemption(elsewhere), presentation: .dpop(key: key))
            let other = try DPoPClientTests.proof(harness.transport.requests[2])
            #expect(other.nonce == nil, "another port is another origin")
            #expect(other.htu == "https://login.example.com:8443/tenant/oauth2/v2.0/token")
            #expect(harness.transport.callCount == 3)
        }

        @Test("A 503 the pipeline retries (an idempotent refresh) gets a new proof with a new jti on the retry")
        func pipelineRetry() async throws {
            let key = try DPoPClientTests.key.get()
            let harness = try TokenRequestHarness([
                .respond(.json(503, #"{"error":"server_error"}"#)), .respond(TokenRequestHarness.success),
            ])
            let request = TokenRequestHarness.refresh()
            #expect(request.isIdempotent)
            #expect(try await harness.send(request, presentation: .dpop(key: key)).statusCode == 200)
            let requests = harness.transport.requests
            try #require(requests.count == 2)
            let first = try DPoPClientTests.proof(requests[0])
            let second = try DPoPClientTests.proof(requests[1])
            #expect(first.jti != nil && second.jti != nil && first.jti != second.jti)
            #expect(first.htm == "POST" && second.htm == "POST")
            #expect(first.htu == TokenRequestHarness.htu && second.htu == TokenRequestHarness.htu)
            #expect(first.iat == TokenRequestHarness.now && second.iat == TokenRequestHarness.now)
            #expect(harness.clock.sleeps == [0.5])
        }

        @Test("After a nonce is learned, the pipeline's retry carries it too, with a new jti")
        func pipelineRetryKeepsNonce() async throws {
            let key = try DPoPClientTests.key.get()
            let harness = try TokenRequestHarness([
                .respond(TokenRequestHarness.useNonce(nonce: "n1")), .respond(.json(503, #"{"error":"server_error"}"#)),
                .respond(TokenRequestHarness.success),
            ])
            #expect(try await harness.send(TokenRequestHarness.refresh(), presentation: .dpop(key: key)).statusCode == 200)
            let requests = harness.transport.requests
            try #require(requests.count == 3)
            let proofs = try requests.map { try DPoPClientTests.proof($0) }
            #expect(proofs.map(\.nonce) == [nil, "n1", "n1"])
            #expect(Set(proofs.compactMap(\.jti)).count == 3)
        }
    }
}

// MARK: - Schemes, cache keys, token responses, dpop_jkt

extension DPoPClientTests {
    @Suite("The DPoP token scheme: token_type, cache keys, token responses and the authorization request's dpop_jkt")
    struct Scheme {
        static func kind(_ tokenType: String) -> TokenScheme.Kind? {
            var text = tokenType
            return text.withUTF8 { TokenScheme.Kind(tokenType: $0) }
        }

        @Test("token_type DPoP is read as .dpop in any ASCII case; near misses are not")
        func kinds() {
            for name in ["DPoP", "dpop", "DPOP", "dPoP"] { #expect(Self.kind(name) == .dpop, "\(name)") }
            for name in ["DPoP ", " DPoP", "DPo", "DPoPs", "D-PoP", "DPοP"] { #expect(Self.kind(name) == nil, "\(name)") }
            #expect(Self.kind("Bearer") == .bearer && Self.kind("pop") == .pop)
            #expect(TokenScheme.Kind.dpop.tokenType == "DPoP")
            let scheme = TokenScheme.dpop(keyID: "thumb")
            #expect(scheme.kind == .dpop && scheme.keyID == "thumb" && scheme.tokenType == "DPoP")
            #expect(scheme != .pop(keyID: "thumb") && scheme != .dpop(keyID: "other"))
            #expect(scheme.accepts(tokenType: "dpop") && !scheme.accepts(tokenType: "pop") && !scheme.accepts(tokenType: "Bearer"))
        }

        @Test("A DPoP access token's cache key is the with-authscheme key ending in -dpop, apart from the bearer and PoP keys")
        func cacheKey() {
            func key(_ scheme: TokenScheme.Kind) -> String {
                CacheKey.accessToken(
                    homeAccountID: "uid.utid", environment: "login.example.com", clientID: "Client", realm: "Tenant",
                    target: "api://resource/.default", scheme: scheme)
            }
            let dpop = key(.dpop)
            #expect(dpop == "uid.utid-login.example.com-accesstoken_with_authscheme-client-tenant-api://resource/.default-dpop")
            #expect(dpop.contains("accesstoken_with_authscheme") && dpop.hasSuffix("-dpop"))
            #expect(key(.bearer) == "uid.utid-login.example.com-accesstoken-client-tenant-api://resource/.default")
            #expect(key(.pop).hasSuffix("-pop") && key(.pop) != dpop)
        }

        static func body(_ tokenType: String) -> [UInt8] {
            Array(#"{"access_token": "at", "token_type": "\#(tokenType)", "expires_in": 3600}"#.utf8)
        }

        @Test(
            "A DPoP request accepts token_type DPoP in any case (cached as DPoP); it refuses Bearer and pop, and a bearer request refuses DPoP"
        )
        func tokenResponses() throws {
            let scheme = TokenScheme.dpop(keyID: "thumb")
            for tokenType in ["DPoP", "dpop", "DPOP"] {
                let response = try TokenResponse(parsing: Self.body(tokenType), scheme: scheme)
                #expect(response.tokenType == "DPoP" && response.accessToken == "at", "\(tokenType)")
            }
            for tokenType in ["Bearer", "pop", "DPoP2"] {
                let error = #expect(throws: MSALFailure.self, "\(tokenType)") {
                    try TokenResponse(parsing: Self.body(tokenType), scheme: scheme)
                }
                #expect(error?.code == .internal)
                #expect(error?.internalCode == .internalErrorInvalidResponse)
                #expect(error?.message.contains("token_type") == true)
                #expect(error?.message.contains("DPoP") == true)
            }
            for tokenType in ["DPoP", "dpop"] {
                let error = #expect(throws: MSALFailure.self, "\(tokenType)") {
                    try TokenResponse(parsing: Self.body(tokenType), scheme: .bearer)
                }
                #expect(error?.internalCode == .internalErrorInvalidResponse)
            }
            let error = #expect(throws: MSALFailure.self) { try TokenResponse(parsing: Self.body("DPoP"), scheme: .pop(keyID: "thumb")) }
            #expect(error?.internalCode == .internalErrorInvalidResponse)
        }

        static func query(_ url: URL) -> [String: [String]] {
            let pairs = MSALFormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
            return Dictionary(grouping: pairs, by: \.0).mapValues { $0.map(\.1) }
        }

        static func authorizeURL(thumbprint: String?, extras: [String: String]?, microsoft: Bool = true) throws -> URL {
            TokenRequests.authorizeURL(
                endpoint: try #require(URL(string: "https://login.example.com/tenant/oauth2/v2.0/authorize")),
                clientID: "6cb04018-a3f5-46a7-b995-940c78f5aef3", redirectURI: "http://localhost", scope: "openid offline_access",
                state: "s", nonce: "n", codeChallenge: "c", prompt: nil, loginHint: nil, domainHint: nil, claims: nil,
                extraQueryParameters: extras, microsoft: microsoft, dpopKeyThumbprint: thumbprint)
        }

        @Test("The authorization request carries dpop_jkt=<thumbprint> when given, for Microsoft and other providers, and not otherwise")
        func dpopJKT() throws {
            let thumbprint = try DPoPClientTests.key.get().thumbprint
            for microsoft in [true, false] {
                let query = Self.query(try Self.authorizeURL(thumbprint: thumbprint, extras: nil, microsoft: microsoft))
                #expect(query["dpop_jkt"] == [thumbprint])
                #expect(query["client_id"] == ["6cb04018-a3f5-46a7-b995-940c78f5aef3"] && query["code_challenge"] == ["c"])
            }
            #expect(Self.query(try Self.authorizeURL(thumbprint: nil, extras: nil))["dpop_jkt"] == nil)
        }

        @Test("Extra query parameters can neither override dpop_jkt, in any spelling, nor add one")
        func dpopJKTNotOverridden() throws {
            let hostile = ["dpop_jkt": "evil", "DPOP_JKT": "evil", "Dpop_Jkt": "evil", "harmless": "yes"]
            let query = Self.query(try Self.authorizeURL(thumbprint: "thumb-print_1", extras: hostile))
            #expect(query["dpop_jkt"] == ["thumb-print_1"])
            #expect(query["DPOP_JKT"] == nil && query["Dpop_Jkt"] == nil)
            #expect(query["harmless"] == ["yes"])
            let without = Self.query(try Self.authorizeURL(thumbprint: nil, extras: hostile))
            #expect(without["dpop_jkt"] == nil && without["DPOP_JKT"] == nil && without["Dpop_Jkt"] == nil)
        }
    }
}
