import Foundation
import MSALJOSE
import MSALJSON
import Testing

@testable import MSAL

@Suite("Authority key sets: JWKS cache and rate-limited refetch on an unknown kid")
struct AuthorityKeySetTests {
    /// The sample tokens' client id and nonce (Fixtures/Samples/README.md).
    static let clientID = "6cb04018-a3f5-46a7-b995-940c78f5aef3"
    static let nonce = "123523"
    static let tenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// A key that is not in the published set (a rotated-in signing key).
    static let rotatedKey: JWSSigningKey = {
        do {
            return try JWSSigningKey.generateRSA(keyID: "rotated-rsa")
        } catch {
            fatalError("test key generation failed: \(error)")
        }
    }()

    /// A harness at now = 1700001000 with /common resolved (its issuer is the {tenantid} template).
    private func resolvedCommon() async throws -> (ResolverHarness, MSALAuthorityMetadata) {
        let harness = ResolverHarness(now: 1_700_001_000)
        harness.transport.on(AuthorityURLs.commonDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(AuthorityURLs.commonConfiguration, json: try AuthorityFixtures.authority("openid_configuration_common.json"))
        let metadata = try await harness.resolve("https://login.microsoftonline.com/common")
        #expect(metadata.jwksURI.absoluteString == AuthorityURLs.commonKeys)
        return (harness, metadata)
    }

    private static func sampleToken(_ name: String) throws -> String {
        try AuthorityFixtures.text("Samples/\(name)")
    }

    private static func sampleKeySet() throws -> [UInt8] {
        try AuthorityFixtures.bytes("Samples/jwks.json")
    }

    /// The sample key set plus the public key of ``rotatedKey``.
    private static func rotatedKeySet() throws -> [UInt8] {
        var document = try #require(try JSONSerialization.jsonObject(with: Data(sampleKeySet())) as? [String: Any])
        var keys = try #require(document["keys"] as? [Any])
        let jwk = try JSONSerialization.jsonObject(with: Data(JSONWriter.write(try rotatedKey.publicJWK())))
        keys.append(jwk)
        document["keys"] = keys
        return try AuthorityFixtures.json(document)
    }

    /// A token with the sample claims, signed by `key`.
    private static func token(signedBy key: JWSSigningKey, nonce: String = nonce) throws -> String {
        let claims = JSON.object([
            "ver": .string("2.0"),
            "iss": .string("https://login.microsoftonline.com/\(tenantID)/v2.0"),
            "sub": .string("AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ"),
            "aud": .string(clientID),
            "exp": .integer(1_700_003_600),
            "iat": .integer(1_700_000_000),
            "nbf": .integer(1_700_000_000),
            "tid": .string(tenantID),
            "nonce": .string(nonce),
        ])
        return try key.sign(claims: claims)
    }

    private func verify(
        _ token: String, _ harness: ResolverHarness, _ metadata: MSALAuthorityMetadata, nonce: String? = nonce
    ) async throws -> IDToken {
        try await harness.resolver.verifyIDToken(
            token, metadata: metadata, clientID: Self.clientID, nonce: nonce, correlationID: AuthorityURLs.correlationID)
    }

    // MARK: Tests

    @Test("The sample RS256, ES256 and ES384 tokens verify against the published key set, fetched once")
    func sampleTokensVerify() async throws {
        let (harness, metadata) = try await resolvedCommon()
        harness.transport.on(AuthorityURLs.commonKeys, json: try Self.sampleKeySet())
        for name in ["id-token-rs256.jwt", "id-token-es256.jwt", "id-token-es384.jwt"] {
            let token = try await verify(try Self.sampleToken(name), harness, metadata)
            #expect(token.tenantID == Self.tenantID, "\(name)")
        }
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 1)
        let keySet = try await harness.resolver.keySet(for: metadata, correlationID: AuthorityURLs.correlationID)
        #expect(keySet.keys.count == 3)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 1)
    }

    @Test("The PS256 sample is rejected: its key is published for RS256 only; no refetch")
    func ps256SampleRejected() async throws {
        let (harness, metadata) = try await resolvedCommon()
        harness.transport.on(AuthorityURLs.commonKeys, json: try Self.sampleKeySet())
        do {
            _ = try await verify(try Self.sampleToken("id-token-ps256.jwt"), harness, metadata)
            Issue.record("the PS256 token verified")
        } catch let error as MSALFailure {
            #expect(error.internalCode == .jwtAlgorithmKeyMismatch || error.internalCode == .jwtUnsupportedAlgorithm, "\(error)")
        }
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 1)
    }

    @Test("Claim failures are reported as such and never refetch keys")
    func claimFailures() async throws {
        let (harness, metadata) = try await resolvedCommon()
        harness.transport.on(AuthorityURLs.commonKeys, json: try Self.sampleKeySet())
        let rs256 = try Self.sampleToken("id-token-rs256.jwt")
        await expectMSALError(.idTokenNonceMismatch) { _ = try await verify(rs256, harness, metadata, nonce: "other") }
        await expectMSALError(.idTokenAudienceMismatch) {
            _ = try await harness.resolver.verifyIDToken(
                rs256, metadata: metadata, clientID: "another-client", nonce: Self.nonce, correlationID: UUID())
        }
        harness.clock.advance(by: 7200)
        await expectMSALError(.idTokenExpired) { _ = try await verify(rs256, harness, metadata) }
        // Signed by an attacker's key under the published kid: a signature failure, not a refetch.
        let impostor = try JWSSigningKey.generateRSA(keyID: "sample-rsa-2048")
        harness.clock.advance(by: -7200)
        await expectMSALError(.jwtInvalidSignature) { _ = try await verify(try Self.token(signedBy: impostor), harness, metadata) }
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 1)
    }

    @Test("An unknown kid refetches once; a second unknown kid within 5 minutes does not; after 5 minutes it may again")
    func unknownKidRefetchIsRateLimited() async throws {
        let (harness, metadata) = try await resolvedCommon()
        harness.transport.on(AuthorityURLs.commonKeys, json: try Self.sampleKeySet())
        _ = try await verify(try Self.sampleToken("id-token-rs256.jwt"), harness, metadata)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 1)

        let unknown = try Self.token(signedBy: Self.rotatedKey)
        // First unknown kid: one refetch, which still lacks the key.
        await expectMSALError(.jwtSigningKeyNotFound, mentioning: ["rotated-rsa"]) { _ = try await verify(unknown, harness, metadata) }
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 2)

        // Within 5 minutes: no request.
        harness.clock.advance(by: 299)
        let other = try Self.token(signedBy: try JWSSigningKey.generateEC(keyID: "unknown-ec"))
        await expectMSALError(.jwtSigningKeyNotFound) { _ = try await verify(other, harness, metadata) }
        await expectMSALError(.jwtSigningKeyNotFound) { _ = try await verify(unknown, harness, metadata) }
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 2)
        // Known keys keep working from the cache meanwhile.
        _ = try await verify(try Self.sampleToken("id-token-es256.jwt"), harness, metadata)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 2)

        // After 5 minutes: one more refetch is allowed.
        harness.clock.advance(by: 2)
        await expectMSALError(.jwtSigningKeyNotFound) { _ = try await verify(unknown, harness, metadata) }
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 3)
        await expectMSALError(.jwtSigningKeyNotFound) { _ = try await verify(unknown, harness, metadata) }
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 3)
    }

    @Test("A refetch that returns the rotated key makes verification succeed, and the new set is cached")
    func refetchFindsRotatedKey() async throws {
        let (harness, metadata) = try await resolvedCommon()
        harness.transport.on(
            AuthorityURLs.commonKeys,
            .response(MSALHTTPResponse(statusCode: 200, body: try Self.sampleKeySet())),
            .response(MSALHTTPResponse(statusCode: 200, body: try Self.rotatedKeySet())))
        _ = try await verify(try Self.sampleToken("id-token-rs256.jwt"), harness, metadata)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 1)

        let rotated = try Self.token(signedBy: Self.rotatedKey)
        let verified = try await verify(rotated, harness, metadata)
        #expect(verified.jwt.stringClaim("nonce") == Self.nonce)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 2)

        _ = try await verify(rotated, harness, metadata)
        _ = try await verify(try Self.sampleToken("id-token-rs256.jwt"), harness, metadata)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 2)
    }

    @Test("A cold cache with an unknown kid fetches, then refetches once")
    func coldCacheUnknownKid() async throws {
        let (harness, metadata) = try await resolvedCommon()
        harness.transport.on(
            AuthorityURLs.commonKeys,
            .response(MSALHTTPResponse(statusCode: 200, body: try Self.sampleKeySet())),
            .response(MSALHTTPResponse(statusCode: 200, body: try Self.rotatedKeySet())))
        _ = try await verify(try Self.token(signedBy: Self.rotatedKey), harness, metadata)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 2)
    }

    @Test("The key set is kept for 24 hours")
    func keySetLifetime() async throws {
        let (harness, metadata) = try await resolvedCommon()
        harness.transport.on(AuthorityURLs.commonKeys, json: try Self.sampleKeySet())
        _ = try await harness.resolver.keySet(for: metadata, correlationID: UUID())
        harness.clock.advance(by: 24 * 3600 - 1)
        _ = try await harness.resolver.keySet(for: metadata, correlationID: UUID())
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 1)
        harness.clock.advance(by: 2)
        _ = try await harness.resolver.keySet(for: metadata, correlationID: UUID())
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 2)
    }

    @Test("Key set failures are typed and not cached")
    func keySetFailures() async throws {
        let (harness, metadata) = try await resolvedCommon()
        harness.transport.on(
            AuthorityURLs.commonKeys,
            .response(MSALHTTPResponse(statusCode: 404, text: "not here")),
            .response(MSALHTTPResponse(statusCode: 200, text: "<html></html>")),
            .response(MSALHTTPResponse(statusCode: 200, text: #"{"keys":[]}"#)),
            .failure(ScriptedNetworkError()),
            .response(MSALHTTPResponse(statusCode: 200, body: try Self.sampleKeySet())))
        let token = try Self.sampleToken("id-token-rs256.jwt")
        let notFound = await expectMSALError(.invalidAuthorityMetadata, mentioning: ["signing keys", "HTTP 404"]) {
            _ = try await verify(token, harness, metadata)
        }
        #expect(notFound?.httpStatusCode == 404)
        await expectMSALError(.jwtInvalidKeySet, mentioning: ["not valid JSON"]) { _ = try await verify(token, harness, metadata) }
        await expectMSALError(.jwtInvalidKeySet, mentioning: ["no keys"]) { _ = try await verify(token, harness, metadata) }
        await expectMSALError(.networkFailure) { _ = try await verify(token, harness, metadata) }
        _ = try await verify(token, harness, metadata)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 5)
    }

    @Test("The key set answered from memory is the cache's: a refetch, a cleared store and expiry are seen at once")
    func warmKeySetFollowsTheCache() async throws {
        let (harness, metadata) = try await resolvedCommon()
        #expect(harness.resolver.cachedKeySet(for: metadata) == nil, "nothing fetched yet")
        harness.transport.on(AuthorityURLs.commonKeys, json: try Self.sampleKeySet())
        let fetched = try await harness.resolver.keySet(for: metadata, correlationID: AuthorityURLs.correlationID)
        for _ in 0..<2 {
            let warm = try #require(harness.resolver.cachedKeySet(for: metadata))
            #expect(warm.keys.count == fetched.keys.count)
            #expect(zip(warm.keys, fetched.keys).allSatisfy { $0.isSameKey(as: $1) }, "the very keys fetched")
        }

        // Fetched again (a rotated-in key): the next read from memory is the new set, not the one read last.
        harness.transport.on(AuthorityURLs.commonKeys, json: try Self.rotatedKeySet())
        let refetched = try await harness.resolver.refetchedKeySet(for: metadata, correlationID: AuthorityURLs.correlationID)
        #expect(refetched.keys.count == fetched.keys.count + 1)
        let warm = try #require(harness.resolver.cachedKeySet(for: metadata))
        #expect(warm.keys.count == refetched.keys.count)
        #expect(zip(warm.keys, refetched.keys).allSatisfy { $0.isSameKey(as: $1) })
        #expect(!warm.keys.contains { key in fetched.keys.contains { $0.isSameKey(as: key) } }, "no key of the first fetch")

        // The store cleared: nothing in memory.
        harness.store.removeAll()
        #expect(harness.resolver.cachedKeySet(for: metadata) == nil)

        // Fetched again, then a day later: expired.
        _ = try await harness.resolver.keySet(for: metadata, correlationID: AuthorityURLs.correlationID)
        #expect(harness.resolver.cachedKeySet(for: metadata) != nil)
        harness.clock.advance(by: AuthorityMetadataStore.keySetLifetime)
        #expect(harness.resolver.cachedKeySet(for: metadata) == nil)
        #expect(harness.transport.count(AuthorityURLs.commonKeys) == 3)
    }
}
