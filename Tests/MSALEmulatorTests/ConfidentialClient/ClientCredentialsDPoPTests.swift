import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALJSON
import Testing

/// `acquireTokenForClient` with ``MSALAuthenticationSchemeDPoP``: a confidential client's app
/// token bound to its DPoP key (RFC 9449), from the emulator over loopback HTTP.
@Suite("Confidential client: DPoP-bound app tokens from the emulator")
struct ClientCredentialsDPoPTests {
    typealias Grant = ClientCredentialsGrantTests

    static func dpopParameters(forceRefresh: Bool = false) -> MSALClientCredentialParameters {
        let parameters = MSALClientCredentialParameters(scopes: [ConfidentialClientTests.graphDefault])
        parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
        parameters.forceRefresh = forceRefresh
        return parameters
    }

    @Test(
        "A DPoP app token: bound to the app's key (cnf.jkt), cached apart from the bearer app token and answered from the cache with a new proof each time; a nonce demanded by the provider is answered"
    )
    func boundAppToken() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try ConfidentialClientTests.application(harness)
            harness.emulator.requireDPoPNonce(true)
            let first = try await app.acquireTokenForClient(with: Self.dpopParameters())
            #expect(first.tokenSource == .identityProvider && first.authenticationScheme == "DPoP")
            #expect(first.authorizationHeader == "DPoP \(first.accessToken)")
            #expect(ConfidentialClientTests.grants(harness) == 2, "one use_dpop_nonce answer, then the token")
            let resource = URL(string: "https://graph.example.com/v1.0/users")!
            let proof = try first.dpopProof(httpMethod: .GET, requestUrl: resource)
            let header = try JWT.decodeUnverified(proof)
            let jwk = try #require(header.header.root["jwk"])
            let thumbprint = try JSONWebKey(json: Array(JSONWriter.write(JSON(jwk)))).thumbprint()
            let claims = try JWT.decodeUnverified(first.accessToken)
            #expect(claims.claims.root["cnf"]?["jkt"]?.string == thumbprint)
            #expect(claims.stringClaim("idtyp") == "app")

            // From the cache: the same bound token, and no request.
            let second = try await app.acquireTokenForClient(with: Self.dpopParameters())
            #expect(second.tokenSource == .cache && second.accessToken == first.accessToken && second.authenticationScheme == "DPoP")
            #expect(try second.dpopProof(httpMethod: .GET, requestUrl: resource) != proof)
            #expect(ConfidentialClientTests.grants(harness) == 2)

            // A bearer request does not take the bound token, and the bound one stays.
            let bearer = try await app.acquireTokenForClient(scopes: [ConfidentialClientTests.graphDefault])
            #expect(bearer.tokenSource == .identityProvider && bearer.authenticationScheme == "Bearer")
            #expect(try JWT.decodeUnverified(bearer.accessToken).claims.root["cnf"] == nil)
            let third = try await app.acquireTokenForClient(with: Self.dpopParameters())
            #expect(third.tokenSource == .cache && third.accessToken == first.accessToken)
            let again = try await app.acquireTokenForClient(scopes: [ConfidentialClientTests.graphDefault])
            #expect(again.tokenSource == .cache && again.accessToken == bearer.accessToken)

            // A forced refresh asks again, with a new proof of the same key.
            let refreshed = try await app.acquireTokenForClient(with: Self.dpopParameters(forceRefresh: true))
            #expect(refreshed.tokenSource == .identityProvider && refreshed.accessToken != first.accessToken)
            #expect(try JWT.decodeUnverified(refreshed.accessToken).claims.root["cnf"]?["jkt"]?.string == thumbprint)
        }
    }

    @Test("A DPoP app token is refused by a provider that answers Bearer: a typed error, nothing cached")
    func bearerAnswerRefused() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try ConfidentialClientTests.application(harness)
            harness.emulator.inject(
                .init(
                    .answer(status: 200, body: #"{"token_type":"Bearer","expires_in":3600,"access_token":"eyJhbGciOiJub25lIn0.e30.c2ln"}"#),
                    grantType: .clientCredentials, times: 1))
            let refused = await ConfidentialClientTests.msalError { _ = try await app.acquireTokenForClient(with: Self.dpopParameters()) }
            #expect(refused?.internalCode == .internalErrorInvalidResponse)
            #expect(refused?.message.contains("DPoP") == true)
            let next = try await app.acquireTokenForClient(with: Self.dpopParameters())
            #expect(next.tokenSource == .identityProvider && next.authenticationScheme == "DPoP")
        }
    }
}
