import Foundation
import MSAL
import MSALEmulator
import Testing

/// ``MSALAccessTokenValidator`` on DPoP requests (RFC 9449 §7), with the DPoP-bound tokens the local
/// provider issues and the proofs the client library makes: accepted only as `DPoP` with a fresh
/// proof of the key the token is bound to, for this request; every other presentation is refused
/// with the challenge the API answers.
@Suite("Access-token validation of DPoP requests against the local provider's tokens")
struct DPoPValidationTests {
    static let resource = URL(string: "https://orders.example.com/me/orders?page=1")!

    /// A user signed in for the API with DPoP, and the validator.
    static func signedIn(
        _ harness: EmulatorHarness, nonce: (@Sendable () -> String?)? = nil
    ) async throws -> (
        MSALResult, MSALAccessTokenValidator
    ) {
        let client = try harness.application(tenant: EmulatorHarness.contoso)
        let (parameters, _) = EmulatorHarness.interactive([AccessTokenValidationTests.apiScope], as: EmulatorHarness.adele)
        parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
        let result = try await client.acquireToken(with: parameters)
        let validator = try MSALAccessTokenValidator(
            authority: try harness.authority(EmulatorHarness.contoso),
            audiences: ["api://\(WebAppTests.webClientID)", WebAppTests.webClientID], clock: harness.clock,
            dpop: MSALDPoPValidationOptions(nonce: nonce))
        return (result, validator)
    }

    /// The refusal of `body`, which must throw an ``MSALFailure``.
    static func refusal(_ body: () async throws -> AccessToken) async -> MSALFailure? {
        await AccessTokenValidationTests.refusal(body)
    }

    @Test(
        "A DPoP token with a fresh proof for this request is accepted (its scope required); the same proof again, none, one for another method or URL, one by another key, and the token presented as Bearer are refused with their challenges"
    )
    func acceptsOnlyWithItsProof() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let (result, validator) = try await Self.signedIn(harness)
            let header = result.authorizationHeader
            #expect(header.hasPrefix("DPoP "))
            func validate(_ proof: String?, method: String = "GET", url: URL = Self.resource) async throws -> AccessToken {
                try await validator.validate(authorizationHeader: header, dpopProof: proof, httpMethod: method, requestURL: url)
            }

            let proof = try result.dpopProof(httpMethod: .GET, requestUrl: Self.resource)
            let token = try await validate(proof)
            #expect(token.scopes == ["access_as_user"] && token.isSenderConstrained && token.dpopKeyThumbprint != nil)
            try token.require(scopes: ["access_as_user"])
            // The validated token is remembered, and a new proof is still required and checked.
            #expect(try await validate(try result.dpopProof(httpMethod: .GET, requestUrl: Self.resource)).subject == token.subject)

            let replayed = await Self.refusal { try await validate(proof) }
            #expect(replayed?.internalCode == .dpopProofInvalid)
            let challenge = try #require(replayed.map { MSALBearerChallenge(for: $0) })
            #expect(challenge.status == 401 && challenge.error == "invalid_dpop_proof")
            #expect(challenge.headerValue?.hasPrefix("DPoP ") == true)

            let missing = await Self.refusal { try await validate(nil) }
            #expect(missing?.internalCode == .dpopProofInvalid)
            let otherMethod = await Self.refusal { try await validate(try result.dpopProof(httpMethod: .POST, requestUrl: Self.resource)) }
            #expect(otherMethod?.internalCode == .dpopProofInvalid)
            let otherURL = URL(string: "https://orders.example.com/admin")!
            let wrongURL = await Self.refusal { try await validate(try result.dpopProof(httpMethod: .GET, requestUrl: otherURL)) }
            #expect(wrongURL?.internalCode == .dpopProofInvalid)
            // A valid proof for this request and token, signed by a key the token is not bound to.
            let stranger = try DPoPProof.make(
                key: try ProofKey.generate(.dpop), method: "GET", url: Self.resource, accessToken: result.accessToken,
                issuedAt: Int64(harness.emulator.now.timeIntervalSince1970))
            let otherKey = await Self.refusal { try await validate(stranger) }
            #expect(otherKey?.internalCode == .dpopProofInvalid && otherKey?.message.contains("another key") == true)

            // As a bearer token it proves nothing: refused on both entry points.
            let asBearer = await Self.refusal { try await validator.validate(authorizationHeader: "Bearer \(result.accessToken)") }
            #expect(asBearer?.internalCode == .accessTokenSchemeMismatch)
            #expect(asBearer.map { MSALBearerChallenge(for: $0).error } == "invalid_token")
            let asBearerWithProof = await Self.refusal {
                try await validator.validate(
                    authorizationHeader: "Bearer \(result.accessToken)",
                    dpopProof: try result.dpopProof(httpMethod: .GET, requestUrl: Self.resource), httpMethod: "GET",
                    requestURL: Self.resource)
            }
            #expect(asBearerWithProof?.internalCode == .accessTokenSchemeMismatch)
            let raw = await Self.refusal { try await validator.validate(result.accessToken) }
            #expect(raw?.internalCode == .accessTokenSchemeMismatch)
        }
    }

    @Test(
        "A bearer token goes through the DPoP entry point as Bearer, and is refused when presented as DPoP (it is bound to no key)"
    )
    func bearerTokens() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let client = try harness.application(tenant: EmulatorHarness.contoso)
            let signedIn = try await harness.signIn(client, as: EmulatorHarness.adele, scopes: [AccessTokenValidationTests.apiScope])
            let validator = try AccessTokenValidationTests.validator(harness)
            let accepted = try await validator.validate(
                authorizationHeader: signedIn.authorizationHeader, dpopProof: nil, httpMethod: "GET", requestURL: Self.resource)
            #expect(!accepted.isSenderConstrained && accepted.dpopKeyThumbprint == nil)
            let asDPoP = await Self.refusal {
                try await validator.validate(
                    authorizationHeader: "DPoP \(signedIn.accessToken)", dpopProof: nil, httpMethod: "GET", requestURL: Self.resource)
            }
            #expect(asDPoP?.internalCode == .accessTokenSchemeMismatch)
            let none = await Self.refusal {
                try await validator.validate(authorizationHeader: nil, dpopProof: nil, httpMethod: "GET", requestURL: Self.resource)
            }
            #expect(none?.internalCode == .accessTokenMissing)
        }
    }

    @Test(
        "An API that requires a nonce: a proof without it is refused with use_dpop_nonce and the nonce in the challenge; the client reads it (MSALResult.dpopNonce) and its next proof is accepted"
    )
    func nonceChallenge() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let (result, validator) = try await Self.signedIn(harness, nonce: { "api-nonce-1" })
            let first = await Self.refusal {
                try await validator.validate(
                    authorizationHeader: result.authorizationHeader,
                    dpopProof: try result.dpopProof(httpMethod: .GET, requestUrl: Self.resource), httpMethod: "GET",
                    requestURL: Self.resource)
            }
            #expect(first?.internalCode == .dpopNonceRequired)
            let challenge = try #require(first.map { MSALBearerChallenge(for: $0) })
            #expect(challenge.status == 401 && challenge.error == "use_dpop_nonce" && challenge.dpopNonce == "api-nonce-1")
            let nonce = try #require(MSALResult.dpopNonce(wwwAuthenticate: challenge.headerValue, dpopNonce: challenge.dpopNonce))
            let token = try await validator.validate(
                authorizationHeader: result.authorizationHeader,
                dpopProof: try result.dpopProof(httpMethod: .GET, requestUrl: Self.resource, nonce: nonce), httpMethod: "GET",
                requestURL: Self.resource)
            #expect(token.scopes == ["access_as_user"])
            let stale = await Self.refusal {
                try await validator.validate(
                    authorizationHeader: result.authorizationHeader,
                    dpopProof: try result.dpopProof(httpMethod: .GET, requestUrl: Self.resource, nonce: "api-nonce-0"), httpMethod: "GET",
                    requestURL: Self.resource)
            }
            #expect(stale?.internalCode == .dpopNonceRequired)
        }
    }
}
