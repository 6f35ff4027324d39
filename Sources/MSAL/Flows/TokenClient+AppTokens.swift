import Foundation

extension TokenClient {
    /// Parses a successful answer with `parse` and caches its app token (client credentials,
    /// managed identity: no home account) for `scopes` under `environment` and `realm`, in
    /// `partition`, as `scheme` keys it; the token as a result. A failure carries `correlationID`,
    /// and a parse failure the answer's status.
    package func acceptAppToken(
        _ response: MSALHTTPResponse, parse: ([UInt8], _ now: Int64) throws(MSALFailure) -> TokenResponse, environment: String,
        realm: String, scopes: [String], partition: TokenCachePartition, authority: MSALAuthority, correlationID: UUID,
        scheme: TokenScheme = .bearer, extendedKey: String? = nil
    ) async throws -> MSALResult {
        let now = nowSeconds
        let token: TokenResponse
        do throws(MSALFailure) {
            token = try parse(response.body, now)
        } catch {
            var error = error.correlated(correlationID)
            error.httpStatusCode = response.statusCode
            throw error
        }
        let clientID = clientID
        let entries = TokenCacheEntries(
            appTokenResponse: token, clientID: clientID, environment: environment, realm: realm, requestedScopes: scopes, now: now,
            scheme: scheme, extendedKey: extendedKey)
        do {
            try await cache.write(clientID: clientID, partition: partition) { contents in contents.save(entries, clientID: clientID) }
        } catch let error as MSALFailure {
            throw error.correlated(correlationID)
        }
        return MSALResult(
            appToken: token.accessToken, target: entries.target, expiresOn: now + token.expiresIn,
            refreshOn: token.refreshIn.map { now + $0 },
            environment: environment, realm: realm, authority: authority, correlationId: correlationID, tokenSource: .identityProvider)
    }
}
