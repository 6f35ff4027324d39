import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// ``MSALAccessTokenValidator`` on MSAL's signed HTTP requests (`Authorization: PoP …`), with the
/// PoP tokens the local provider issues (`cnf.kid`) and the signed requests the client library
/// makes for them: accepted only for this request, signed by the key the token is bound to, fresh
/// and not seen before; everything else is refused with the challenge the API answers.
@Suite("Access-token validation of MSAL's signed HTTP requests (PoP) against the local provider's tokens")
struct SignedHTTPRequestValidationTests {
    static let resource = URL(string: "https://orders.example.com/me/orders?page=1")!

    static func pop(_ url: URL = resource, method: MSALHttpMethod = .GET, nonce: String? = nil) -> MSALAuthenticationSchemePop {
        MSALAuthenticationSchemePop(httpMethod: method, request: url, nonce: nonce, additionalParameters: nil)
    }

    @Test(
        "A PoP request for this URL is accepted; the same signed request again, one for another method, path or host, and the bound token as Bearer are refused with their challenges; a new silent result signs anew"
    )
    func acceptsOnlyThisRequest() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let client = try harness.application(tenant: EmulatorHarness.contoso)
            let (parameters, _) = EmulatorHarness.interactive([AccessTokenValidationTests.apiScope], as: EmulatorHarness.adele)
            parameters.authenticationScheme = Self.pop()
            let result = try await client.acquireToken(with: parameters)
            let header = result.authorizationHeader
            #expect(header.hasPrefix("PoP "))
            let validator = try AccessTokenValidationTests.validator(harness)
            func validate(_ header: String, method: String = "GET", url: URL = Self.resource) async throws -> AccessToken {
                try await validator.validate(authorizationHeader: header, dpopProof: nil, httpMethod: method, requestURL: url)
            }
            let token = try await validate(header)
            #expect(token.scopes == ["access_as_user"] && token.isSenderConstrained)

            let replayed = await AccessTokenValidationTests.refusal { try await validate(header) }
            #expect(replayed?.internalCode == .signedRequestInvalid && replayed?.message.contains("used before") == true)
            let challenge = try #require(replayed.map { MSALBearerChallenge(for: $0) })
            #expect(challenge.status == 401 && challenge.error == "invalid_token" && challenge.headerValue?.hasPrefix("PoP ") == true)

            for (method, url) in [
                ("POST", Self.resource), ("GET", URL(string: "https://orders.example.com/admin")!),
                ("GET", URL(string: "https://other.example.com/me/orders")!),
                ("GET", URL(string: "https://orders.example.com:8443/me/orders")!),
            ] {
                let silent = MSALSilentTokenParameters(scopes: [AccessTokenValidationTests.apiScope], account: result.account)
                silent.authenticationScheme = Self.pop()
                let fresh = try await client.acquireTokenSilent(with: silent).authorizationHeader
                let refused = await AccessTokenValidationTests.refusal { try await validate(fresh, method: method, url: url) }
                #expect(refused?.internalCode == .signedRequestInvalid, "\(method) \(url)")
            }
            // A new silent result signs a new request, which is accepted.
            let silent = MSALSilentTokenParameters(scopes: [AccessTokenValidationTests.apiScope], account: result.account)
            silent.authenticationScheme = Self.pop()
            let again = try await client.acquireTokenSilent(with: silent)
            #expect(again.tokenSource == .cache && again.authorizationHeader != header)
            #expect(try await validate(again.authorizationHeader).subject == token.subject)

            // The bound token as a bearer token proves nothing.
            let signed = try JWT.decodeUnverified(String(header.dropFirst(4)))
            let accessToken = try #require(signed.claims.root["at"]?.string)
            let asBearer = await AccessTokenValidationTests.refusal {
                try await validator.validate(
                    authorizationHeader: "Bearer \(accessToken)", dpopProof: nil, httpMethod: "GET", requestURL: Self.resource)
            }
            #expect(asBearer?.internalCode == .accessTokenSchemeMismatch)
        }
    }

    @Test(
        "Refused: a signed request by another key than the token's, a stale one (ts past the lifetime), a bearer token inside one, and text that is not a signed request"
    )
    func refusals() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let client = try harness.application(tenant: EmulatorHarness.contoso)
            let (parameters, _) = EmulatorHarness.interactive([AccessTokenValidationTests.apiScope], as: EmulatorHarness.adele)
            parameters.authenticationScheme = Self.pop()
            let result = try await client.acquireToken(with: parameters)
            let validator = try AccessTokenValidationTests.validator(harness)
            func validate(_ signed: String) async throws -> AccessToken {
                try await validator.validate(signedHTTPRequest: signed, httpMethod: "GET", requestURL: Self.resource)
            }
            let now = Int64(harness.emulator.now.timeIntervalSince1970)
            let accessToken = try #require(
                try JWT.decodeUnverified(String(result.authorizationHeader.dropFirst(4))).claims.root["at"]?.string)

            // Another key signs a well-formed request for the same token.
            let stranger = try SignedHTTPRequest.make(
                key: try ProofKey.generate(.signedHTTPRequest), accessToken: accessToken, method: "GET", url: Self.resource, nonce: nil,
                timestamp: now)
            let otherKey = await AccessTokenValidationTests.refusal { try await validate(stranger) }
            #expect(otherKey?.internalCode == .signedRequestInvalid && otherKey?.message.contains("another key") == true)

            // Made with the right key, but too long ago.
            let stale = String(result.authorizationHeader.dropFirst(4))
            harness.emulator.advanceClock(by: 400)
            let old = await AccessTokenValidationTests.refusal { try await validate(stale) }
            #expect(old?.internalCode == .signedRequestInvalid && old?.message.contains("too old") == true)

            // A bearer token wrapped in a signed request: not bound, so not a PoP token.
            let bearer = try await harness.signIn(client, as: EmulatorHarness.ben, scopes: [AccessTokenValidationTests.apiScope])
            let wrapped = try SignedHTTPRequest.make(
                key: try ProofKey.generate(.signedHTTPRequest), accessToken: bearer.accessToken, method: "GET", url: Self.resource,
                nonce: nil, timestamp: Int64(harness.emulator.now.timeIntervalSince1970))
            let unbound = await AccessTokenValidationTests.refusal { try await validate(wrapped) }
            #expect(unbound?.internalCode == .accessTokenSchemeMismatch)

            for text in ["", "abc", "a.b.c", "PoP x.y.z"] {
                let refused = await AccessTokenValidationTests.refusal { try await validate(text) }
                #expect(refused?.internalCode == .signedRequestInvalid, "\(text)")
            }
        }
    }
}
