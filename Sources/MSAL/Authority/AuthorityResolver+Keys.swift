import Foundation
import MSALJOSE

extension AuthorityResolver {
    /// The JWK set at the metadata's `jwks_uri`, cached for a day.
    package func keySet(for metadata: MSALAuthorityMetadata, correlationID: UUID) async throws -> JSONWebKeySet {
        let uri = metadata.jwksURI.absoluteString
        let pipeline = self.pipeline
        return try await store.keySets.value(for: uri) {
            do {
                var request = MSALHTTPRequest(method: .get, url: metadata.jwksURI)
                request.sendsMicrosoftHeaders = metadata.kind.isMicrosoft
                let response = try await pipeline.send(request, correlationID: correlationID)
                guard response.statusCode == 200 else {
                    var error = MSALError(
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
                    return .init(.failure(MSALError(error, correlationID: correlationID)), timeToLive: nil)
                }
            } catch let error as MSALError {
                return .init(.failure(error), timeToLive: nil)
            } catch {
                return .init(
                    .failure(MSALError(.internal, internalCode: .unexpected, message: "\(error)", correlationID: correlationID)),
                    timeToLive: nil)
            }
        }
    }

    /// Verifies an ID token issued by the authority: signature with its JWK set (fetched again once,
    /// at most every five minutes, when the token's `kid` is unknown), then the OpenID Connect claims.
    ///
    /// - Throws: ``MSALError`` with a `-46xxx` internal code for the token, or a network/metadata error for the keys.
    package func verifyIDToken(
        _ token: String, metadata: MSALAuthorityMetadata, clientID: String, nonce: String?, correlationID: UUID
    ) async throws -> IDToken {
        let options = IDTokenValidationOptions(issuer: metadata.issuer, clientID: clientID, nonce: nonce)
        let now = store.clock.now()
        let keys = try await keySet(for: metadata, correlationID: correlationID)
        do throws(JOSEError) {
            return try IDTokenValidator(keySet: keys, options: options).validate(token, now: now)
        } catch  where error.code == .keyNotFound {
            // Rate-limited by the last kid-triggered refetch, not by the regular fetch: a key rotated in
            // just after the set was fetched must still be found.
            let uri = metadata.jwksURI.absoluteString
            guard store.claimKeySetRefetch(uri, now: now) else {
                throw MSALError(error, correlationID: correlationID)
            }
            store.keySets.remove(uri)
        } catch {
            throw MSALError(error, correlationID: correlationID)
        }
        let refreshed = try await keySet(for: metadata, correlationID: correlationID)
        do throws(JOSEError) {
            return try IDTokenValidator(keySet: refreshed, options: options).validate(token, now: now)
        } catch {
            throw MSALError(error, correlationID: correlationID)
        }
    }
}
