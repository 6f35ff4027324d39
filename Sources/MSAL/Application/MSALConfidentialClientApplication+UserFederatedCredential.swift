import Foundation

extension MSALConfidentialClientApplication {
    /// Gets a user's tokens for an agent identity: the `user_fic` grant of Microsoft Entra's agent
    /// identities, which trades the agent's federated identity credential (typically its instance
    /// token for `api://AzureADTokenExchange/.default`) and the user's UPN or object id for the
    /// user's tokens, authenticated with this application's own credential — MSAL.NET's
    /// `AcquireTokenByUserFederatedIdentityCredential` (4.83.3), MSAL Go's (1.8), MSAL for
    /// Python's `acquire_token_by_user_federated_identity_credential`.
    ///
    /// The tokens are cached under the user's account with the usual keys, as MSAL for Python
    /// caches them: the next call for the same user and scopes is answered from the cache with no
    /// request while the access token is usable (``MSALUserFederatedIdentityCredentialParameters/forceRefresh``
    /// skips it), and ``allAccounts()`` and ``acquireTokenSilent(with:)`` see the user. The answer's
    /// ID token must name the user requested.
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/internalErrorInvalidParameter`` before
    ///   anything is sent for a credential that is not a compact JWT (never quoted), no scope, or a
    ///   user not named by exactly one of username and object id;
    ///   ``MSALInternalError/internalErrorMismatchedUser`` when the answer is another user's
    ///   (nothing cached); the token endpoint's errors, with the OAuth error, sub-error and
    ///   correlation id: `invalid_grant` for a credential or user the service refuses is
    ///   ``MSALError/internal`` with ``MSALInternalError/internalErrorInvalidGrant`` (the agent's
    ///   to fix); `interaction_required`, `consent_required`, and `invalid_grant` with `claims` or a
    ///   sub-error asking the user to act are ``MSALError/interactionRequired``.
    public func acquireTokenByUserFederatedIdentityCredential(
        with parameters: MSALUserFederatedIdentityCredentialParameters
    ) async throws -> MSALResult {
        let flow = UserFederatedCredentialFlow(client: client, accountMemo: accountMemoStore)
        return try await flow.run(try flow.request(parameters))
    }

    /// ``acquireTokenByUserFederatedIdentityCredential(with:)`` with a completion block, called
    /// once, on the parameters' ``MSALParameters/completionBlockQueue`` when set (on one of
    /// swift-msal's threads otherwise).
    public func acquireTokenByUserFederatedIdentityCredential(
        with parameters: MSALUserFederatedIdentityCredentialParameters, completionBlock: @escaping MSALCompletionBlock
    ) {
        MSALParameters.complete(parameters, completionBlock) {
            try await self.acquireTokenByUserFederatedIdentityCredential(with: parameters)
        }
    }
}
