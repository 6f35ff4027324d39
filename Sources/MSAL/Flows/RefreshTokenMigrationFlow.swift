import Foundation

/// `acquireToken(byRefreshToken:scopes:)`: a refresh token obtained elsewhere (ADAL, another
/// library, an earlier version of the app) redeemed once, and the answer's tokens and account
/// cached as a sign-in's are — MSAL for Python's `acquire_token_by_refresh_token` and MSAL.NET's
/// `AcquireTokenByRefreshToken`. The refresh token given is never cached itself (the answer's new
/// one is), never logged and never quoted in an error.
package struct RefreshTokenMigrationFlow: Sendable {
    package let client: TokenClient

    package init(client: TokenClient) {
        self.client = client
    }

    /// The largest refresh token accepted (Microsoft Entra's are a few kilobytes).
    package static let maximumRefreshTokenSize = 32 * 1024

    /// Redeems `refreshToken` for `scopes` at `authority` (the application's when `nil`).
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/internalErrorInvalidParameter`` before
    ///   anything is sent for an empty, oversized or malformed refresh token or no scope;
    ///   ``MSALError/interactionRequired`` (with the OAuth error, ``MSALInternalError/internalErrorInvalidGrant``)
    ///   for a refresh token the provider refuses; the token endpoint's and the ID token's other
    ///   errors as for any sign-in. Nothing is cached unless the answer passed every check.
    package func run(
        refreshToken: String, scopes: [String], authority: MSALAuthority?, correlationID: UUID?
    ) async throws -> MSALResult {
        let correlationID = correlationID ?? client.correlationIDs.make()
        let resourceScopes = TokenRequests.resourceScopes(scopes)
        do throws(MSALFailure) {
            try TokenRequests.checkVisibleASCII(refreshToken, "refresh token to migrate", limit: Self.maximumRefreshTokenSize)
            guard !resourceScopes.isEmpty else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "The migration names no scopes: give the scopes the refresh token was granted for, such as User.Read")
            }
        } catch {
            throw error.correlated(correlationID)
        }
        let authority = authority ?? client.defaultAuthority
        client.logger.info("Migrating a refresh token obtained elsewhere", correlationID: correlationID)
        do {
            let metadata = try await client.resolver.resolve(authority, correlationID: correlationID)
            let claims = client.claimsParameter(nil)
            let httpRequest = TokenRequests.refresh(
                tokenEndpoint: try client.tokenEndpoint(metadata, authority: authority, correlationID: correlationID),
                clientID: client.clientID, refreshToken: refreshToken,
                scope: TokenRequests.scopeParameter(resourceScopes, excluding: client.excludedScopes), claims: claims,
                extraQueryParameters: nil, microsoft: authority.kind.isMicrosoft,
                authentication: try await client.authenticationFields(
                    tokenEndpoint: metadata.tokenEndpoint, authority: authority, claims: claims))
            let redemption = TokenRedemption(
                authority: authority, metadata: metadata, scopes: resourceScopes, nonce: nil, expectedAccount: nil, grant: .migration,
                correlationID: correlationID)
            let result = try await client.redeem(httpRequest, redemption)
            client.silentHits.forgetAll()
            return result
        } catch let error as MSALFailure {
            throw error.correlated(correlationID)
        }
    }
}
