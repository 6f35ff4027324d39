import Foundation
import MSALJOSE
import MSALJSON
import MSALSupport
import Testing

@testable import MSAL

/// `acquireTokenSilent` through the public API against the fake identity provider: what a refresh
/// response must pass before anything is cached, what happens to the refresh token, the extended
/// lifetime, parameter errors, and the documented fallback to interaction.
@Suite("Silent acquisition: redemption checks, refresh tokens, extended lifetime, errors")
struct SilentFlowTests {
    /// A harness whose account's access token expired, so every silent call refreshes.
    static func expired(_ transport: FlowTransport, extendedLifetime: Bool = false) throws -> FlowHarness {
        let harness = try FlowHarness(transport, extendedLifetime: extendedLifetime)
        try harness.seed(.abe, lifetime: 900, extendedLifetime: extendedLifetime ? 90_000 : nil)
        return harness
    }

    static func document(_ harness: FlowHarness) throws -> TokenCacheDocument {
        try harness.app.cache.read(clientID: FlowIdentity.clientID) { $0.document }
    }

    // MARK: The response is checked before anything is cached

    enum BadResponse: String, CaseIterable, Sendable {
        case forgedSignature, wrongAudience, wrongIssuer, issuerOfAnotherTenant, expiredIDToken, otherAccount, noClientInfoAndOtherSubject,
            errorBodyWith200
    }

    @Test("A refresh response that fails a check caches nothing and throws the precise error", arguments: BadResponse.allCases)
    func badResponse(_ bad: BadResponse) async throws {
        let response: MSALHTTPResponse
        switch bad {
        case .forgedSignature:
            response = FlowTokens.success(
                accessToken: "at-new", refreshToken: "rt-new", idToken: FlowTokens.idToken(.abe, key: FlowKeys.attacker))
        case .wrongAudience:
            response = FlowTokens.success(
                accessToken: "at-new", refreshToken: "rt-new", idToken: FlowTokens.idToken(.abe, audience: "someone-else"))
        case .wrongIssuer:
            response = FlowTokens.success(
                accessToken: "at-new", refreshToken: "rt-new",
                idToken: FlowTokens.idToken(.abe, ["iss": .string("https://evil.example/\(FlowIdentity.tenant)/v2.0")]))
        case .issuerOfAnotherTenant:
            let other = "99999999-9999-4999-8999-999999999999"
            response = FlowTokens.success(
                accessToken: "at-new", refreshToken: "rt-new",
                idToken: FlowTokens.idToken(
                    .abe, ["iss": .string("https://\(FlowIdentity.host)/\(other)/v2.0"), "tid": .string(other)]))
        case .expiredIDToken:
            response = FlowTokens.success(
                accessToken: "at-new", refreshToken: "rt-new",
                idToken: FlowTokens.idToken(.abe, ["exp": .integer(FlowIdentity.issued + 60)]))
        case .otherAccount:
            response = FlowTokens.success(accessToken: "at-new", refreshToken: "rt-new", account: .ben)
        case .noClientInfoAndOtherSubject:
            response = FlowTokens.success(accessToken: "at-new", refreshToken: "rt-new", clientInfo: .some(nil))
        case .errorBodyWith200:
            response = .json(200, #"{"error":"invalid_grant","error_description":"AADSTS70008"}"#)
        }
        let harness = try Self.expired(FlowTransport([.respond(response)]))
        let before = try Self.document(harness)
        let error = await expectMSALError { try await harness.silent(.abe) }
        let expected: MSALInternalError =
            switch bad {
            case .forgedSignature: .jwtInvalidSignature
            case .wrongAudience: .idTokenAudienceMismatch
            case .wrongIssuer, .issuerOfAnotherTenant: .idTokenIssuerMismatch
            case .expiredIDToken: .idTokenExpired
            case .otherAccount, .noClientInfoAndOtherSubject: .internalErrorMismatchedUser
            case .errorBodyWith200: .internalErrorInvalidResponse
            }
        #expect(error?.internalCode == expected, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.code == .internal)
        if [.forgedSignature, .wrongAudience, .wrongIssuer, .issuerOfAnotherTenant, .expiredIDToken].contains(bad) {
            // The ID token checks are swift-msal's -46xxx codes.
            #expect((-46999 ... -46000).contains(error?.internalCode?.rawValue ?? 0))
        }
        #expect(try Self.document(harness) == before, "nothing may be cached")
        #expect(harness.transport.tokenRequests.count == 1)
    }

    static let validIDToken = FlowTokens.idToken(.abe)
    static let validClientInfo = FlowTokens.clientInfo(.abe)

    /// A success body with `members` replaced (a `nil` value drops the member).
    static func body(_ changes: [String: String?]) -> String {
        var members: [(String, String?)] = [
            ("token_type", #""Bearer""#), ("scope", #""User.Read openid profile""#), ("expires_in", "3599"), ("access_token", #""at-new""#),
            ("refresh_token", #""rt-new""#), ("id_token", "\"\(validIDToken)\""), ("client_info", "\"\(validClientInfo)\""),
        ]
        for (name, value) in changes {
            if let index = members.firstIndex(where: { $0.0 == name }) { members[index].1 = value } else { members.append((name, value)) }
        }
        return "{" + members.compactMap { name, value in value.map { "\"\(name)\":\($0)" } }.joined(separator: ",") + "}"
    }

    static let malformedBodies: [(String, String)] = [
        ("HTML", "<html><body>Service temporarily unavailable</body></html>"),
        ("empty", ""),
        ("truncated", String(body([:]).prefix(60))),
        ("array", "[]"),
        ("no access_token", body(["access_token": nil])),
        ("empty access_token", body(["access_token": #""""#])),
        ("no token_type", body(["token_type": nil])),
        ("pop token_type", body(["token_type": #""pop""#])),
        ("no expires_in", body(["expires_in": nil])),
        ("negative expires_in", body(["expires_in": "-5"])),
        ("garbage expires_in", body(["expires_in": #""soon""#])),
        ("boolean expires_in", body(["expires_in": "true"])),
        ("id_token not a string", body(["id_token": "{}"])),
        ("id_token not a JWT", body(["id_token": #""abc""#])),
        ("client_info not base64url JSON", body(["client_info": #""%%%""#])),
        ("error member in a 200", body(["error": #""invalid_grant""#])),
    ]

    @Test("Malformed 200 token responses end in a typed error and cache nothing")
    func malformedSuccess() async throws {
        for (name, text) in Self.malformedBodies {
            let harness = try Self.expired(
                FlowTransport([.respond(MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], text: text))]))
            let before = try Self.document(harness)
            let error = await expectMSALError { try await harness.silent(.abe) }
            #expect(error?.code == .internal, "\(name)")
            #expect(
                error?.internalCode != nil && error?.internalCode != .internalErrorUnexpected, "\(name): \(error.map { "\($0)" } ?? "")")
            #expect(try Self.document(harness) == before, "\(name): nothing may be cached")
        }
    }

    @Test("Token responses with numbers as strings, a huge or zero lifetime, or no refresh_in are accepted")
    func lenientSuccess() async throws {
        for (changes, expiresIn) in [
            (["expires_in": #""3599""#, "ext_expires_in": #""7200""#, "refresh_in": #""1800""#], 3599.0),
            (["expires_in": "99999999999"], 365 * 24 * 3600.0),
            (["expires_in": "3599.9"], 3599.0),
        ] as [([String: String?], Double)] {
            let harness = try Self.expired(FlowTransport([.respond(.json(200, Self.body(changes)))]))
            let result = try await harness.silent(.abe)
            #expect(result.accessToken == "at-new")
            #expect(result.expiresOn == Date(timeIntervalSince1970: FlowIdentity.now + expiresIn), "\(changes)")
        }
    }

    @Test("A result's description names scopes, expiry, source and account, never a token")
    func resultDescriptionHasNoTokens() async throws {
        let harness = try Self.expired(FlowTransport([.respond(.json(200, Self.body([:])))]))
        let result = try await harness.silent(.abe)
        let idToken = try #require(result.idToken)
        for text in [result.description, "\(result)", String(reflecting: result)] {
            #expect(!text.contains(result.accessToken))
            #expect(!text.contains(idToken))
            #expect(text.contains("tokenSource: identity_provider"))
        }
    }

    @Test("A token response after a byte-order mark is read (as error and device-code bodies are); a second mark is not skipped")
    func byteOrderMark() async throws {
        let harness = try Self.expired(FlowTransport([.respond(.json(200, "\u{FEFF}" + Self.body([:])))]))
        #expect(try await harness.silent(.abe).accessToken == "at-new")
        let twice = try Self.expired(FlowTransport([.respond(.json(200, "\u{FEFF}\u{FEFF}" + Self.body([:])))]))
        let error = await expectMSALError { try await twice.silent(.abe) }
        #expect(error?.internalCode == .internalErrorInvalidResponse)
    }

    @Test("A response for another account: mismatchedUser naming the requested account; that account's tokens untouched")
    func mismatchedUser() async throws {
        let harness = try Self.expired(
            FlowTransport([.respond(FlowTokens.success(accessToken: "at-ben", refreshToken: "rt-ben", account: .ben))]))
        let error = try #require(await expectMSALError { try await harness.silent(.abe) })
        #expect(error.internalCode == .internalErrorMismatchedUser)
        #expect(error.homeAccountID == TestAccount.abe.home)
        #expect((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorMismatchedUser.rawValue)
        #expect(try harness.app.allAccounts().map(\.identifier) == [TestAccount.abe.home])
        #expect(try harness.secrets(.refreshToken) == ["rt-1"])
    }

    // MARK: Refresh tokens

    @Test("A refresh without a new refresh token keeps the old one; a rotated one replaces it (one entry)")
    func refreshTokenRotation() async throws {
        let harness = try Self.expired(
            FlowTransport([
                .respond(FlowTokens.success(accessToken: "at-2", refreshToken: nil)),
                .respond(FlowTokens.success(accessToken: "at-3", refreshToken: "rt-3")),
            ]))
        #expect(try await harness.silent(.abe).accessToken == "at-2")
        #expect(try harness.secrets(.refreshToken) == ["rt-1"])
        #expect(try harness.secrets(.accessToken) == ["at-2"])
        #expect(try await harness.silent(.abe, forceRefresh: true).accessToken == "at-3")
        #expect(try harness.secrets(.refreshToken) == ["rt-3"])
        #expect(try harness.secrets(.accessToken) == ["at-3"])
        let sent = harness.transport.tokenRequests.map { Dictionary($0.formParameters, uniquingKeysWith: { $1 })["refresh_token"] }
        #expect(sent == ["rt-1", "rt-1"])
    }

    @Test("An empty refresh_token in a response is never stored over the working one")
    func emptyRefreshToken() async throws {
        let harness = try Self.expired(FlowTransport([.respond(FlowTokens.success(accessToken: "at-2", refreshToken: ""))]))
        _ = try await harness.silent(.abe)
        #expect(try harness.secrets(.refreshToken) == ["rt-1"])
    }

    // MARK: Extended lifetime

    struct Failure: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [QueueTransport.Step]
        var extended: Bool
        var testDescription: String { name }
    }

    struct ConnectionReset: Error, Sendable {}

    static let failures: [Failure] = [
        Failure(
            name: "network failure (twice: the refresh is retried once)",
            steps: [.failWith(ConnectionReset()), .failWith(ConnectionReset())], extended: true),
        Failure(
            name: "timeout",
            steps: [
                .fail(MSALFailure(.internal, internalCode: .networkTimeout, message: "t")),
                .fail(MSALFailure(.internal, internalCode: .networkTimeout, message: "t")),
            ], extended: true),
        Failure(name: "503 twice", steps: [.respond(.json(503, "{}")), .respond(.json(503, "{}"))], extended: true),
        Failure(name: "429", steps: [.respond(.json(429, "{}", headers: ["Retry-After": "30"]))], extended: true),
        Failure(name: "400 server_error", steps: [.respond(.json(400, #"{"error":"server_error"}"#))], extended: true),
        Failure(name: "invalid_grant", steps: [.respond(.json(400, #"{"error":"invalid_grant"}"#))], extended: false),
        Failure(name: "interaction_required", steps: [.respond(.json(400, #"{"error":"interaction_required"}"#))], extended: false),
        Failure(name: "invalid_client", steps: [.respond(.json(400, #"{"error":"invalid_client"}"#))], extended: false),
        Failure(name: "TLS failure", steps: [.fail(MSALFailure(.internal, internalCode: .tlsFailure, message: "tls"))], extended: false),
    ]

    @Test(
        "extendedLifetimeEnabled: the extended token answers an unavailable service (5xx, throttling, network) and nothing else",
        arguments: failures)
    func extendedLifetime(_ failure: Failure) async throws {
        let harness = try Self.expired(FlowTransport(failure.steps), extendedLifetime: true)
        if failure.extended {
            let result = try await harness.silent(.abe)
            #expect(result.accessToken == "at-cached")
            #expect(result.extendedLifeTimeToken)
            #expect(result.tokenSource == .cache)
            #expect(result.expiresOn == Date(timeIntervalSince1970: Double(FlowIdentity.issued + 90_000)))
        } else {
            let error = await expectMSALError { try await harness.silent(.abe) }
            #expect(error != nil)
        }
    }

    @Test("Without extendedLifetimeEnabled an unavailable service is an internal error (unhandledResponse), never a stale token")
    func extendedLifetimeOff() async throws {
        let harness = try FlowHarness(FlowTransport([.respond(.json(503, "{}")), .respond(.json(503, "{}"))]))
        try harness.seed(.abe, lifetime: 900, extendedLifetime: 90_000)
        let error = await expectMSALError { try await harness.silent(.abe) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorUnhandledResponse)
    }

    @Test("extendedLifetimeEnabled: the repeat of an interaction_required answer (from the throttling cache) is still interactionRequired")
    func extendedLifetimeNotForThrottledInteraction() async throws {
        let harness = try Self.expired(
            FlowTransport([.respond(.json(400, #"{"error":"interaction_required","claims":"{}"}"#))]), extendedLifetime: true)
        let first = await expectMSALError { try await harness.silent(.abe) }
        #expect(first?.code == .interactionRequired)
        let repeated = await expectMSALError { try await harness.silent(.abe) }
        #expect(repeated?.code == .interactionRequired)
        #expect(repeated?.isThrottlingCacheHit == true)
        #expect(harness.transport.tokenRequests.count == 1)
    }

    @Test("An extended token is never returned once its extended lifetime has passed too")
    func extendedLifetimeOver() async throws {
        let harness = try FlowHarness(FlowTransport([.respond(.json(503, "{}")), .respond(.json(503, "{}"))]), extendedLifetime: true)
        try harness.seed(.abe, lifetime: 900, extendedLifetime: 950)
        let error = await expectMSALError { try await harness.silent(.abe) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorUnhandledResponse)
    }

    // MARK: Expiry buffer

    @Test("tokenExpirationBuffer: a token 200 s from expiry is refreshed with the default 300 s, answered from the cache with 120 s")
    func expirationBuffer() async throws {
        // The seeded token expires at issued + 1200 = now + 200.
        let strict = try FlowHarness(FlowTransport([.respond(FlowTokens.success(accessToken: "at-new", refreshToken: "rt-2"))]))
        try strict.seed(.abe, lifetime: 1200)
        #expect(try await strict.silent(.abe).accessToken == "at-new")

        let relaxed = try FlowHarness(FlowTransport([]), expirationBuffer: 120)
        try relaxed.seed(.abe, lifetime: 1200)
        let cached = try await relaxed.silent(.abe)
        #expect(cached.accessToken == "at-cached")
        #expect(cached.tokenSource == .cache)
        #expect(relaxed.transport.requests.isEmpty)
        // 81 s later only 119 s are left: refresh.
        relaxed.clock.advance(by: 81)
        let error = await expectMSALError { try await relaxed.silent(.abe) }
        #expect(error?.internalCode == .internalErrorUnexpected, "the (empty) token endpoint was asked: \(error.map { "\($0)" } ?? "")")
        #expect(relaxed.transport.tokenRequests.count == 1)
    }

    // MARK: Parameters

    @Test("A silent call without an account is accountRequired; without scopes invalidParameter; no request either way")
    func parameterErrors() async throws {
        let harness = try FlowHarness(FlowTransport([]))
        try harness.seed(.abe)
        let noAccount = await expectMSALError {
            try await harness.app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"]))
        }
        #expect(noAccount?.code == .internal)
        #expect(noAccount?.internalCode == .internalErrorAccountRequired)
        let correlation = UUID()
        let parameters = MSALSilentTokenParameters(scopes: [], account: try harness.account(.abe))
        parameters.correlationId = correlation
        let noScopes = await expectMSALError { try await harness.app.acquireTokenSilent(with: parameters) }
        #expect(noScopes?.internalCode == .internalErrorInvalidParameter)
        #expect(noScopes?.correlationID == correlation)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test("An account whose identifier is empty is accountRequired too")
    func emptyIdentifier() async throws {
        let harness = try FlowHarness(FlowTransport([]))
        let account = MSALAccount(identifier: "", username: nil, environment: "login.windows.net", tenantProfiles: [])
        let error = await expectMSALError {
            try await harness.app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        }
        #expect(error?.internalCode == .internalErrorAccountRequired)
    }

    // MARK: The documented fallback to interaction

    /// The tutorial's pattern with the `NSError` idiom: silent, and on `MSALErrorDomain` /
    /// `interactionRequired` sign in again (device code here, as interactive is not part of this suite).
    static func tutorialFallback(_ harness: FlowHarness, account: MSALAccount) async -> (MSALResult?, fellBack: Bool, (any Error)?) {
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        let (result, error): (MSALResult?, (any Error)?) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(MSALResult?, (any Error)?), Never>) in
            harness.app.acquireTokenSilent(with: parameters) { result, error in continuation.resume(returning: (result, error)) }
        }
        if let error {
            let nsError = error as NSError
            if nsError.domain == MSALErrorDomain, nsError.code == MSALError.interactionRequired.rawValue {
                do {
                    let result = try await harness.app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"])) { _ in }
                    return (result, true, nil)
                } catch {
                    return (nil, true, error)
                }
            }
            return (nil, false, error)
        }
        return (result, false, nil)
    }

    @Test(
        "NSError idiom: interactionRequired (domain MSALErrorDomain, code -50002, OAuth fields in userInfo) leads to the interactive fallback"
    )
    func nsErrorFallback() async throws {
        let transport = FlowTransport(
            token: { request in
                let form = Dictionary(request.formParameters, uniquingKeysWith: { $1 })
                if form["grant_type"] == "refresh_token" {
                    return .json(
                        400, #"{"error":"invalid_grant","suberror":"bad_token","error_codes":[9002313],"claims":"{\"access_token\":{}}"}"#)
                }
                return FlowTokens.success(accessToken: "at-after-sign-in", refreshToken: "rt-2")
            },
            deviceCode: { _ in .json(200, DeviceCodeTests.body(["interval": "1"])) })
        let harness = try Self.expired(transport)
        let account = try harness.account(.abe)

        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        do {
            _ = try await harness.app.acquireTokenSilent(with: parameters)
            Issue.record("the dead refresh token must not work")
        } catch {
            let nsError = error as NSError
            #expect(nsError.domain == MSALErrorDomain)
            #expect(nsError.code == MSALError.interactionRequired.rawValue)
            #expect(nsError.code == -50002)
            #expect(nsError.userInfo[MSALOAuthErrorKey] as? String == "invalid_grant")
            #expect(nsError.userInfo[MSALOAuthSubErrorKey] as? String == "bad_token")
            #expect(nsError.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorInvalidGrant.rawValue)
            #expect(nsError.userInfo[MSALSTSErrorCodesKey] as? [Int] == [9002313])
            #expect(nsError.userInfo[MSALClaimsKey] as? String == #"{"access_token":{}}"#)
            #expect(nsError.userInfo[MSALHomeAccountIdKey] as? String == TestAccount.abe.home)
            #expect(nsError.userInfo[MSALHTTPResponseCodeKey] as? String == "400")
        }

        // The refresh token was removed, so the next silent call fails without a request, and the
        // tutorial's code falls back, signs in, and from then on silent answers from the cache.
        let (result, fellBack, error) = await Self.tutorialFallback(harness, account: account)
        #expect(error == nil)
        #expect(fellBack)
        #expect(result?.accessToken == "at-after-sign-in")
        #expect(harness.transport.tokenRequests.count == 2)
        let (again, fellBackAgain, _) = await Self.tutorialFallback(harness, account: account)
        #expect(!fellBackAgain)
        #expect(again?.accessToken == "at-after-sign-in")
        #expect(again?.tokenSource == .cache)
    }

    @Test("catch let e as MSALFailure where e.code == .interactionRequired: matches interaction, not outages or bad requests")
    func swiftCatchFallback() async throws {
        func classify(_ steps: [QueueTransport.Step]) async throws -> String {
            let harness = try Self.expired(FlowTransport(steps))
            do {
                _ = try await harness.silent(.abe)
                return "token"
            } catch let error as MSALFailure where error.code == .interactionRequired {
                return "interaction"
            } catch let error as MSALFailure where error.isServiceFailure {
                return "outage"
            } catch {
                return "other"
            }
        }
        #expect(try await classify([.respond(.json(400, #"{"error":"interaction_required"}"#))]) == "interaction")
        #expect(try await classify([.respond(.json(400, #"{"error":"login_required"}"#))]) == "interaction")
        #expect(try await classify([.respond(.json(400, #"{"error":"consent_required"}"#))]) == "interaction")
        #expect(try await classify([.respond(.json(400, #"{"error":"invalid_grant","suberror":"token_expired"}"#))]) == "interaction")
        #expect(try await classify([.respond(.json(503, "{}")), .respond(.json(503, "{}"))]) == "outage")
        #expect(try await classify([.respond(.json(429, "{}"))]) == "outage")
        #expect(
            try await classify([.failWith(ConnectionReset()), .failWith(ConnectionReset())]) == "outage",
            "the network failing is the service unavailable too")
        #expect(try await classify([.respond(.json(400, #"{"error":"invalid_scope"}"#))]) == "other")
        #expect(try await classify([.respond(FlowTokens.success(accessToken: "fine"))]) == "token")
    }

    // MARK: Declined scopes

    @Test("MSAL for iOS's declined-scope vectors: declined and granted lists, email never declined, case ignored")
    func declinedScopeVectors() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: FixtureLoader.data("Flows/token-responses/objc_declined_scopes.json")) as? [String: Any])
        let cases = try #require(document["cases"] as? [[String: Any]])
        #expect(cases.count == 3)
        let account = MSALAccount(identifier: TestAccount.abe.home, username: nil, environment: "login.windows.net", tenantProfiles: [])
        let profile = MSALTenantProfile(
            identifier: "", environment: "login.windows.net", tenantId: FlowIdentity.tenant, isHomeTenantProfile: true, idToken: nil)
        for item in cases {
            let requested = TokenRequests.resourceScopes((item["requested_scopes"] as? String ?? "").split(separator: " ").map(String.init))
            let granted = ((item["response"] as? [String: Any])?["scope"] as? String ?? "").split(separator: " ").map(String.init)
            let expected = try #require(item["expected"] as? [String: Any])
            let result = MSALResult(
                accessToken: "at", expiresOn: nil, idToken: nil, scopes: granted, tenantProfile: profile, account: account,
                authority: try MSALAuthority.authority(url: URL(string: "https://login.microsoftonline.com/common")!),
                correlationId: UUID(),
                tokenSource: .identityProvider)
            if expected["valid"] as? Bool == true {
                try TokenClient.checkDeclinedScopes(result, requested: requested, correlationID: UUID())
            } else {
                let error = try #require(throws: MSALFailure.self) {
                    try TokenClient.checkDeclinedScopes(result, requested: requested, correlationID: UUID())
                }
                #expect(error.code == .serverDeclinedScopes)
                #expect(error.code.rawValue == -50003)
                #expect(error.declinedScopes == expected["declined_scopes"] as? [String])
                #expect(error.grantedScopes == expected["granted_scopes"] as? [String])
                #expect(error.invalidResult?.accessToken == "at")
                #expect((error as NSError).userInfo[MSALDeclinedScopesKey] as? [String] == expected["declined_scopes"] as? [String])
            }
        }
    }

    @Test("A .default request or a resource prefix the service added or dropped is not declined")
    func notDeclined() throws {
        let account = MSALAccount(identifier: TestAccount.abe.home, username: nil, environment: "login.windows.net", tenantProfiles: [])
        let profile = MSALTenantProfile(
            identifier: "", environment: "login.windows.net", tenantId: FlowIdentity.tenant, isHomeTenantProfile: true, idToken: nil)
        let result = MSALResult(
            accessToken: "at", expiresOn: nil, idToken: nil, scopes: ["https://graph.microsoft.com/User.Read", "Mail.Read", "openid"],
            tenantProfile: profile, account: account,
            authority: try MSALAuthority.authority(url: URL(string: "https://login.microsoftonline.com/common")!),
            correlationId: UUID(), tokenSource: .identityProvider)
        try TokenClient.checkDeclinedScopes(
            result, requested: ["User.Read", "https://graph.microsoft.com/Mail.Read", "https://graph.microsoft.com/.default"],
            correlationID: UUID())
    }
}
