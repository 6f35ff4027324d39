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

    /// Removes this application's app tokens from its cache: every token
    /// ``acquireTokenForClient(with:)`` cached, for every tenant, scope and FMI path, in the
    /// configured authority's cloud (all its host aliases), as MSAL for Python's
    /// `remove_tokens_for_client` — which, unlike this method, leaves the tokens of FMI paths and
    /// extra body parameters (its search skips `ext_cache_key` entries). Users' tokens (a web
    /// app's) and tokens obtained on behalf of a caller stay; no refresh token exists for app
    /// tokens. The next request asks the token endpoint.
    ///
    /// With a partitioned store (``MSALCacheConfig/Storage/partitioned(_:)``), which cannot list its
    /// partitions, only the partition of the configured authority's tenant is cleared.
    ///
    /// - Returns: how many tokens were removed.
    /// - Throws: ``MSALFailure`` when the cache cannot be read or written.
    @discardableResult
    public func removeTokensForClient() async throws -> Int {
        let clientID = client.clientID
        let authority = client.defaultAuthority
        let environment = CacheText.lowercased(authority.components.hostAndPort)
        let tenant = authority.components.tenant
        let partition = TokenCachePartition.application(clientID: clientID, tenant: TokenClient.isMultiTenant(tenant) ? nil : tenant)
        let removed = try await cache.write(clientID: clientID, partition: partition) { contents in
            contents.removeAppTokens(clientID: clientID, environment: environment)
        }
        client.appTokenHits.forgetAll()
        client.logger.info("Removed \(public: String(removed)) app token(s) of this application", correlationID: nil)
        return removed
    }

    /// ``removeTokensForClient()`` with a completion block, called once with the number of tokens
    /// removed or the error, on one of swift-msal's threads.
    public func removeTokensForClient(completionBlock: @escaping @Sendable (Int, (any Error)?) -> Void) {
        Task {
            do {
                completionBlock(try await removeTokensForClient(), nil)
            } catch {
                completionBlock(0, error)
            }
        }
    }
}
