import Foundation
import MSALJOSE

/// A validated authorization request.
struct AuthorizeRequest: Sendable {
    var client: MSALEmulator.Client
    var redirectURI: String
    var state: String?
    var nonce: String?
    var scope: String
    var codeChallenge: String
    var prompt: String?
    var loginHint: String?
    /// `dpop_jkt`: the DPoP key the code is bound to.
    var dpopThumbprint: String? = nil
    var selector: EmulatorCore.TenantSelector
    /// The protocol parameters as received, for the sign-in form to post back.
    var parameters: [(name: String, value: String)]
}

extension EmulatorCore {
    /// The session cookie's name.
    static let sessionCookie = "msal_emulator_session"

    /// What checking an authorization request gave.
    enum AuthorizeCheck: Sendable {
        case valid(AuthorizeRequest)
        /// Shown as a page: the client or redirect URI cannot be trusted with a redirect.
        case page(EmulatorOAuthError)
        /// Sent back to the client's redirect URI.
        case redirect(uri: String, state: String?, EmulatorOAuthError)
    }

    /// `GET`/`POST /{tenant}/oauth2/v2.0/authorize`.
    func authorize(
        _ request: EmulatorHTTPRequest, selector: TenantSelector?, segment: Substring, info: inout EmulatorRequestInfo
    ) async -> EmulatorHTTPResponse {
        let parameters: EmulatorParameters
        if request.method == "POST" {
            guard request.isForm, let form = request.form else {
                return errorPage(.malformed, info: info)
            }
            parameters = form
        } else {
            guard let query = request.query else { return errorPage(.malformed, info: info) }
            parameters = query
        }
        info.clientID = parameters["client_id"].map { EmulatorText.sanitized($0, limit: 128) }
        let checked = checkAuthorize(parameters, selector: selector, segment: segment)
        let authorization: AuthorizeRequest
        switch checked {
        case .page(let error):
            return errorPage(error, info: info)
        case .redirect(let uri, let state, let error):
            return errorRedirect(uri: uri, state: state, error, info: info)
        case .valid(let valid):
            authorization = valid
        }

        if request.method == "POST" {
            return await completeSignIn(authorization, form: parameters, request: request, info: &info)
        }
        if let fault = await faultAnswer(&info, clientID: authorization.client.clientID) {
            return faultResponse(fault, authorization: authorization, info: info)
        }
        let action = "/\(segment)/oauth2/v2.0/authorize"
        let tenantName: String
        if case .tenant(let tenant) = authorization.selector { tenantName = tenant.displayName } else { tenantName = "any organization" }

        if authorization.prompt == "none" {
            let sessionUser = request.cookie(Self.sessionCookie).flatMap { id in state.withLock { $0.sessions[id] } }.flatMap {
                user(homeObjectID: $0)
            }
            let hinted = authorization.loginHint.map { $0.lowercased() }
            guard let user = sessionUser, signInTenant(of: user, through: authorization.selector) != nil,
                hinted == nil || hinted == user.username.lowercased()
            else {
                return errorRedirect(
                    uri: authorization.redirectURI, state: authorization.state,
                    EmulatorOAuthError("login_required", 50058, "A silent sign-in request was sent but no user is signed in."), info: info)
            }
            info.username = user.username
            return issueCode(authorization, user: user, info: info)
        }

        let candidates = users(signingInThrough: authorization.selector)
        var chosen: MSALEmulator.User?
        // The automatic user stands in for the person at the browser, whatever the prompt: SDKs
        // such as MSAL for Python send prompt=select_account by default. A login hint never overrides select_account.
        if let automatic = configuration.autoSignIn.flatMap(configuration.user(named:)), candidates.contains(automatic) {
            chosen = automatic
        } else if authorization.prompt != "select_account", configuration.honorsLoginHint, let hint = authorization.loginHint,
            let hinted = configuration.user(named: hint), candidates.contains(hinted)
        {
            chosen = hinted
        }
        if let chosen {
            return .html(
                EmulatorPages.autoSignIn(
                    action: action, parameters: authorization.parameters, clientName: authorization.client.displayName, user: chosen))
        }
        return .html(
            EmulatorPages.signIn(
                action: action, parameters: authorization.parameters, clientName: authorization.client.displayName,
                tenantName: tenantName, users: candidates))
    }

    /// The sign-in form's `POST`: cancel, or sign the chosen user in and redirect with a code.
    private func completeSignIn(
        _ authorization: AuthorizeRequest, form: EmulatorParameters, request: EmulatorHTTPRequest, info: inout EmulatorRequestInfo
    ) async -> EmulatorHTTPResponse {
        if form["emulator_action"] == "cancel" {
            var error = EmulatorOAuthError("access_denied", 65004, "User declined to consent to access the app.")
            error.subError = "cancel"
            return errorRedirect(uri: authorization.redirectURI, state: authorization.state, error, info: info)
        }
        guard let username = form.nonEmpty("emulator_user") else {
            return errorPage(.missing("emulator_user"), info: info, status: 400)
        }
        guard let user = configuration.user(named: username), signInTenant(of: user, through: authorization.selector) != nil else {
            return errorPage(
                EmulatorOAuthError(
                    "invalid_request", 50034,
                    "The user account \(EmulatorText.sanitized(username, limit: 128)) does not exist in this tenant."),
                info: info)
        }
        info.username = user.username
        if let fault = await faultAnswer(&info, clientID: authorization.client.clientID, username: user.username) {
            return faultResponse(fault, authorization: authorization, info: info)
        }
        var response = issueCode(authorization, user: user, info: info)
        let session = Self.randomToken()
        state.withLock { $0.sessions[session] = user.objectID }
        response.headers.append(("Set-Cookie", "\(Self.sessionCookie)=\(session); Path=/; HttpOnly; SameSite=Lax"))
        return response
    }

    /// Records a code for `user` and redirects to the client with it.
    private func issueCode(_ authorization: AuthorizeRequest, user: MSALEmulator.User, info: EmulatorRequestInfo) -> EmulatorHTTPResponse {
        let now = self.now()
        // The caller checked that the user can sign in through the selector.
        let tenantID = signInTenant(of: user, through: authorization.selector) ?? user.tenantID
        let code = Self.randomToken()
        state.withLock { state in
            state.prune(now: now)
            state.codes[code] = AuthorizationCodeGrant(
                clientID: authorization.client.clientID, redirectURI: authorization.redirectURI, codeChallenge: authorization.codeChallenge,
                nonce: authorization.nonce, scope: authorization.scope, userID: user.objectID, tenantID: tenantID,
                expiresAt: now.addingTimeInterval(TimeInterval(state.lifetimes.authorizationCode)), lineage: Self.randomToken(),
                dpopThumbprint: authorization.dpopThumbprint)
        }
        var parameters = [("code", code)]
        if let state = authorization.state { parameters.append(("state", state)) }
        return .redirect(RedirectURIMatcher.appending(parameters, to: authorization.redirectURI))
    }

    /// Checks an authorization request in Entra's order: tenant, client and redirect URI first
    /// (failures shown as a page), then the rest (failures redirected to the client).
    func checkAuthorize(_ parameters: EmulatorParameters, selector: TenantSelector?, segment: Substring) -> AuthorizeCheck {
        if let duplicated = parameters.duplicatedName { return .page(.duplicated(duplicated)) }
        guard let selector else { return .page(.unknownTenant(String(segment))) }
        guard let clientID = parameters.nonEmpty("client_id") else { return .page(.missing("client_id")) }
        guard let client = configuration.client(withID: clientID) else { return .page(.unknownClient(clientID)) }
        guard let redirectURI = parameters.nonEmpty("redirect_uri") else { return .page(.missing("redirect_uri")) }
        guard RedirectURIMatcher.matches(redirectURI, registered: client.redirectURIs) else {
            return .page(
                EmulatorOAuthError(
                    "invalid_request", 50011,
                    "The redirect URI '\(EmulatorText.sanitized(redirectURI))' specified in the request does not match the redirect URIs configured for the application '\(client.clientID)'."
                ))
        }
        let state = parameters["state"]
        func fail(_ error: EmulatorOAuthError) -> AuthorizeCheck { .redirect(uri: redirectURI, state: state, error) }

        if let mode = parameters["response_mode"], mode != "query" {
            return fail(
                EmulatorOAuthError(
                    "invalid_request", 900144,
                    "The emulator supports only response_mode=query, not '\(EmulatorText.sanitized(mode, limit: 32))'."))
        }
        guard let responseType = parameters.nonEmpty("response_type") else { return fail(.missing("response_type")) }
        guard responseType == "code" else {
            return fail(
                EmulatorOAuthError(
                    "unsupported_response_type", 700054,
                    "response_type '\(EmulatorText.sanitized(responseType, limit: 32))' is not supported; the emulator issues only authorization codes."
                ))
        }
        guard let scopeText = parameters.nonEmpty("scope") else { return fail(.missing("scope")) }
        do {
            _ = try EmulatorScope.parse(scopeText)
        } catch {
            return fail(error)
        }
        guard let challenge = parameters.nonEmpty("code_challenge") else {
            return fail(
                EmulatorOAuthError(
                    "invalid_request", 9002325, "Proof Key for Code Exchange is required: the request has no code_challenge."))
        }
        guard parameters["code_challenge_method"] == "S256" else {
            return fail(EmulatorOAuthError("invalid_request", 501491, "code_challenge_method must be S256."))
        }
        guard challenge.utf8.count == 43,
            challenge.utf8.allSatisfy({ EmulatorText.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else {
            return fail(EmulatorOAuthError("invalid_request", 501491, "code_challenge must be 43 base64url characters (SHA-256)."))
        }
        let prompt = parameters["prompt"]
        if let prompt, !["none", "login", "select_account", "consent", "create"].contains(prompt) {
            return fail(
                EmulatorOAuthError("invalid_request", 90023, "Invalid prompt value '\(EmulatorText.sanitized(prompt, limit: 32))'."))
        }
        let protocolParameters = parameters.pairs.filter { !$0.name.hasPrefix("emulator_") }
        return .valid(
            AuthorizeRequest(
                client: client, redirectURI: redirectURI, state: state, nonce: parameters["nonce"], scope: scopeText,
                codeChallenge: challenge, prompt: prompt, loginHint: parameters.nonEmpty("login_hint"),
                dpopThumbprint: parameters.nonEmpty("dpop_jkt"), selector: selector, parameters: protocolParameters))
    }

    private func errorPage(_ error: EmulatorOAuthError, info: EmulatorRequestInfo, status: Int? = nil) -> EmulatorHTTPResponse {
        var response = EmulatorHTTPResponse.html(
            EmulatorPages.error(error, traceID: info.traceID, correlationID: info.correlationID), status: status ?? max(400, error.status))
        response.oauthError = error.error
        return response
    }

    private func errorRedirect(uri: String, state: String?, _ error: EmulatorOAuthError, info: EmulatorRequestInfo) -> EmulatorHTTPResponse
    {
        var parameters = [
            ("error", error.error),
            ("error_description", error.fullDescription(traceID: info.traceID, correlationID: info.correlationID, now: now())),
        ]
        if let subError = error.subError {
            parameters.append(("error_subcode", subError))
            parameters.append(("suberror", subError))
        }
        if let claims = error.claims { parameters.append(("claims", claims)) }
        if let state { parameters.append(("state", state)) }
        return .redirect(RedirectURIMatcher.appending(parameters, to: uri), oauthError: error.error)
    }

    /// An injected fault at the authorize endpoint: an OAuth error goes back to the client as a
    /// redirect; a throttling or server error is answered with its status.
    private func faultResponse(
        _ error: EmulatorOAuthError, authorization: AuthorizeRequest, info: EmulatorRequestInfo
    ) -> EmulatorHTTPResponse {
        if error.status == 400 {
            return errorRedirect(uri: authorization.redirectURI, state: authorization.state, error, info: info)
        }
        var response = errorPage(error, info: info, status: error.status)
        response.headers += error.headers
        return response
    }
}
