import Foundation
import MSALJOSE

/// Interactive sign-in: the authorization code flow with PKCE, `state` and `nonce` (RFC 6749
/// §4.1, RFC 7636, OpenID Connect Core §3.1), reaching the user through the web UI and receiving
/// the redirect on a loopback listener (RFC 8252) unless the web UI captured it itself.
package struct InteractiveFlow: Sendable {
    package let client: TokenClient

    package func run(_ parameters: MSALInteractiveTokenParameters) async throws -> MSALResult {
        let values = parameters.snapshot
        let interactive = parameters.interactiveSnapshot
        let correlationID = values.correlationId ?? client.correlationIDs.make()
        let authority = values.authority ?? client.defaultAuthority
        let scopes = TokenRequests.resourceScopes(values.scopes)
        guard !values.scopes.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "The request names no scopes",
                correlationID: correlationID)
        }
        let (scheme, presentation) = try client.tokenScheme(values.authenticationScheme, correlationID: correlationID)
        let metadata = try await client.resolver.resolve(authority, correlationID: correlationID)

        let secrets = try client.interactiveSecrets(correlationID: correlationID)
        let (pkce, state, nonce) = (secrets.pkce, secrets.state, secrets.nonce)

        let webview = interactive.webviewParameters
        let webUI = client.effectiveWebUI(webview.webUI)
        let listener: LoopbackRedirectListener?
        let redirectURI: String
        if LoopbackRedirectURI.isLoopback(client.redirectURI) {
            do throws(MSALFailure) {
                listener = try await LoopbackRedirectListener.start(
                    redirectURI: client.redirectURI, expectedState: state, timeout: webview.timeout,
                    successPageHTML: webview.successPageHTML, failurePageHTML: webview.failurePageHTML)
            } catch {
                var error = error
                error.correlationID = correlationID
                throw error
            }
            redirectURI = listener!.redirectURI.absoluteString
        } else if let configured = client.redirectURI, webview.isAppSuppliedWebUI {
            // A custom scheme only an app's own web UI can catch.
            listener = nil
            redirectURI = configured
        } else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidRedirectURI,
                message:
                    "The redirect URI \(client.redirectURI ?? "") is not a loopback http://localhost URI, which a browser on Linux needs; only an app-supplied web UI can receive it",
                correlationID: correlationID)
        }

        let authorizationURL = TokenRequests.authorizeURL(
            endpoint: metadata.authorizationEndpoint, clientID: client.clientID, redirectURI: redirectURI,
            scope: TokenRequests.scopeParameter(scopes, extra: interactive.extraScopesToConsent ?? [], excluding: client.excludedScopes),
            state: state, nonce: nonce,
            codeChallenge: pkce.challenge, prompt: interactive.promptType.parameterValue,
            loginHint: interactive.loginHint ?? values.account?.username, domainHint: interactive.domainHint,
            claims: client.claimsParameter(values.claimsRequest),
            extraQueryParameters: interactive.preferredAuthMethod.authorizeParameters(client.withSlice(values.extraQueryParameters)),
            microsoft: authority.kind.isMicrosoft, dpopKeyThumbprint: presentation?.dpopKey?.thumbprint)

        // A launched browser gets a single-use start URL on the listener, never the authorization URL:
        // a process's command line is readable by every local user (issue 19, finding 3).
        let presentedURL: URL
        if let listener, webUI.launchesExternalBrowser {
            let token: String
            do throws(JOSEError) {
                token = try SecureRandom.urlSafeToken()
            } catch {
                await listener.close()
                throw MSALFailure(error, correlationID: correlationID)
            }
            presentedURL = listener.offerStart(token: token, authorizationURL: authorizationURL)
        } else {
            presentedURL = authorizationURL
        }

        client.logger.info(
            "Interactive request for \(public: scopes): sign-in page on \(host: authorizationURL), redirect \(public: listener.map { "to the loopback listener on port \($0.redirectURI.port ?? 0)" } ?? "captured by the app's web UI")",
            correlationID: correlationID)
        let redirect: LoopbackRedirect
        do {
            // Registered process-wide, so MSALPublicClientApplication.cancelCurrentWebAuthSession() can end the wait.
            let logger = client.logger
            let browserUnavailable = webview.browserUnavailableHandler
            redirect = try await (client.publicClient?.webAuthSessions ?? .shared).cancellable {
                try await Self.obtainRedirect(
                    webUI: webUI, presentedURL: presentedURL, redirectURI: redirectURI, listener: listener,
                    expectedState: state, browserUnavailable: browserUnavailable, logger: logger,
                    correlationID: correlationID)
            }
        } catch {
            await listener?.close()
            if var error = error as? MSALFailure {
                if error.correlationID == nil { error.correlationID = correlationID }
                if error.internalCode == .browserLaunchFailed {
                    // The listener is closed, so a start URL in the launcher's message leads nowhere: name the page itself.
                    if presentedURL != authorizationURL {
                        error.message = error.message.replacingOccurrences(
                            of: presentedURL.absoluteString, with: authorizationURL.absoluteString)
                    }
                    if error.authorizationURL == nil || error.authorizationURL == presentedURL { error.authorizationURL = authorizationURL }
                }
                throw error
            }
            if error is CancellationError { throw Self.canceled(correlationID) }
            throw MSALFailure(
                .internal, internalCode: .internalErrorAuthorizationFailed, message: "The web UI failed: \(error)",
                correlationID: correlationID)
        }
        await listener?.close()
        client.logger.verbose(
            "Interactive request: redirect received with \(public: redirect.error == nil ? "an authorization code" : "an error")",
            correlationID: correlationID)

        let code = try Self.authorizationCode(redirect, metadata: metadata, correlationID: correlationID)
        let request = TokenRequests.authorizationCode(
            tokenEndpoint: metadata.tokenEndpoint, clientID: client.clientID, code: code, redirectURI: redirectURI,
            scope: TokenRequests.scopeParameter(scopes, extra: interactive.extraScopesToConsent ?? [], excluding: client.excludedScopes),
            codeVerifier: pkce.verifier,
            claims: client.claimsParameter(values.claimsRequest), extraQueryParameters: client.withSlice(values.extraQueryParameters),
            microsoft: authority.kind.isMicrosoft, schemeFields: client.tokenRequestFields(presentation))
        let result = try await client.informingExternalAccounts(
            client.redeem(
                request,
                TokenRedemption(
                    authority: authority, metadata: metadata, scopes: scopes, nonce: nonce, expectedAccount: values.account,
                    grant: .authorizationCode, correlationID: correlationID, scheme: scheme, presentation: presentation)))
        return try client.present(result, presentation)
    }

    private enum Outcome: Sendable {
        case presented
        case captured(URL)
        case redirected(LoopbackRedirect)
    }

    /// Shows `presentedURL` (the authorization URL, or the listener's start URL that redirects to it) and
    /// waits for whichever comes first: the web UI handing back
    /// the redirect it captured, or the browser delivering it to the loopback listener.
    private static func obtainRedirect(
        webUI: any MSALWebUI, presentedURL: URL, redirectURI: String, listener: LoopbackRedirectListener?,
        expectedState: String, browserUnavailable: (@Sendable (URL) -> Void)?, logger: MSALLogger, correlationID: UUID
    ) async throws -> LoopbackRedirect {
        guard let redirectURL = URL(string: redirectURI) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidRedirectURI, message: "The redirect URI is not a URL",
                correlationID: correlationID)
        }
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    if let url = try await webUI.present(authorizationURL: presentedURL, redirectURI: redirectURL) {
                        return .captured(url)
                    }
                } catch let error as MSALFailure
                    where error.internalCode == .browserLaunchFailed && listener != nil && browserUnavailable != nil
                {
                    // No browser here: the user opens the URL themselves while the listener waits.
                    logger.warning(
                        "No browser could be started; the app was handed the sign-in page's URL and the listener keeps waiting",
                        correlationID: correlationID)
                    browserUnavailable?(presentedURL)
                }
                return .presented
            }
            if let listener {
                group.addTask {
                    .redirected(try await listener.waitForRedirect())
                }
            }
            while let outcome = try await group.next() {
                switch outcome {
                case .presented:
                    if listener == nil {
                        throw MSALFailure(
                            .internal, internalCode: .invalidRedirect,
                            message: "The web UI returned no redirect URL and no loopback listener is waiting for one",
                            correlationID: correlationID)
                    }
                case .captured(let url):
                    group.cancelAll()
                    return try LoopbackRedirect.parse(url, expectedState: expectedState, correlationID: correlationID)
                case .redirected(let redirect):
                    group.cancelAll()
                    return redirect
                }
            }
            throw canceled(correlationID)
        }
    }

    /// RFC 9207: an `iss` parameter on the redirect must equal the authority's issuer, and one
    /// must be there when the metadata says the provider sends it. Checked on error responses too,
    /// before anything in the redirect is acted on.
    /// The authorization code `redirect` carries, once its issuer is checked; the provider's error
    /// when it carries one instead.
    package static func authorizationCode(
        _ redirect: LoopbackRedirect, metadata: MSALAuthorityMetadata, correlationID: UUID
    ) throws -> String {
        try checkIssuer(redirect, metadata: metadata, correlationID: correlationID)
        if let oauthError = redirect.error {
            throw authorizationError(oauthError, redirect: redirect, correlationID: correlationID)
        }
        guard let code = redirect.code, !code.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .invalidRedirect, message: "The redirect carries neither a code nor an error",
                correlationID: correlationID)
        }
        return code
    }

    package static func checkIssuer(_ redirect: LoopbackRedirect, metadata: MSALAuthorityMetadata, correlationID: UUID) throws {
        let received = redirect.parameters["iss"]
        guard received != nil || metadata.authorizationResponseIssuerSupported else { return }
        guard let received else {
            throw MSALFailure(
                .internal, internalCode: .redirectIssuerMismatch,
                message:
                    "The redirect has no iss parameter, although the provider's metadata says every authorization response carries one (RFC 9207); the code was not redeemed",
                correlationID: correlationID)
        }
        guard issuer(received, matches: metadata.issuer) else {
            throw MSALFailure(
                .internal, internalCode: .redirectIssuerMismatch,
                message:
                    "The redirect's iss parameter \(OAuthErrorResponse.sanitized(received, limit: 128)) is not the authority's issuer \(metadata.issuer) (RFC 9207); the code was not redeemed",
                correlationID: correlationID)
        }
    }

    /// Whether `received` is `issuer`, or fills its multi-tenant `{tenantid}` template with one path segment.
    private static func issuer(_ received: String, matches issuer: String) -> Bool {
        guard let placeholder = issuer.range(of: "{tenantid}") else { return received == issuer }
        let prefix = issuer[..<placeholder.lowerBound]
        let suffix = issuer[placeholder.upperBound...]
        guard received.count > prefix.count + suffix.count, received.hasPrefix(prefix), received.hasSuffix(suffix) else { return false }
        let tenant = received.dropFirst(prefix.count).dropLast(suffix.count)
        return !tenant.contains("/") && !tenant.contains("?") && !tenant.contains("#")
    }

    /// The error for an OAuth error on the redirect: `access_denied` (or Entra's `cancel`
    /// sub-code) is the user canceling; `server_error` is ``MSALError/internal`` with
    /// ``MSALInternalError/serverError``, as MSAL for iOS reports it.
    package static func authorizationError(_ oauthError: String, redirect: LoopbackRedirect, correlationID: UUID) -> MSALFailure {
        let folded = oauthError.lowercased()
        let subError = redirect.errorSubcode ?? redirect.parameters["suberror"]
        let description = redirect.displayErrorDescription
        let code: MSALError
        let internalCode: MSALInternalError
        if folded == "access_denied" || subError?.lowercased() == "cancel" {
            code = .userCanceled
            internalCode = .internalErrorAuthorizationFailed
        } else if folded == "server_error" {
            // As MSAL for iOS: `.internal`, with `MSALError.serverError`'s value as the internal code.
            code = .internal
            internalCode = .serverError
        } else {
            code = .internal
            internalCode = .internalErrorAuthorizationFailed
        }
        var error = MSALFailure(
            code, internalCode: internalCode,
            message: "The sign-in failed (\(OAuthErrorResponse.sanitized(oauthError, limit: 128)))" + (description.map { ": \($0)" } ?? ""),
            oauthError: OAuthErrorResponse.sanitized(oauthError, limit: 128),
            oauthSubError: subError.map { OAuthErrorResponse.sanitized($0, limit: 128) },
            correlationID: correlationID)
        error.claims = redirect.parameters["claims"]
        return error
    }

    private static func canceled(_ correlationID: UUID) -> MSALFailure {
        MSALFailure(
            .userCanceled, internalCode: .internalErrorSessionCanceled, message: "The interactive sign-in was canceled",
            correlationID: correlationID)
    }
}
