import Foundation

extension MSALPublicClientApplication {
    /// Signs a user in: opens the sign-in page (the system browser unless the parameters'
    /// ``MSALInteractiveTokenParameters/webviewParameters`` say otherwise), receives the
    /// redirect on `http://localhost:<port>`, redeems the code with PKCE, verifies the ID token
    /// and caches the tokens.
    ///
    /// One interactive request runs at a time per application; another fails with
    /// ``MSALInternalError/internalErrorInteractiveSessionAlreadyRunning``. When no browser can be opened the
    /// error (``MSALInternalError/browserLaunchFailed``) carries ``MSALFailure/authorizationURL``
    /// for the user to open by hand — but the sign-in has then failed; call again with a web UI
    /// that shows the URL (``MSALBrowserCommand`` or your own ``MSALWebUI``) to wait for it.
    ///
    /// When ``MSALGlobalConfig/telemetryConfig`` has a callback, the call is reported to it when it
    /// ends, refusals included (``MSALTelemetryConfig``).
    public func acquireToken(with parameters: MSALInteractiveTokenParameters) async throws -> MSALResult {
        guard
            let telemetry = TelemetryAPICall.start(
                .acquireToken, client: client, parameters: parameters, promptBehavior: parameters.promptType.parameterValue ?? "")
        else {
            return try await acquireTokenUnreported(parameters)
        }
        do {
            let result = try await acquireTokenUnreported(parameters)
            telemetry.succeeded(result)
            return result
        } catch {
            telemetry.failed(error)
            throw error
        }
    }

    /// ``acquireToken(with:)`` without telemetry.
    private func acquireTokenUnreported(_ parameters: MSALInteractiveTokenParameters) async throws -> MSALResult {
        let claimed = interactiveSession.withLock { running -> Bool in
            if running { return false }
            running = true
            return true
        }
        guard claimed else {
            client.logger.warning("Interactive request refused: another one is running", correlationID: parameters.correlationId)
            throw MSALFailure(
                .internal, internalCode: .internalErrorInteractiveSessionAlreadyRunning,
                message: "Another interactive request of this application is still running", correlationID: parameters.correlationId)
        }
        defer { interactiveSession.withLock { $0 = false } }
        do {
            return try await signIn(parameters)
        } catch let error as MSALFailure {
            client.logger.info(
                "Interactive request failed: \(error.code) \(error.internalCode) \(public: error.oauthError)",
                correlationID: error.correlationID)
            throw error
        }
    }

    /// ``acquireToken(with:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func acquireToken(with parameters: MSALInteractiveTokenParameters, completionBlock: @escaping MSALCompletionBlock) {
        MSALParameters.complete(parameters, completionBlock) { try await self.acquireToken(with: parameters) }
    }

    /// Signs `account` out: removes its tokens for this application (``remove(_:)``) and, with
    /// ``MSALSignoutParameters/signoutFromBrowser``, opens the identity provider's end-session
    /// page so the browser session ends too (OpenID Connect RP-Initiated Logout 1.0: the
    /// account's ID token as `id_token_hint`, its username as `logout_hint`, and the configured
    /// redirect URI, when the app set one, as `post_logout_redirect_uri`, then the parameters'
    /// ``MSALSignoutParameters/extraQueryParameters`` except those that would replace these).
    ///
    /// ``MSALSignoutParameters/wipeAccount`` removes the account for every application that shares
    /// the cache, and ``MSALSignoutParameters/wipeCacheForAllAccounts`` empties the cache.
    ///
    /// - Returns: `true`, as MSAL for iOS's async `signout` does (a failure throws).
    @discardableResult
    public func signout(with account: MSALAccount, signoutParameters: MSALSignoutParameters) async throws -> Bool {
        let correlationID = signoutParameters.correlationId ?? client.correlationIDs.make()
        client.logger.info(
            "Signing out \(oii: account.identifier)\(public: signoutParameters.signoutFromBrowser ? ", then ending the browser session" : "")",
            correlationID: correlationID)
        let profiles = account.tenantProfiles ?? []
        let idTokenHint =
            signoutParameters.signoutFromBrowser
            ? (profiles.first { $0.isHomeTenantProfile && $0.hasIDToken } ?? profiles.first { $0.hasIDToken })?.idToken : nil
        if signoutParameters.wipeCacheForAllAccounts {
            client.logger.warning("Sign-out empties the whole token cache (wipeCacheForAllAccounts)", correlationID: correlationID)
            _ = try await cache.write(clientID: client.clientID) { contents in contents.removeEverything() }
            client.silentHits.forgetAll()
            await removeFromExternalAccounts(account, wipeAccount: signoutParameters.wipeAccount, correlationID: correlationID)
            try await removeFromBroker(account, correlationID: correlationID)
        } else if signoutParameters.wipeAccount, let identifier = account.identifier {
            client.logger.info("Sign-out removes \(oii: identifier) for every application (wipeAccount)", correlationID: correlationID)
            let environment = account.environment
            _ = try await cache.write(clientID: client.clientID, partition: .account(identifier)) { contents in
                contents.removeAllEntries(homeAccountID: identifier, environment: environment)
            }
            client.silentHits.forgetAll()
            await removeFromExternalAccounts(account, wipeAccount: signoutParameters.wipeAccount, correlationID: correlationID)
            try await removeFromBroker(account, correlationID: correlationID)
        } else {
            try await removeWithoutBlocking(account)
        }
        guard signoutParameters.signoutFromBrowser else { return true }
        let metadata = try await client.resolver.resolve(configuration.authority, correlationID: correlationID)
        guard let endpoint = metadata.endSessionEndpoint else {
            throw MSALFailure(
                .internal, internalCode: .invalidAuthorityMetadata,
                message: "The authority names no end_session_endpoint, so the browser session cannot be ended", correlationID: correlationID
            )
        }
        var query: [(String, String)] = [("client_id", client.clientID)]
        if let idTokenHint { query.append(("id_token_hint", idTokenHint)) }
        if let username = account.username, !username.isEmpty, username != TokenCacheEntries.missingUsername {
            query.append(("logout_hint", username))
        }
        if let redirectUri = client.redirectURI, !redirectUri.isEmpty { query.append(("post_logout_redirect_uri", redirectUri)) }
        let reserved: Set<String> = ["client_id", "id_token_hint", "logout_hint", "post_logout_redirect_uri", "state"]
        for (name, value) in (signoutParameters.extraQueryParameters ?? [:]).sorted(by: { $0.key < $1.key })
        where !reserved.contains(name.lowercased()) {
            query.append((name, value))
        }
        let url = TokenRequests.appendingQuery(endpoint, query)
        let redirect = URL(string: client.redirectURI ?? "http://localhost") ?? endpoint
        _ = try await signoutParameters.webviewParameters.webUI.present(authorizationURL: url, redirectURI: redirect)
        return true
    }

    /// ``signout(with:signoutParameters:)`` with a completion block: `(success, error)`.
    public func signout(
        with account: MSALAccount, signoutParameters: MSALSignoutParameters,
        completionBlock: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        MSALParameters.complete(signoutParameters, { (done: Bool?, error) in completionBlock(done ?? false, error) }) {
            try await self.signout(with: account, signoutParameters: signoutParameters)
        }
    }
}
