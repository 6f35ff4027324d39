import Foundation
import MSALJOSE
import MSALJSON
import Testing

@testable import MSAL

/// A compact JWS split into its decoded header and claims, its signature checked with `jwk`.
private struct DecodedJWS {
    var header: [String: Any]
    var claims: [String: Any]

    init(_ token: String, verifiedWith jwk: (([String: Any], [String: Any]) -> Any?)) throws {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(segments.count == 3)
        header = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(segments[0]))) as? [String: Any])
        claims = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(segments[1]))) as? [String: Any])
        let keyObject = try #require(jwk(header, claims))
        let key = try JSONWebKey(json: JSONSerialization.data(withJSONObject: keyObject))
        let algorithm = try #require(JWSAlgorithm(rawValue: header["alg"] as? String ?? ""))
        let valid = try key.verify(
            signature: Base64URL.decode(segments[2]), over: Array((segments[0] + "." + segments[1]).utf8), algorithm: algorithm)
        #expect(valid, "the signature verifies with the key the token carries")
    }
}

@Suite("Proof-of-possession keys and proofs: RFC 7638 thumbprints, DPoP proofs, MSAL's signed HTTP requests")
struct ProofOfPossessionTests {
    /// RFC 7638 §3.1's example key and its published thumbprint.
    static let rfc7638Modulus =
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"

    static let dpopKey = Result { try ProofKey.generate(.dpop) }
    static let shrKey = Result { try ProofKey.generate(.signedHTTPRequest) }

    @Test("RFC 7638 §3.1: the example key's thumbprint is the published one, whatever optional members it carries")
    func rfc7638Vector() throws {
        let bare = try JSONWebKey(json: Array(#"{"kty":"RSA","e":"AQAB","n":"\#(Self.rfc7638Modulus)"}"#.utf8))
        let decorated = try JSONWebKey(
            json: Array(#"{"kid":"2011-04-29","alg":"RS256","n":"\#(Self.rfc7638Modulus)","e":"AQAB","kty":"RSA","use":"sig"}"#.utf8))
        #expect(try bare.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(try decorated.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("RFC 9449 §4.2: ath is the base64url SHA-256 of the access token (the RFC's example)")
    func rfc9449TokenHash() throws {
        #expect(try DPoPProof.tokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU") == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    @Test(
        "Each kind's key: its algorithm, public members only (RFC 7638 order), its thumbprint; kept as PEM and read back the same; a PEM of the other kind or no key is a typed error",
        arguments: ProofKey.Kind.allCases)
    func keys(kind: ProofKey.Kind) throws {
        let key = try (kind == .dpop ? Self.dpopKey : Self.shrKey).get()
        #expect(key.kind == kind && key.signingKey.algorithm == kind.algorithm)
        guard case .object(let members) = key.publicJWK else {
            Issue.record("the public key is not a JSON object")
            return
        }
        #expect(members.map(\.name) == (kind == .dpop ? ["crv", "kty", "x", "y"] : ["e", "kty", "n"]))
        let verifying = try JSONWebKey(json: JSONWriter.write(key.publicJWK))
        #expect(try verifying.thumbprint() == key.thumbprint)
        #expect(key.thumbprint.utf8.count == 43)

        let pem = try key.privateKeyPEM()
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let read = try ProofKey(kind: kind, privateKeyPEM: pem)
        #expect(read.thumbprint == key.thumbprint)

        let other: ProofKey.Kind = kind == .dpop ? .signedHTTPRequest : .dpop
        let refused = #expect(throws: MSALFailure.self) { try ProofKey(kind: other, privateKeyPEM: pem) }
        #expect(refused?.message.contains(other.algorithm.rawValue) == true)
        #expect(throws: MSALFailure.self) { try ProofKey(kind: kind, privateKeyPEM: Array("not a key".utf8)) }
        // Two keys of a kind are two keys.
        #expect(try ProofKey.generate(kind).thumbprint != key.thumbprint)
    }

    @Test("htu: no query, fragment or user information, scheme and host in lower case, no default port, an empty path as /")
    func targetURI() throws {
        let cases: [(String, String)] = [
            ("https://Server.Example.com/token?x=1#frag", "https://server.example.com/token"),
            ("HTTPS://login.example.com:443/tenant/oauth2/v2.0/token", "https://login.example.com/tenant/oauth2/v2.0/token"),
            ("http://127.0.0.1:8080/api/oidc/token", "http://127.0.0.1:8080/api/oidc/token"),
            ("http://localhost:80", "http://localhost/"),
            ("https://resource.example.org/a%20b/c", "https://resource.example.org/a%20b/c"),
            // User information is no part of the target URI; an @ elsewhere is kept.
            ("https://user:secret@API.example.org:8443/orders?x=1", "https://api.example.org:8443/orders"),
            ("https://api.example.org/users/a@b.example?q=c@d", "https://api.example.org/users/a@b.example"),
            ("HTTPS://[::1]:443/x#y", "https://[::1]/x"),
        ]
        for (url, expected) in cases {
            #expect(DPoPProof.targetURI(try #require(URL(string: url))) == expected, "\(url)")
        }
    }

    @Test(
        "A DPoP proof: typ dpop+jwt, ES256, the public jwk that verifies it; jti, htm, htu, iat; ath and nonce only when given; a new jti each time"
    )
    func dpopProof() throws {
        let key = try Self.dpopKey.get()
        let url = try #require(URL(string: "https://resource.example.org/api/items?page=2#top"))
        let proof = try DPoPProof.make(key: key, method: "POST", url: url, issuedAt: 1_700_000_000)
        let decoded = try DecodedJWS(proof) { header, _ in header["jwk"] }
        #expect(decoded.header["typ"] as? String == "dpop+jwt" && decoded.header["alg"] as? String == "ES256")
        #expect((decoded.header["jwk"] as? [String: Any])?.keys.sorted() == ["crv", "kty", "x", "y"])
        #expect(decoded.claims["htm"] as? String == "POST")
        #expect(decoded.claims["htu"] as? String == "https://resource.example.org/api/items")
        #expect(decoded.claims["iat"] as? Int == 1_700_000_000)
        #expect(decoded.claims["ath"] == nil && decoded.claims["nonce"] == nil)
        let jti = try #require(decoded.claims["jti"] as? String)
        #expect(try Base64URL.decode(jti).count == 16)

        let bound = try DPoPProof.make(key: key, method: "GET", url: url, accessToken: "token-value", nonce: "n-1", issuedAt: 1_700_000_001)
        let second = try DecodedJWS(bound) { header, _ in header["jwk"] }
        #expect(second.claims["ath"] as? String == (try DPoPProof.tokenHash("token-value")))
        #expect(second.claims["nonce"] as? String == "n-1")
        #expect(second.claims["jti"] as? String != jti)
    }

    @Test(
        "MSAL's PoP: req_cnf is {\"kid\": thumbprint}; the signed request carries at, ts, m, u, p, nonce and cnf.jwk, typ pop, kid the thumbprint, RS256 verified by cnf.jwk"
    )
    func signedHTTPRequest() throws {
        let key = try Self.shrKey.get()
        let confirmation = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(SignedHTTPRequest.requestConfirmation(key))))
        #expect((confirmation as? [String: String]) == ["kid": key.thumbprint])

        let url = try #require(URL(string: "https://Graph.Example.com:8443/v1.0/me?select=id"))
        let shr = try SignedHTTPRequest.make(
            key: key, accessToken: "at-value", method: "GET", url: url, nonce: "server-nonce", timestamp: 1_700_000_000)
        let decoded = try DecodedJWS(shr) { _, claims in (claims["cnf"] as? [String: Any])?["jwk"] }
        #expect(decoded.header["alg"] as? String == "RS256" && decoded.header["typ"] as? String == "pop")
        #expect(decoded.header["kid"] as? String == key.thumbprint)
        #expect(decoded.claims["at"] as? String == "at-value" && decoded.claims["ts"] as? Int == 1_700_000_000)
        #expect(decoded.claims["m"] as? String == "GET" && decoded.claims["u"] as? String == "graph.example.com:8443")
        #expect(decoded.claims["p"] as? String == "/v1.0/me" && decoded.claims["nonce"] as? String == "server-nonce")

        let defaultPort = try SignedHTTPRequest.make(
            key: key, accessToken: "at", method: "POST", url: try #require(URL(string: "https://graph.example.com/v1.0/me")), nonce: nil,
            timestamp: 1)
        let second = try DecodedJWS(defaultPort) { _, claims in (claims["cnf"] as? [String: Any])?["jwk"] }
        #expect(second.claims["u"] as? String == "graph.example.com")
        // No nonce given: a random one (a UUID, as MSAL for iOS makes).
        #expect(UUID(uuidString: second.claims["nonce"] as? String ?? "") != nil)
    }

    @Test(
        "PyJWT checks our proofs as a server would (RFC 9449 §4.3 and RFC 7638 written in verify_proof.py): DPoP with and without ath and nonce, and the signed HTTP request"
    )
    func verifiedByPyJWT() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-pop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ name: String, _ text: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let now = Int64(Date().timeIntervalSince1970)
        let dpopKey = try Self.dpopKey.get()
        let url = "https://Resource.Example.org:443/api/items?page=2#top"
        let tokenEndpointProof = try DPoPProof.make(key: dpopKey, method: "POST", url: try #require(URL(string: url)), issuedAt: now)
        let first = try await PythonMSAL.runChecked(
            "verify_proof.py", ["dpop", try write("first.jwt", tokenEndpointProof), "POST", url, "-", "-"]
        ).jsonObject()
        #expect(first["jkt"] as? String == dpopKey.thumbprint)

        let resourceProof = try DPoPProof.make(
            key: dpopKey, method: "GET", url: try #require(URL(string: url)), accessToken: "eyJ.bound.token", nonce: "nonce-7",
            issuedAt: now)
        let second = try await PythonMSAL.runChecked(
            "verify_proof.py",
            ["dpop", try write("second.jwt", resourceProof), "GET", url, try write("token.txt", "eyJ.bound.token"), "nonce-7"]
        ).jsonObject()
        #expect(second["jkt"] as? String == dpopKey.thumbprint)
        // The script is not a rubber stamp: the same proof for another method fails there.
        let refused = try await PythonMSAL.run("verify_proof.py", ["dpop", try write("third.jwt", resourceProof), "POST", url, "-", "-"])
        #expect(refused.status != 0)

        let shrKey = try Self.shrKey.get()
        let shr = try SignedHTTPRequest.make(
            key: shrKey, accessToken: "at-value", method: "GET", url: try #require(URL(string: "https://graph.example.com/v1.0/me")),
            nonce: nil, timestamp: now)
        let checked = try await PythonMSAL.runChecked("verify_proof.py", ["shr", try write("shr.jwt", shr)]).jsonObject()
        #expect(checked["jkt"] as? String == shrKey.thumbprint)
        #expect((checked["claims"] as? [String: Any])?["at"] as? String == "at-value")
    }

    @Test(
        "A resource checks our signed HTTP requests (SignedHTTPRequestVerifier): host with a non-default port, an empty path as /, the method; another key's signature, a changed claim and a private cnf.jwk are refused"
    )
    func signedHTTPRequestVerified() throws {
        let key = try Self.shrKey.get()
        let verifier = SignedHTTPRequestVerifier()
        let now: Int64 = 1_700_000_000
        let bare = try SignedHTTPRequest.make(
            key: key, accessToken: "a.b.c", method: "GET", url: URL(string: "https://API.example")!, nonce: "n", timestamp: now)
        for path in ["", "/"] {
            let accepted = try verifier.verify(bare, method: "GET", host: "api.example", path: path, now: now)
            #expect(accepted.accessToken == "a.b.c" && accepted.thumbprint == key.thumbprint && accepted.nonce == "n")
        }
        let ported = try SignedHTTPRequest.make(
            key: key, accessToken: "a.b.c", method: "POST", url: URL(string: "https://api.example:8443/v1/x?y=1")!, nonce: nil,
            timestamp: now)
        #expect(try verifier.verify(ported, method: "POST", host: "api.example:8443", path: "/v1/x", now: now + 10).timestamp == now)
        #expect(throws: JOSEError.self) { try verifier.verify(ported, method: "GET", host: "api.example:8443", path: "/v1/x", now: now) }
        #expect(throws: JOSEError.self) { try verifier.verify(ported, method: "POST", host: "api.example", path: "/v1/x", now: now) }
        #expect(throws: JOSEError.self) {
            try verifier.verify(ported, method: "POST", host: "api.example:8443", path: "/v1/x", now: now + 400)
        }
        // A flipped signature byte.
        var bytes = Array(ported.utf8)
        bytes[bytes.count - 3] = bytes[bytes.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: JOSEError.self) {
            try verifier.verify(String(decoding: bytes, as: UTF8.self), method: "POST", host: "api.example:8443", path: "/v1/x", now: now)
        }
    }

}

@Suite("MSAL for Python on a cache holding our proof-of-possession tokens")
struct ProofOfPossessionPythonCacheTests {
    static let client = "6b0c2e4a-8d1f-4c3b-9a5e-7f2d1c0b3a49"
    static let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    /// A cache document with the user's tokens for User.Read: a bearer access token, a bound one
    /// (MSAL's PoP, or DPoP with the refresh token marked bound), or both.
    static func document(bearer: Bool, bound: Bool, dpop: Bool = false) throws -> [UInt8] {
        var contents = TokenCacheContents()
        func save(_ secret: String, _ scheme: TokenScheme) throws {
            let claims = #"{"oid":"uid","tid":"\#(tenant)","sub":"uid","preferred_username":"ben@contoso.example"}"#
            let response = TokenResponse(
                accessToken: secret, tokenType: scheme.tokenType, expiresIn: 3600, refreshToken: "rt",
                idToken: "e30." + Base64URL.encode(Array(claims.utf8)) + ".c2ln",
                clientInfo: Base64URL.encode(Array(#"{"uid":"uid","utid":"\#(tenant)"}"#.utf8)), scope: "User.Read")
            var context = TokenCacheWriteContext(
                clientID: client, environment: "login.microsoftonline.com", authorityTenant: tenant, requestedScopes: ["User.Read"],
                now: Int64(Date().timeIntervalSince1970), scheme: scheme)
            if case .dpop(let keyID) = scheme { context.refreshTokenKeyID = keyID }
            contents.save(try TokenCacheEntries(response: response, context: context), clientID: client)
        }
        if bearer { try save("bearer-at", .bearer) }
        if bound { try save("bound-at", dpop ? .dpop(keyID: "key-thumbprint") : .pop(keyID: "key-thumbprint")) }
        return contents.document.serialized()
    }

    @Test(
        "MSAL for Python answers a bearer request with our bearer token when both are cached, and writes the bound token back unchanged (MSAL's PoP and DPoP, with the DPoP-bound refresh token's key_id); with only a bound token it hands that one out (token_type pop), as with a cache MSAL.NET writes"
    )
    func roundTrip() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-pop-python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func run(_ name: String, bearer: Bool, dpop: Bool = false) async throws -> ([String: Any], TokenCacheContents) {
            let input = folder.appendingPathComponent("\(name).json")
            let output = folder.appendingPathComponent("\(name)-out.json")
            try Data(try Self.document(bearer: bearer, bound: true, dpop: dpop)).write(to: input)
            let report = try await PythonMSAL.runChecked(
                "pop_cache.py",
                [input.path, output.path, Self.client, "https://login.microsoftonline.com/\(Self.tenant)", "User.Read"]
            ).jsonObject()
            let written = TokenCacheContents(document: try TokenCacheDocument(parsing: Array(try Data(contentsOf: output))))
            return (report, written)
        }
        func bound(_ contents: TokenCacheContents, _ scheme: TokenScheme = .pop(keyID: "key-thumbprint")) -> String? {
            contents.accessTokenAndIDToken(
                homeAccountID: "uid.\(Self.tenant)", environment: "login.microsoftonline.com", clientID: Self.client, realms: [Self.tenant],
                scopes: ["user.read"], scheme: scheme, now: Int64(Date().timeIntervalSince1970), expiryBuffer: 300
            )?.token.secret
        }

        let (both, written) = try await run("both", bearer: true)
        #expect(both["accounts"] as? Int == 1)
        #expect(both["access_token"] as? String == "bearer-at" && both["token_type"] as? String == "Bearer")
        // Its serialize() keeps our bound token as we wrote it: we still find it by its key.
        #expect(bound(written) == "bound-at")

        let (only, _) = try await run("only", bearer: false)
        #expect(only["access_token"] as? String == "bound-at" && only["token_type"] as? String == "pop")

        // DPoP: the same, and the refresh token's binding (key_id) survives MSAL for Python's write.
        let (dpop, dpopWritten) = try await run("dpop", bearer: true, dpop: true)
        #expect(dpop["access_token"] as? String == "bearer-at" && dpop["token_type"] as? String == "Bearer")
        #expect(bound(dpopWritten, .dpop(keyID: "key-thumbprint")) == "bound-at")
        let refreshToken = dpopWritten.refreshToken(
            homeAccountID: "uid.\(Self.tenant)", environment: "login.microsoftonline.com", clientID: Self.client)
        #expect(refreshToken?.entry[.keyID] == "key-thumbprint")
    }
}
