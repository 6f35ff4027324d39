import Foundation

extension MSALPublicClientApplication {
    /// Signs a user in: opens the sign-in page (the system browser unless the parameters'
    /// ``MSALInteractiveTokenParameters/webviewParameters`` say otherwise), receives the
    /// redirect on `http://localhost:<port>`, redeems the code with PKCE, verifies the ID token
    /// and caches the tokens.
    ///
    /// One interactive request runs at a time per application; another fails with
    /// ``MSALInternalError/interactiveSessionAlreadyRunning``. When no browser can be opened the
    /// error (``MSALInternalError/browserLaunchFailed``) carries ``MSALError/authorizationURL``
    /// for the user to open by hand — but the sign-in has then failed; call again with a web UI
    /// that shows the URL (``MSALBrowserCommand`` or your own ``MSALWebUI``) to wait for it.
    public func acquireToken(with parameters: MSALInteractiveTokenParameters) async throws -> MSALResult {
        let claimed = interactiveSession.withLock { running -> Bool in
            if running { return false }
            running = true
            return true
        }
        guard claimed else {
            client.logger.warning("Interactive request refused: another one is running", correlationID: parameters.correlationId)
            throw MSALError(
                .internal, internalCode: .interactiveSessionAlreadyRunning,
                message: "Another interactive request of this application is still running", correlationID: parameters.correlationId)
        }
        defer { interactiveSession.withLock { $0 = false } }
        do {
            return try await InteractiveFlow(client: client).run(parameters)
        } catch let error as MSALError {
            client.logger.info(
                "Interactive request failed: \(error.code) \(error.internalCode) \(public: error.oauthError)",
                correlationID: error.correlationID)
            throw error
        }
    }

    /// ``acquireToken(with:)`` with a completion block, called once on an arbitrary thread.
    public func acquireToken(with parameters: MSALInteractiveTokenParameters, completionBlock: @escaping MSALCompletionBlock) {
        Task {
            do {
                completionBlock(try await acquireToken(with: parameters), nil)
            } catch {
                completionBlock(nil, error)
            }
        }
    }

    /// Signs `account` out: removes its tokens for this application (``remove(_:)``) and, with
    /// ``MSALSignoutParameters/signoutFromBrowser``, opens the identity provider's end-session
    /// page so the browser session ends too (OpenID Connect RP-Initiated Logout 1.0: the
    /// account's ID token as `id_token_hint`, its username as `logout_hint`, and the configured
    /// redirect URI, when the app set one, as `post_logout_redirect_uri`).
    public func signout(with account: MSALAccount, signoutParameters: MSALSignoutParameters) async throws {
        let correlationID = signoutParameters.correlationId ?? client.correlationIDs.make()
        client.logger.info(
            "Signing out \(oii: account.identifier)\(public: signoutParameters.signoutFromBrowser ? ", then ending the browser session" : "")",
            correlationID: correlationID)
        let profiles = account.tenantProfiles ?? []
        let idTokenHint =
            signoutParameters.signoutFromBrowser
            ? (profiles.first { $0.isHomeTenantProfile && $0.hasIDToken } ?? profiles.first { $0.hasIDToken })?.idToken : nil
        try await removeWithoutBlocking(account)
        guard signoutParameters.signoutFromBrowser else { return }
        let metadata = try await client.resolver.resolve(configuration.authority, correlationID: correlationID)
        guard let endpoint = metadata.endSessionEndpoint else {
            throw MSALError(
                .internal, internalCode: .invalidAuthorityMetadata,
                message: "The authority names no end_session_endpoint, so the browser session cannot be ended", correlationID: correlationID
            )
        }
        var query: [(String, String)] = [("client_id", configuration.clientId)]
        if let idTokenHint { query.append(("id_token_hint", idTokenHint)) }
        if let username = account.username, !username.isEmpty, username != TokenCacheEntries.missingUsername {
            query.append(("logout_hint", username))
        }
        if let redirectUri = configuration.redirectUri, !redirectUri.isEmpty { query.append(("post_logout_redirect_uri", redirectUri)) }
        let url = TokenRequests.appendingQuery(endpoint, query)
        let redirect = URL(string: configuration.redirectUri ?? "http://localhost") ?? endpoint
        _ = try await signoutParameters.webviewParameters.webUI.present(authorizationURL: url, redirectURI: redirect)
    }

    /// ``signout(with:signoutParameters:)`` with a completion block: `(success, error)`.
    public func signout(
        with account: MSALAccount, signoutParameters: MSALSignoutParameters,
        completionBlock: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        Task {
            do {
                try await signout(with: account, signoutParameters: signoutParameters)
                completionBlock(true, nil)
            } catch {
                completionBlock(false, error)
            }
        }
    }
}
