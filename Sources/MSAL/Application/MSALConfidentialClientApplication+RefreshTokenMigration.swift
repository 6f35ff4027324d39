import Foundation

extension MSALConfidentialClientApplication {
    /// Migrates a user from another library: redeems `refreshToken` (obtained by ADAL, another
    /// MSAL, or an earlier version of the app) for `scopes`, and caches the answer's tokens and
    /// account as a sign-in does, so ``acquireTokenSilent(with:)`` serves the user from then on (a web app moving its users' sessions) —
    /// MSAL for Python's `acquire_token_by_refresh_token`, MSAL.NET's `AcquireTokenByRefreshToken`.
    ///
    /// Call it once per refresh token you bring, then drop it: the cache keeps the new refresh
    /// token the answer carries, never the one given. `scopes` are ones the refresh token was
    /// granted for, in the Microsoft identity platform's form (`User.Read`,
    /// `https://graph.microsoft.com/.default`); `openid profile offline_access` are added. The
    /// application's authority is used; give one that names the user's tenant for a
    /// single-tenant user.
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/internalErrorInvalidParameter`` before
    ///   anything is sent for an empty, oversized (over 32 KiB) or malformed refresh token
    ///   (white space, control or non-ASCII characters) or no scope; ``MSALError/interactionRequired``
    ///   with ``MSALInternalError/internalErrorInvalidGrant`` and the OAuth error and sub-error for
    ///   one the provider refuses (expired, revoked, another client's): the user must sign in.
    ///   Nothing is cached then. The refresh token is never logged or quoted in an error.
    public func acquireToken(byRefreshToken refreshToken: String, scopes: [String]) async throws -> MSALResult {
        try await RefreshTokenMigrationFlow(client: client).run(
            refreshToken: refreshToken, scopes: scopes, authority: nil, correlationID: nil)
    }

    /// ``acquireToken(byRefreshToken:scopes:)`` with a completion block, called once, on one of
    /// swift-msal's threads.
    public func acquireToken(byRefreshToken refreshToken: String, scopes: [String], completionBlock: @escaping MSALCompletionBlock) {
        MSALParameters.complete(nil, completionBlock) { try await self.acquireToken(byRefreshToken: refreshToken, scopes: scopes) }
    }
}
