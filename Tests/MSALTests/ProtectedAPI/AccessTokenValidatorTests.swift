import Foundation
import MSALJOSE
import MSALJSON
import MSALSupport
import Testing

@testable import MSAL

/// An identity provider that publishes metadata and a key set an API validates tokens with: a
/// generic OpenID provider at `https://idp.example.test`, and Microsoft Entra's public cloud for
/// one tenant and for `organizations`. It counts key-set fetches, can rotate its keys, and can fail
/// them.
final class KeyPublishingProvider: MSALHTTPTransport {
    static let issuer = "https://idp.example.test"
    static let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    private struct State {
        var keys: [JWSSigningKey]
        var keyFetches = 0
        var failsKeys = false
        var keyDelay: Duration = .zero
    }

    private let state: Mutex<State>

    init(keys: [JWSSigningKey]) {
        state = Mutex(State(keys: keys))
    }

    var keyFetches: Int { state.withLock { $0.keyFetches } }
    func publish(_ keys: [JWSSigningKey]) { state.withLock { $0.keys = keys } }
    func failKeys(_ fails: Bool) { state.withLock { $0.failsKeys = fails } }
    /// Makes every key-set answer take `delay` (a slow provider: a refetch stays under way that long).
    func delayKeys(_ delay: Duration) { state.withLock { $0.keyDelay = delay } }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let host = request.url.host ?? ""
        let path = request.url.path
        if host == "idp.example.test", path == "/.well-known/openid-configuration" {
            return .json(
                200,
                """
                {"issuer":"\(Self.issuer)","authorization_endpoint":"\(Self.issuer)/authorize","token_endpoint":"\(Self.issuer)/token",\
                "jwks_uri":"\(Self.issuer)/keys"}
                """)
        }
        if host == "login.microsoftonline.com", path == "/common/discovery/instance" {
            return .json(
                200,
                """
                {"tenant_discovery_endpoint":"https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",\
                "api-version":"1.1","metadata":[{"preferred_network":"login.microsoftonline.com","preferred_cache":"login.windows.net",\
                "aliases":["login.microsoftonline.com","login.windows.net","login.microsoft.com","sts.windows.net"]}]}
                """)
        }
        if host == "login.microsoftonline.com", path.hasSuffix("/v2.0/.well-known/openid-configuration") {
            let tenant = String(path.split(separator: "/")[0])
            let issuerTenant = tenant == "organizations" || tenant == "common" ? "{tenantid}" : tenant
            let base = "https://login.microsoftonline.com/\(tenant)"
            return .json(
                200,
                """
                {"issuer":"https://login.microsoftonline.com/\(issuerTenant)/v2.0","authorization_endpoint":"\(base)/oauth2/v2.0/authorize",\
                "token_endpoint":"\(base)/oauth2/v2.0/token","jwks_uri":"https://login.microsoftonline.com/\(tenant)/discovery/v2.0/keys"}
                """)
        }
        if path == "/keys" || path.hasSuffix("/discovery/v2.0/keys") {
            let (keys, fails, delay) = state.withLock { state -> ([JWSSigningKey], Bool, Duration) in
                state.keyFetches += 1
                return (state.keys, state.failsKeys, state.keyDelay)
            }
            if delay > .zero { try await Task.sleep(for: delay) }
            if fails { return MSALHTTPResponse(statusCode: 503, text: "unavailable") }
            var jwks: [JSON] = []
            for key in keys { jwks.append(try key.publicJWK()) }
            return MSALHTTPResponse(statusCode: 200, body: JSONWriter.write(.object([JSONMember(name: "keys", value: .array(jwks))])))
        }
        return MSALHTTPResponse(statusCode: 404, text: "not found")
    }
}

@Suite("Access-token validation for protected APIs: signature, issuer, audience, times, permissions, keys and challenges")
struct AccessTokenValidatorTests {
    static let audience = "api://contoso-orders"
    static let clientID = "6731de76-14a6-49ae-97bc-6eba6914391e"
    static let signer: JWSSigningKey = {
        do {
            return try JWSSigningKey.generateRSA(keyID: "key-1")
        } catch {
            fatalError("an RSA key could not be made: \(error)")
        }
    }()

    struct Setup {
        let provider: KeyPublishingProvider
        let clock: ManualClock
        let validator: MSALAccessTokenValidator
    }

    static func setup(
        authority: MSALAuthority? = nil, keys: [JWSSigningKey] = [signer], allowedTenants: [String]? = nil,
        validatedTokenCacheSize: Int = 1024
    ) throws -> Setup {
        let provider = KeyPublishingProvider(keys: keys)
        let clock = ManualClock()
        let validator = try MSALAccessTokenValidator(
            authority: try authority ?? MSALOIDCAuthority(url: URL(string: KeyPublishingProvider.issuer)!),
            audiences: [Self.audience, Self.clientID], allowedTenants: allowedTenants,
            validatedTokenCacheSize: validatedTokenCacheSize, transport: provider, clock: clock)
        return Setup(provider: provider, clock: clock, validator: validator)
    }

    /// A token signed by `key` with the usual claims, changed by `edit`.
    static func token(
        _ clock: ManualClock, key: JWSSigningKey = signer, issuer: String = KeyPublishingProvider.issuer,
        edit: (inout [String: JSON]) -> Void = { _ in }
    ) throws -> String {
        let now = Int64(clock.now().timeIntervalSince1970)
        var claims: [String: JSON] = [
            "iss": .string(issuer), "aud": .string(audience), "sub": .string("user-sub"), "oid": .string("user-oid"),
            "tid": .string(KeyPublishingProvider.tenant), "azp": .string("client-app"), "scp": .string("Orders.Read Orders.Write"),
            "iat": .integer(now), "nbf": .integer(now), "exp": .integer(now + 3600), "ver": .string("2.0"),
        ]
        edit(&claims)
        return try key.sign(claims: .object(claims.sorted { $0.key < $1.key }.map { JSONMember(name: $0.key, value: $0.value) }))
    }

    @Test("A valid delegated token: its claims, and the permissions it grants or lacks (403 insufficient_scope)")
    func validDelegatedToken() async throws {
        let setup = try Self.setup()
        let token = try await setup.validator.validate(authorizationHeader: "Bearer " + (try Self.token(setup.clock)))
        #expect(token.subject == "user-sub" && token.objectID == "user-oid" && token.tenantID == KeyPublishingProvider.tenant)
        #expect(token.clientID == "client-app" && token.version == "2.0")
        #expect(token.scopes == ["Orders.Read", "Orders.Write"] && token.roles.isEmpty && !token.isAppToken)
        try token.require(scopes: ["Orders.Write"])
        try token.require(scopes: ["Orders.Delete", "Orders.Read"])
        do {
            try token.require(scopes: ["Orders.Delete"], roles: ["Orders.Admin"])
            Issue.record("a permission the token lacks was accepted")
        } catch let error as MSALFailure {
            #expect(error.internalCode == .insufficientPermission)
            let challenge = MSALBearerChallenge(for: error, realm: "orders")
            #expect(challenge.status == 403 && challenge.error == "insufficient_scope")
            #expect(
                challenge.headerValue
                    == #"Bearer realm="orders", error="insufficient_scope", error_description="The access token does not grant the required permission", scope="Orders.Delete Orders.Admin""#
            )
        }
        do {
            try token.require(scopes: ["Orders.\"Delete\""])
        } catch {
            let header = MSALBearerChallenge(for: error, realm: "or\"ders\r\n").headerValue
            #expect(header?.hasPrefix(#"Bearer realm="orders", error="insufficient_scope""#) == true, "\(String(describing: header))")
            #expect(header?.hasSuffix(#"scope="Orders.Delete""#) == true, "a quote or line break cannot break the header")
        }
        #expect(setup.provider.keyFetches == 1)
        _ = try await setup.validator.validate(try Self.token(setup.clock))
        #expect(setup.provider.keyFetches == 1, "the keys are kept")
    }

    @Test("require(scopes:) matches whole items of scp, or of RFC 9068's scope, whatever the spacing")
    func scopeItems() async throws {
        let setup = try Self.setup()
        for (claim, list) in [("scp", "  Orders.ReadAll  Orders.Write "), ("scope", "Orders.ReadAll Orders.Write x\ty")] {
            let token = try await setup.validator.validate(
                try Self.token(setup.clock) { claims in
                    claims["scp"] = nil
                    claims[claim] = .string(list)
                })
            try token.require(scopes: ["Orders.Write"])
            try token.require(scopes: ["Orders.ReadAll"])
            for missing in ["Orders.Read", "Orders.ReadAll Orders.Write", "Orders", "", " ", "x", "Orders.Writ"] {
                #expect(throws: MSALFailure.self, "\(missing) in \(claim)") { try token.require(scopes: [missing]) }
            }
            #expect(token.scopes.contains("Orders.Write") && !token.scopes.contains(""))
        }
        #expect(AccessToken.spaceSeparated("a b", contains: "b") && AccessToken.spaceSeparated("b", contains: "b"))
        #expect(!AccessToken.spaceSeparated("", contains: "") && !AccessToken.spaceSeparated("  ", contains: ""))
        #expect(!AccessToken.spaceSeparated("ab", contains: "b") && !AccessToken.spaceSeparated("a", contains: "ab"))
    }

    @Test("An app token carries roles, no scopes")
    func appToken() async throws {
        let setup = try Self.setup()
        let raw = try Self.token(setup.clock) { claims in
            claims["scp"] = nil
            claims["roles"] = .array([.string("Orders.ReadAll")])
            claims["idtyp"] = .string("app")
            claims["aud"] = .string(Self.clientID)
        }
        let token = try await setup.validator.validate(raw)
        #expect(token.isAppToken && token.roles == ["Orders.ReadAll"] && token.scopes.isEmpty)
        try token.require(roles: ["Orders.ReadAll"])
        #expect(throws: MSALFailure.self) { try token.require(scopes: ["Orders.ReadAll"]) }
    }

    @Test(
        "Each wrong claim or signature is refused: a typed error and 401 invalid_token",
        arguments: [
            ("expired", MSALInternalError.idTokenExpired),
            ("not yet valid", .idTokenNotYetValid),
            ("issued in the future", .idTokenIssuedInFuture),
            ("another issuer", .idTokenIssuerMismatch),
            ("an issuer that only starts like ours", .idTokenIssuerMismatch),
            ("another audience", .idTokenAudienceMismatch),
            ("no audience", .idTokenMissingClaim),
            ("no exp", .idTokenMissingClaim),
            ("a tampered payload", .jwtInvalidSignature),
            ("a key the provider never published", .jwtSigningKeyNotFound),
            ("HS256 with the public key as the secret", .jwtUnsupportedAlgorithm),
            ("not a JWT", .jwtMalformed),
        ])
    func refused(_ name: String, _ expected: MSALInternalError) async throws {
        let setup = try Self.setup()
        let clock = setup.clock
        let token: String
        switch name {
        case "expired": token = try Self.token(clock) { $0["exp"] = .integer(Int64(clock.now().timeIntervalSince1970) - 301) }
        case "not yet valid": token = try Self.token(clock) { $0["nbf"] = .integer(Int64(clock.now().timeIntervalSince1970) + 301) }
        case "issued in the future": token = try Self.token(clock) { $0["iat"] = .integer(Int64(clock.now().timeIntervalSince1970) + 301) }
        case "another issuer": token = try Self.token(clock, issuer: "https://evil.example.test")
        case "an issuer that only starts like ours": token = try Self.token(clock, issuer: KeyPublishingProvider.issuer + ".evil")
        case "another audience": token = try Self.token(clock) { $0["aud"] = .array([.string("api://other"), .string("x")]) }
        case "no audience": token = try Self.token(clock) { $0["aud"] = nil }
        case "no exp": token = try Self.token(clock) { $0["exp"] = nil }
        case "a tampered payload":
            let parts = try Self.token(clock).split(separator: ".").map(String.init)
            let forged = try Self.token(clock) { $0["scp"] = .string("Orders.Admin") }.split(separator: ".").map(String.init)
            token = [parts[0], forged[1], parts[2]].joined(separator: ".")
        case "a key the provider never published":
            token = try Self.token(clock, key: try JWSSigningKey.generateRSA(keyID: "stranger"))
        case "HS256 with the public key as the secret":
            let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"key-1","typ":"JWT"}"#.utf8))
            let body = try Self.token(clock).split(separator: ".")[1]
            token = header + "." + body + "." + Base64URL.encode(Array(repeating: 7, count: 32))
        default: token = "not-a-jwt"
        }
        do {
            let accepted = try await setup.validator.validate(token)
            Issue.record("\(name): accepted \(String(describing: accepted.subject))")
        } catch let error as MSALFailure {
            #expect(error.internalCode == expected, "\(name): \(error)")
            let challenge = MSALBearerChallenge(for: error)
            #expect(challenge.status == 401 && challenge.error == "invalid_token", "\(name)")
            #expect(challenge.headerValue?.hasPrefix(#"Bearer error="invalid_token", error_description=""#) == true)
            #expect(challenge.headerValue?.contains("idp.example.test") == false, "the answer names no configuration")
        }
    }

    @Test("A request without a bearer token: accessTokenMissing and 401 with no error code")
    func missingToken() async throws {
        let setup = try Self.setup()
        for header in [
            nil, "", " \t ", "Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer\ta.b.c\u{A0}", "Bearera.b.c", "Bearxr a.b.c",
            "Bearer a b c", "Bearer \u{1}.\u{2}.\u{3}",
        ] as [String?] {
            do {
                _ = try await setup.validator.validate(authorizationHeader: header)
                Issue.record("\(String(describing: header)) was accepted")
            } catch let error as MSALFailure {
                #expect(error.internalCode == .accessTokenMissing, "\(String(describing: header))")
                #expect(
                    MSALBearerChallenge(for: error, realm: "orders")
                        == MSALBearerChallenge(status: 401, error: nil, headerValue: #"Bearer realm="orders""#))
            }
        }
        #expect(setup.provider.keyFetches == 0, "nothing was fetched for them")
        // The scheme in any case, spaces and tabs around the parts (RFC 9110's OWS).
        let token = try Self.token(setup.clock)
        for header in ["bearer \(token)", "BEARER\t\(token)", " \t Bearer  \t\(token)\t "] {
            #expect(try await setup.validator.validate(authorizationHeader: header).subject == "user-sub")
        }
    }

    @Test("Through the header with the keys in memory: a rotated key is fetched once, a refused token is the same typed error")
    func headerWithWarmKeys() async throws {
        let setup = try Self.setup()
        #expect(try await setup.validator.validate(authorizationHeader: "Bearer \(try Self.token(setup.clock))").subject == "user-sub")
        #expect(setup.provider.keyFetches == 1)
        let rotated = try JWSSigningKey.generateRSA(keyID: "key-2")
        setup.provider.publish([Self.signer, rotated])
        let fresh = try Self.token(setup.clock, key: rotated)
        #expect(try await setup.validator.validate(authorizationHeader: "Bearer \(fresh)").subject == "user-sub")
        #expect(setup.provider.keyFetches == 2, "the new kid made the set be fetched once")
        #expect(try await setup.validator.validate(authorizationHeader: "Bearer \(fresh)").subject == "user-sub")
        #expect(setup.provider.keyFetches == 2)
        // A token whose signature does not verify, with the keys warm: the typed error the string API gives.
        let pieces = fresh.split(separator: ".")
        let forged = "\(pieces[0]).\(pieces[1]).\(String(pieces[2].reversed()))"
        var viaString: MSALFailure?
        do { _ = try await setup.validator.validate(forged) } catch let error as MSALFailure { viaString = error }
        var viaHeader: MSALFailure?
        do { _ = try await setup.validator.validate(authorizationHeader: "Bearer \(forged)") } catch let error as MSALFailure {
            viaHeader = error
        }
        let expected = try #require(viaString)
        #expect(viaHeader?.internalCode == expected.internalCode)
        #expect(viaHeader?.code == expected.code)
        #expect(setup.provider.keyFetches == 2)
    }

    @Test("A rotated key is fetched once; a flood of unknown kids fetches the set at most once a minute")
    func rotationAndFlood() async throws {
        let setup = try Self.setup()
        _ = try await setup.validator.validate(try Self.token(setup.clock))
        #expect(setup.provider.keyFetches == 1)
        let rotated = try JWSSigningKey.generateRSA(keyID: "key-2")
        setup.provider.publish([Self.signer, rotated])
        _ = try await setup.validator.validate(try Self.token(setup.clock, key: rotated))
        #expect(setup.provider.keyFetches == 2, "the new kid made the set be fetched once")
        _ = try await setup.validator.validate(try Self.token(setup.clock, key: rotated))
        #expect(setup.provider.keyFetches == 2)

        // 1,000 tokens with random kids within the minute: no fetch at all (one was just made).
        let forger = try JWSSigningKey.generateRSA(keyID: "forged")
        let forgedBody = try Self.token(setup.clock, key: forger)
        let pieces = forgedBody.split(separator: ".")
        for index in 0..<1000 {
            let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"forged-\#(index)","typ":"JWT"}"#.utf8))
            let forged = header + "." + pieces[1] + "." + pieces[2]
            await #expect(throws: MSALFailure.self) { _ = try await setup.validator.validate(forged) }
        }
        #expect(setup.provider.keyFetches == 2)
        setup.clock.advance(by: 61)
        for index in 0..<100 {
            let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"later-\#(index)","typ":"JWT"}"#.utf8))
            await #expect(throws: MSALFailure.self) { _ = try await setup.validator.validate(header + "." + pieces[1] + "." + pieces[2]) }
        }
        #expect(setup.provider.keyFetches == 3, "a minute later, one more fetch")
    }

    @Test("A failed refetch keeps the keys: known keys still validate; the failure is not a token error (503)")
    func failedRefetchKeepsKeys() async throws {
        let setup = try Self.setup()
        _ = try await setup.validator.validate(try Self.token(setup.clock))
        setup.provider.failKeys(true)
        let stranger = try JWSSigningKey.generateRSA(keyID: "key-9")
        do {
            _ = try await setup.validator.validate(try Self.token(setup.clock, key: stranger))
            Issue.record("a token of an unknown key was accepted")
        } catch let error as MSALFailure {
            #expect(error.internalCode.map { $0.rawValue > -46000 || $0.rawValue <= -47000 } ?? true, "not a token error: \(error)")
            #expect(MSALBearerChallenge(for: error).status == 503)
        }
        let fetches = setup.provider.keyFetches
        #expect(fetches >= 2, "the set was fetched again")
        _ = try await setup.validator.validate(try Self.token(setup.clock))
        #expect(setup.provider.keyFetches == fetches, "the set in memory was kept")
    }

    @Test("Microsoft Entra: v2.0 and v1.0 issuers of the tenant; a multi-tenant API checks tid against its allowed tenants")
    func entraIssuers() async throws {
        let tenant = KeyPublishingProvider.tenant
        let single = try Self.setup(authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!))
        for issuer in ["https://login.microsoftonline.com/\(tenant)/v2.0", "https://sts.windows.net/\(tenant)/"] {
            let token = try await single.validator.validate(try Self.token(single.clock, issuer: issuer))
            #expect(token.tenantID == tenant)
        }
        await #expect(throws: MSALFailure.self) {
            _ = try await single.validator.validate(try Self.token(single.clock, issuer: "https://login.microsoftonline.com/other/v2.0"))
        }

        let multi = try Self.setup(
            authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/organizations")!),
            allowedTenants: [tenant.uppercased()])
        _ = try await multi.validator.validate(try Self.token(multi.clock, issuer: "https://login.microsoftonline.com/\(tenant)/v2.0"))
        let other = "0b9e4f3a-9c3e-4a4f-8f0b-2f3c9d2e7a11"
        do {
            _ = try await multi.validator.validate(
                try Self.token(multi.clock, issuer: "https://login.microsoftonline.com/\(other)/v2.0") { $0["tid"] = .string(other) })
            Issue.record("a tenant outside the allowed ones was accepted")
        } catch let error as MSALFailure {
            #expect(error.internalCode == .idTokenIssuerMismatch)
        }
        // The issuer must be the template filled with the token's own tid.
        await #expect(throws: MSALFailure.self) {
            _ = try await multi.validator.validate(
                try Self.token(multi.clock, issuer: "https://login.microsoftonline.com/\(tenant)/v2.0") { $0["tid"] = .string(other) })
        }
    }

    @Test("A token's characters: base64url and dots only, wherever another one stands")
    func tokenCharacters() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".unicodeScalars)
        let others = (0..<128).compactMap(Unicode.Scalar.init).filter { !allowed.contains($0) } + ["é", "\u{A0}", "\u{1F600}"]
        #expect(MSALAccessTokenValidator.isCompactJWTText(""))
        for length in [1, 2, 15, 16, 17, 31, 32, 33, 48, 100] {
            let clean = String((0..<length).map { index in Character(Array(allowed)[index * 7 % allowed.count]) })
            #expect(MSALAccessTokenValidator.isCompactJWTText(clean), "\(length) allowed characters")
            for position in Set([0, length / 2, length - 1, min(15, length - 1), min(16, length - 1)]) {
                for other in others {
                    var characters = Array(clean)
                    characters[position] = Character(other)
                    #expect(
                        !MSALAccessTokenValidator.isCompactJWTText(String(characters)),
                        "U+\(String(other.value, radix: 16)) at \(position) of \(length)")
                }
            }
        }
    }

    @Test("Errors carry the request's correlation id: the caller's, else a new random one for each call")
    func correlationIDs() async throws {
        let setup = try Self.setup()
        let expired = try Self.token(setup.clock) { $0["exp"] = .integer(Int64(setup.clock.now().timeIntervalSince1970) - 3600) }
        let given = UUID()
        var drawn: [UUID] = []
        for header in [nil, "Bearer \(expired)"] as [String?] {
            do {
                _ = try await setup.validator.validate(authorizationHeader: header, correlationID: given)
                Issue.record("accepted")
            } catch let error as MSALFailure {
                #expect(error.correlationID == given)
            }
            for _ in 0..<2 {
                do {
                    _ = try await setup.validator.validate(authorizationHeader: header)
                    Issue.record("accepted")
                } catch let error as MSALFailure {
                    let id = try #require(error.correlationID)
                    // RFC 9562 version 4: random.
                    #expect(id.uuid.6 >> 4 == 4 && id.uuid.8 >> 6 == 0b10)
                    drawn.append(id)
                }
            }
        }
        #expect(Set(drawn).count == 4 && !drawn.contains(given), "each call without an id gets its own")
    }

    @Test("A validator needs an audience")
    func needsAudience() throws {
        #expect(throws: MSALFailure.self) {
            _ = try MSALAccessTokenValidator(
                authority: try MSALOIDCAuthority(url: URL(string: KeyPublishingProvider.issuer)!), audiences: [""])
        }
    }
}
