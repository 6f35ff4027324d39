import Foundation

extension MSALConfidentialClientApplication {
    /// Gets an app token: a token for the application itself, with the application permissions
    /// granted to it (the OAuth 2.0 client credentials grant).
    ///
    /// A cached token valid for longer than
    /// ``MSALConfidentialClientApplicationConfig/tokenExpirationBuffer`` is returned with no
    /// network call at all, unless ``MSALClientCredentialParameters/forceRefresh`` is set or the
    /// parameters carry a claims challenge. A token past its `refresh_on` is replaced when the
    /// service answers, and returned while it does not. The result has no ID token, and its
    /// ``MSALResult/account`` has no identifier: no user is involved.
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/internalErrorInvalidClient`` for a credential the service
    ///   refuses, ``MSALInternalError/internalErrorInvalidScope`` for a scope that is not one resource's
    ///   `/.default`, and the credential's own errors (``MSALInternalError/clientAssertionFailed``, …).
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`) until it has to wait: a remembered
    /// cache hit returns without a hop to another executor; a lookup, refresh or token request runs
    /// on the global concurrent executor, as any `async` method does.
    nonisolated(nonsending) public func acquireTokenForClient(with parameters: MSALClientCredentialParameters) async throws -> MSALResult {
        if let remembered = ClientCredentialsFlow.memoizedResult(parameters, client: client) { return remembered }
        let flow = ClientCredentialsFlow(client: client, region: region)
        return try await flow.run(try flow.request(parameters))
    }

    /// ``acquireTokenForClient(with:)`` for `scopes` with the default parameters.
    public func acquireTokenForClient(scopes: [String]) async throws -> MSALResult {
        try await acquireTokenForClient(with: MSALClientCredentialParameters(scopes: scopes))
    }

    /// ``acquireTokenForClient(with:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func acquireTokenForClient(with parameters: MSALClientCredentialParameters, completionBlock: @escaping MSALCompletionBlock) {
        MSALParameters.complete(parameters, completionBlock) { try await self.acquireTokenForClient(with: parameters) }
    }
}
