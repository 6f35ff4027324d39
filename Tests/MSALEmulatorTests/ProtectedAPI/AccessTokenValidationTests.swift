import Foundation
import MSAL
import MSALEmulator
import Testing

/// ``MSALAccessTokenValidator`` as a protected API uses it, on the access tokens the local provider
/// issues to signed-in users over loopback HTTP: the metadata and keys are discovered from the
/// provider, the token's scopes decide, and tokens for another API, from another tenant or past
/// their expiry are refused with the challenge the API answers.
@Suite("Access-token validation against the local provider's tokens")
struct AccessTokenValidationTests {
    static let apiScope = "api://\(WebAppTests.webClientID)/access_as_user"

    static func validator(
        _ harness: EmulatorHarness, tenant: String = EmulatorHarness.contoso, allowedTenants: [String]? = nil
    ) throws -> MSALAccessTokenValidator {
        try MSALAccessTokenValidator(
            authority: try harness.authority(tenant), audiences: ["api://\(WebAppTests.webClientID)", WebAppTests.webClientID],
            allowedTenants: allowedTenants, clock: harness.clock)
    }

    static func refusal(_ body: () async throws -> AccessToken) async -> MSALFailure? {
        do {
            let token = try await body()
            Issue.record("accepted a token of \(String(describing: token.subject))")
        } catch let error as MSALFailure {
            return error
        } catch {
            Issue.record("\(type(of: error)): \(error)")
        }
        return nil
    }

    @Test("A user's token for the API is accepted, its scope required; a Graph token, an expired one and a forged one are refused")
    func singleTenant() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let client = try harness.application(tenant: EmulatorHarness.contoso)
            let signedIn = try await harness.signIn(client, as: EmulatorHarness.adele, scopes: [Self.apiScope])
            let validator = try Self.validator(harness)

            let token = try await validator.validate(authorizationHeader: "Bearer \(signedIn.accessToken)")
            #expect(token.tenantID == EmulatorHarness.contoso)
            #expect(token.scopes == ["access_as_user"])
            #expect(token.clientID == EmulatorHarness.clientID)
            #expect(token.objectID == "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a", "Adele's object id in Contoso")
            try token.require(scopes: ["access_as_user"])
            let missing = await Self.refusal {
                try token.require(scopes: ["Orders.Write"])
                return token
            }
            #expect(missing.map { MSALBearerChallenge(for: $0).status } == 403)

            // A token for Microsoft Graph is not this API's.
            let graph = try await client.acquireTokenSilent(
                with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
            let wrongAudience = await Self.refusal { try await validator.validate(graph.accessToken) }
            #expect(wrongAudience?.internalCode == .idTokenAudienceMismatch)

            // A changed payload under the provider's signature.
            let parts = signedIn.accessToken.split(separator: ".").map(String.init)
            let otherParts = graph.accessToken.split(separator: ".").map(String.init)
            let forged = await Self.refusal { try await validator.validate([parts[0], otherParts[1], parts[2]].joined(separator: ".")) }
            #expect(forged?.internalCode == .jwtInvalidSignature)

            // Past its expiry and the five minutes of skew.
            harness.emulator.advanceClock(by: 3600 + 301)
            let expired = await Self.refusal { try await validator.validate(signedIn.accessToken) }
            #expect(expired?.internalCode == .idTokenExpired)
            #expect(expired.map { MSALBearerChallenge(for: $0).error } == "invalid_token")
        }
    }

    /// The `kid` in a compact JWS's header.
    static func keyID(_ token: String) throws -> String? {
        let header = String(try #require(token.split(separator: ".").first))
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return object["kid"] as? String
    }

    /// `token` with its header's `kid` replaced (the signature no longer matters: no key is found).
    static func withKeyID(_ token: String, _ keyID: String) -> String {
        let parts = token.split(separator: ".").map(String.init)
        let header = Data(#"{"alg":"RS256","typ":"JWT","kid":"\#(keyID)"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return [header, parts[1], parts[2]].joined(separator: ".")
    }

    @Test(
        "A rotated signing key is fetched once; the previous key verifies while published; 10,000 forged kids fetch the keys at most once a minute"
    )
    func keyRotation() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let emulator = harness.emulator
            let client = try harness.application(tenant: EmulatorHarness.contoso)
            let first = try await harness.signIn(client, as: EmulatorHarness.adele, scopes: [Self.apiScope])
            let validator = try Self.validator(harness)
            // The key set endpoint also serves the app's own ID-token checks: count the validator's
            // fetches from a baseline taken after each of the app's calls.
            var baseline = emulator.requestCount(.keys)
            func validatorFetches() -> Int { emulator.requestCount(.keys) - baseline }

            _ = try await validator.validate(first.accessToken)
            #expect(validatorFetches() == 1)
            let oldKeyIDs = emulator.publishedKeyIDs
            #expect(try Self.keyID(first.accessToken) == oldKeyIDs.first)

            // The provider signs with a new key and keeps publishing the old one.
            let newKeyID = try emulator.rotateSigningKey()
            #expect(emulator.publishedKeyIDs == [newKeyID] + oldKeyIDs)
            let refresh = MSALSilentTokenParameters(scopes: [Self.apiScope], account: first.account)
            refresh.forceRefresh = true
            let second = try await client.acquireTokenSilent(with: refresh)
            #expect(try Self.keyID(second.accessToken) == newKeyID)

            // The new kid is fetched once, then served from memory; the old key's token still verifies.
            baseline = emulator.requestCount(.keys)
            _ = try await validator.validate(second.accessToken)
            #expect(validatorFetches() == 1)
            _ = try await validator.validate(second.accessToken)
            _ = try await validator.validate(first.accessToken)
            #expect(validatorFetches() == 1)

            // 10,000 tokens with random unknown kids: refused, and no fetch within the minute of the last one.
            for index in 0..<10_000 {
                let forged = Self.withKeyID(second.accessToken, "forged-\(index)-\(UUID().uuidString)")
                let refused = await Self.refusal { try await validator.validate(forged) }
                if refused?.internalCode != .jwtSigningKeyNotFound {
                    Issue.record("forged kid \(index): \(String(describing: refused))")
                    break
                }
            }
            #expect(validatorFetches() == 1)
            // A minute later, one more unknown kid may fetch once; the rest of the flood does not.
            emulator.advanceClock(by: 61)
            for index in 0..<1_000 {
                _ = await Self.refusal { try await validator.validate(Self.withKeyID(second.accessToken, "late-\(index)")) }
            }
            #expect(validatorFetches() == 2)

            // Rotated again without the old keys: once the set is fetched again, the first token's key
            // is gone. (Five minutes on: the app's own ID-token check fetches the keys for an unknown
            // kid at most that often.)
            emulator.advanceClock(by: 301)
            let newestKeyID = try emulator.rotateSigningKey(keepingPrevious: false)
            #expect(emulator.publishedKeyIDs == [newestKeyID])
            let third = try await client.acquireTokenSilent(with: refresh)
            #expect(try Self.keyID(third.accessToken) == newestKeyID)
            baseline = emulator.requestCount(.keys)
            _ = try await validator.validate(third.accessToken)
            #expect(validatorFetches() == 1)
            let retired = await Self.refusal { try await validator.validate(first.accessToken) }
            #expect(retired?.internalCode == .jwtSigningKeyNotFound)
            #expect(retired.map { MSALBearerChallenge(for: $0).error } == "invalid_token")
            #expect(validatorFetches() == 1)
        }
    }

    @Test(
        "After a rotation, 40 concurrent requests with the new key's token over a key set that answers in 300 ms: one refetch, none refused"
    )
    func concurrentRequestsAcrossRotation() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let emulator = harness.emulator
            let client = try harness.application(tenant: EmulatorHarness.contoso)
            let first = try await harness.signIn(client, as: EmulatorHarness.adele, scopes: [Self.apiScope])
            // No validated-token memory: every request judges its token with the keys.
            let validator = try MSALAccessTokenValidator(
                authority: try harness.authority(EmulatorHarness.contoso),
                audiences: ["api://\(WebAppTests.webClientID)", WebAppTests.webClientID], validatedTokenCacheSize: 0,
                clock: harness.clock)
            _ = try await validator.validate(first.accessToken)

            let newKeyID = try emulator.rotateSigningKey()
            let refresh = MSALSilentTokenParameters(scopes: [Self.apiScope], account: first.account)
            refresh.forceRefresh = true
            let second = try await client.acquireTokenSilent(with: refresh)
            #expect(try Self.keyID(second.accessToken) == newKeyID)

            let slowKeys = emulator.inject(.init(.delay(seconds: 0.3), endpoint: .keys))
            defer { emulator.removeFault(slowKeys) }
            let baseline = emulator.requestCount(.keys)
            let refusals = await withTaskGroup(of: MSALFailure?.self) { group in
                for _ in 0..<40 {
                    group.addTask { await Self.outcome { try await validator.validate(second.accessToken) } }
                }
                var refusals: [MSALFailure] = []
                for await refusal in group { if let refusal { refusals.append(refusal) } }
                return refusals
            }
            #expect(refusals.count == 0, "first refusal: \(String(describing: refusals.first))")
            #expect(emulator.requestCount(.keys) - baseline == 1, "one refetch served all 40")
        }
    }

    /// The refusal of `body`, or `nil` when it accepted its token.
    static func outcome(_ body: () async throws -> AccessToken) async -> MSALFailure? {
        do {
            _ = try await body()
            return nil
        } catch let error as MSALFailure {
            return error
        } catch {
            return MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "\(error)")
        }
    }

    @Test("A multi-tenant API (organizations) accepts each tenant's own issuer, and only the tenants it allows")
    func multiTenant() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let contoso = try await harness.signIn(
                try harness.application(tenant: EmulatorHarness.contoso), as: EmulatorHarness.adele, scopes: [Self.apiScope])
            let fabrikam = try await harness.signIn(
                try harness.application(tenant: EmulatorHarness.fabrikam), as: EmulatorHarness.grace, scopes: [Self.apiScope])
            let any = try Self.validator(harness, tenant: "organizations")
            #expect(try await any.validate(contoso.accessToken).tenantID == EmulatorHarness.contoso)
            #expect(try await any.validate(fabrikam.accessToken).tenantID == EmulatorHarness.fabrikam)

            let onlyContoso = try Self.validator(harness, tenant: "organizations", allowedTenants: [EmulatorHarness.contoso])
            _ = try await onlyContoso.validate(contoso.accessToken)
            let refused = await Self.refusal { try await onlyContoso.validate(fabrikam.accessToken) }
            #expect(refused?.internalCode == .idTokenIssuerMismatch)

            // A single-tenant API refuses another tenant's token.
            let contosoOnly = try Self.validator(harness)
            #expect(await Self.refusal { try await contosoOnly.validate(fabrikam.accessToken) }?.internalCode == .idTokenIssuerMismatch)
        }
    }
}
