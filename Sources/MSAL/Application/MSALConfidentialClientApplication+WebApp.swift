import Foundation

extension MSALConfidentialClientApplication {
    /// Starts signing a user in to a web app (the authorization code flow with PKCE): redirect the
    /// user's browser to the returned flow's ``MSALAuthorizationCodeFlow/authorizationURL``, keep
    /// the flow in the user's server-side session, and pass it with the redirect the browser comes
    /// back with to ``acquireTokenByAuthorizationCode(flow:redirectURL:)``.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidRedirectURI`` for a redirect URI that
    ///   is not `https` (or `http` on a loopback host), or an authority metadata error.
    public func initiateAuthorizationCodeFlow(with parameters: MSALAuthorizationCodeParameters) async throws -> MSALAuthorizationCodeFlow {
        try await AuthorizationCodeFlow(client: client).start(parameters)
    }

    /// Finishes a web sign-in: checks the redirect the browser came back with against `flow` (its
    /// `state`, compared in constant time; the issuer when the authority sends `iss`; an error;
    /// exactly one code), redeems the code with the client's credential and the PKCE code
    /// verifier, verifies the ID token (signature, issuer, audience, lifetime, `nonce`) and caches
    /// the user's tokens. Use each flow once.
    ///
    /// - Parameters:
    ///   - flow: the flow ``initiateAuthorizationCodeFlow(with:)`` returned for this sign-in.
    ///   - redirectURL: the full URL the browser requested (its query holds `code` and `state`, or `error`).
    /// - Throws: ``MSALFailure``: ``MSALInternalError/internalErrorInvalidState`` for a redirect that does not
    ///   answer this flow (nothing is redeemed), ``MSALError/userCanceled`` for `access_denied`,
    ///   ``MSALInternalError/internalErrorAuthorizationFailed`` for another error on the redirect, or the token
    ///   endpoint's and ID token's errors.
    public func acquireTokenByAuthorizationCode(flow: MSALAuthorizationCodeFlow, redirectURL: URL) async throws -> MSALResult {
        let code = AuthorizationCodeFlow(client: client)
        let correlationID = client.correlationIDs.make()
        return try await code.redeem(
            flow, redirect: try code.redirect(redirectURL, flow: flow, correlationID: correlationID), correlationID: correlationID)
    }

    /// ``acquireTokenByAuthorizationCode(flow:redirectURL:)`` for a redirect given as its
    /// parameters: a `response_mode=form_post` body, or a web framework's decoded query.
    public func acquireTokenByAuthorizationCode(
        flow: MSALAuthorizationCodeFlow, responseParameters: [String: String]
    ) async throws -> MSALResult {
        let code = AuthorizationCodeFlow(client: client)
        let correlationID = client.correlationIDs.make()
        return try await code.redeem(
            flow, redirect: try code.redirect(responseParameters, flow: flow, correlationID: correlationID), correlationID: correlationID)
    }

    /// ``acquireTokenByAuthorizationCode(flow:redirectURL:)`` with a completion block, called once on one of
    /// swift-msal's threads.
    public func acquireTokenByAuthorizationCode(
        flow: MSALAuthorizationCodeFlow, redirectURL: URL, completionBlock: @escaping MSALCompletionBlock
    ) {
        MSALParameters.complete(nil, completionBlock) {
            try await self.acquireTokenByAuthorizationCode(flow: flow, redirectURL: redirectURL)
        }
    }

    /// A token for a signed-in user of the web app, as the public client's
    /// ``MSALPublicClientApplication/acquireTokenSilent(with:)`` gets one: the cached access token
    /// while valid, else one from the user's refresh token, redeemed with the client's credential.
    /// Never returns a token obtained on behalf of another caller (``acquireTokenOnBehalfOf(with:)``).
    ///
    /// - Throws: ``MSALFailure`` with ``MSALError/interactionRequired`` when the user must sign in again.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`) until it has to wait: a remembered
    /// cache hit returns without a hop to another executor; a lookup, refresh or token request runs
    /// on the global concurrent executor, as any `async` method does.
    nonisolated(nonsending) public func acquireTokenSilent(with parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        if let remembered = SilentFlow.memoizedResult(parameters, client: client) { return remembered }
        let flow = SilentFlow(client: client)
        return try await flow.run(try flow.request(parameters))
    }

    /// ``acquireTokenSilent(with:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func acquireTokenSilent(with parameters: MSALSilentTokenParameters, completionBlock: @escaping MSALCompletionBlock) {
        MSALParameters.complete(parameters, completionBlock) { try await self.acquireTokenSilent(with: parameters) }
    }

    /// The users signed in to this web app (those with an account and a token of this application in the cache).
    public func allAccounts() async throws -> [MSALAccount] {
        try await cache.accounts(clientID: client.clientID, environment: nil, signedInOnly: false, memo: accountMemoStore)
    }

    /// The signed-in user with home account id `identifier` (`uid.utid`), or `nil`.
    public func account(forIdentifier identifier: String) async throws -> MSALAccount? {
        let folded = CacheText.lowercased(identifier)
        // Read with the account's partition, so a partitioned store loads the one it keeps this user in.
        let accounts = try await cache.accounts(
            clientID: client.clientID, environment: nil, signedInOnly: false, memo: accountMemoStore, partition: .account(identifier))
        return accounts.first { $0.identifier.map(CacheText.lowercased) == folded }
    }

    /// Signs `account` out of this web app: removes its tokens for this application, and the
    /// account itself when no other application holds a token for it. Tokens obtained on behalf
    /// of callers stay (they belong to those callers' assertions). Removing an account that is not
    /// in the cache does nothing.
    public func remove(_ account: MSALAccount) async throws {
        try await client.removeTokens(of: account)
    }
}
