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

    static func refusal(_ body: () async throws -> AccessToken) async -> MSALError? {
        do {
            let token = try await body()
            Issue.record("accepted a token of \(String(describing: token.subject))")
        } catch let error as MSALError {
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
