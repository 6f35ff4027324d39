import Foundation
import MSALJOSE
import MSALSupport

extension AuthorityResolver {
    /// The JWK set at the metadata's `jwks_uri`, cached for a day.
    package func keySet(for metadata: MSALAuthorityMetadata, correlationID: UUID) async throws -> JSONWebKeySet {
        let pipeline = self.pipeline
        return try await store.keySets.value(for: metadata.jwksURIString) {
            await Self.loadKeySet(metadata, pipeline: pipeline, correlationID: correlationID)
        }
    }

    /// The JWK set in memory for the metadata's `jwks_uri`, if one is and has not expired; no I/O.
    package func cachedKeySet(for metadata: MSALAuthorityMetadata) -> JSONWebKeySet? {
        store.warmKeySet(metadata.jwksURIString, now: store.clock.now())
    }

    /// The JWK set fetched again; the one in memory stays when the fetch fails.
    package func refetchedKeySet(for metadata: MSALAuthorityMetadata, correlationID: UUID) async throws -> JSONWebKeySet {
        let pipeline = self.pipeline
        return try await store.keySets.reload(for: metadata.jwksURIString) {
            await Self.loadKeySet(metadata, pipeline: pipeline, correlationID: correlationID)
        }
    }

    private static func loadKeySet(
        _ metadata: MSALAuthorityMetadata, pipeline: HTTPPipeline, correlationID: UUID
    ) async -> SingleFlightCache<String, JSONWebKeySet, MSALFailure>.Outcome {
        let uri = metadata.jwksURIString
        do {
            var request = MSALHTTPRequest(method: .get, url: metadata.jwksURI)
            request.sendsMicrosoftHeaders = metadata.kind.isMicrosoft
            let response = try await pipeline.send(request, correlationID: correlationID)
            guard response.statusCode == 200 else {
                var error = MSALFailure(
                    .internal, internalCode: .invalidAuthorityMetadata,
                    message: "Fetching the signing keys at \(uri) failed with HTTP \(response.statusCode).",
                    correlationID: correlationID)
                error.httpStatusCode = response.statusCode
                return .init(.failure(error), timeToLive: nil)
            }
            do throws(JOSEError) {
                let keySet = try JSONWebKeySet(json: response.body)
                return .init(.success(keySet), timeToLive: AuthorityMetadataStore.keySetLifetime)
            } catch {
                return .init(.failure(MSALFailure(error, correlationID: correlationID)), timeToLive: nil)
            }
        } catch {
            return .uncached(error, correlationID: correlationID)
        }
    }

    /// Verifies an ID token issued by the authority: signature with its JWK set (fetched again once,
    /// at most every five minutes, when the token's `kid` is unknown), then the OpenID Connect claims.
    ///
    /// - Throws: ``MSALFailure`` with a `-46xxx` internal code for the token, or a network/metadata error for the keys.
    package func verifyIDToken(
        _ token: String, metadata: MSALAuthorityMetadata, clientID: String, nonce: String?, correlationID: UUID
    ) async throws -> IDToken {
        let options = IDTokenValidationOptions(issuer: metadata.issuer, clientID: clientID, nonce: nonce)
        let now = store.clock.now()
        return try await withKeySet(
            metadata, refetchInterval: AuthorityMetadataStore.keySetRefetchInterval, now: now, correlationID: correlationID
        ) { keys throws(JOSEError) in
            try IDTokenValidator(keySet: keys, options: options).validate(token, now: now)
        }
    }

    /// Runs `verify` with the authority's JWK set; when it fails with an unknown `kid`, runs it once
    /// more with the set fetched again — unless an unknown `kid` made the set be fetched less than
    /// `refetchInterval` seconds ago, so a flood of forged `kid`s never hammers the provider. A
    /// failed refetch throws its error and keeps the set in memory.
    ///
    /// Concurrent callers share one refetch (issue 39, finding 9): a caller whose `kid` is unknown
    /// while another caller's refetch is under way waits for it and judges its token with the set
    /// it brings; one whose set was replaced since it read it judges its token with the new set.
    /// So after a provider rotates its keys, every caller of a correctly signed token is served by
    /// the one refetch, and only a `kid` that stays unknown is refused within the interval.
    package func withKeySet<T>(
        _ metadata: MSALAuthorityMetadata, refetchInterval: Double, now: Date, correlationID: UUID,
        _ verify: (JSONWebKeySet) throws(JOSEError) -> T
    ) async throws -> T {
        let uri = metadata.jwksURIString
        let generation = store.keySets.generation
        let keys = try await keySet(for: metadata, correlationID: correlationID)
        let unknownKey: JOSEError
        do throws(JOSEError) {
            return try verify(keys)
        } catch  where error.code == .keyNotFound {
            unknownKey = error
        } catch {
            throw MSALFailure(error, correlationID: correlationID)
        }
        // Rate-limited by the last kid-triggered refetch, not by the regular fetch: a key rotated in
        // just after the set was fetched must still be found. The claim is made under the lock that
        // registers the refetch, so a caller refused a claim joins the refetch that took it, or
        // finds its set stored.
        let store = self.store
        let pipeline = self.pipeline
        let refetched = try await store.keySets.join(
            uri, orReloadIf: { store.claimKeySetRefetch(uri, now: now, interval: refetchInterval) },
            load: { await Self.loadKeySet(metadata, pipeline: pipeline, correlationID: correlationID) })
        let retry: JSONWebKeySet
        if let refetched {
            retry = refetched
        } else if store.keySets.generation != generation, let current = cachedKeySet(for: metadata) {
            // Another caller's refetch ended between this caller's read and its claim.
            retry = current
        } else {
            throw MSALFailure(unknownKey, correlationID: correlationID)
        }
        do throws(JOSEError) {
            return try verify(retry)
        } catch {
            throw MSALFailure(error, correlationID: correlationID)
        }
    }
}

extension SingleFlightCache.Outcome where Failure == MSALFailure {
    /// A failed load, not kept: `error` when it is an ``MSALFailure``, else an unexpected-error failure naming it.
    static func uncached(_ error: any Error, correlationID: UUID) -> Self {
        .init(
            .failure(
                error as? MSALFailure
                    ?? MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "\(error)", correlationID: correlationID)),
            timeToLive: nil)
    }
}
