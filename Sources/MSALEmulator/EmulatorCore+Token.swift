import Foundation
import MSALJOSE
import MSALJSON

extension EmulatorCore {
    /// `POST /{tenant}/oauth2/v2.0/token`.
    func token(
        _ request: EmulatorHTTPRequest, selector: TenantSelector?, segment: Substring, info: inout EmulatorRequestInfo
    ) async -> EmulatorHTTPResponse {
        guard let selector else { return errorResponse(.unknownTenant(String(segment)), info: info) }
        guard request.isForm else {
            return errorResponse(
                EmulatorOAuthError("invalid_request", 900144, "The request body must be application/x-www-form-urlencoded."), info: info)
        }
        guard let form = request.form else { return errorResponse(.malformed, info: info) }
        if let duplicated = form.duplicatedName { return errorResponse(.duplicated(duplicated), info: info) }
        for pair in form.pairs.prefix(64) where info.form[pair.name] == nil {
            let redacted = MSALEmulator.RequestRecord.redactedFields.contains(pair.name)
            info.form[EmulatorText.sanitized(pair.name, limit: 64)] =
                redacted ? "<redacted>" : EmulatorText.sanitized(pair.value, limit: 512)
        }
        guard let clientID = form.nonEmpty("client_id") else { return errorResponse(.missing("client_id"), info: info) }
        info.clientID = EmulatorText.sanitized(clientID, limit: 128)
        guard let client = configuration.client(withID: clientID) else { return errorResponse(.unknownClient(clientID), info: info) }
        guard let grantText = form.nonEmpty("grant_type") else { return errorResponse(.missing("grant_type"), info: info) }
        guard let grant = MSALEmulator.GrantType(rawValue: grantText) else {
            return errorResponse(
                EmulatorOAuthError(
                    "unsupported_grant_type", 70003,
                    "The app requested an unsupported grant type '\(EmulatorText.sanitized(grantText, limit: 64))'."),
                info: info)
        }
        info.grantType = grant
        info.username = peekUsername(grant: grant, form: form)
        if let fault = await faultAnswer(&info, grantType: grant, clientID: clientID, username: info.username) {
            return errorResponse(fault, info: info)
        }
        let now = self.now()
        do throws(EmulatorOAuthError) {
            let proof = try authenticateClient(
                form, client: client, selector: selector, segment: segment, tlsCertificateSHA256: try tlsCertificateSHA256(request),
                now: now)
            let dpop = try dpopProof(request)
            var issue: TokenIssue
            switch grant {
            case .authorizationCode: issue = try redeemCode(form, client: client, selector: selector, dpop: dpop, now: now)
            case .refreshToken: issue = try redeemRefreshToken(form, client: client, selector: selector, dpop: dpop, now: now)
            case .deviceCode: issue = try redeemDeviceCode(form, client: client, now: now)
            case .clientCredentials:
                return try redeemClientCredentials(form, client: client, selector: selector, proof: proof, dpop: dpop, now: now)
            case .jwtBearer: issue = try redeemOnBehalfOf(form, client: client, selector: selector, proof: proof, now: now)
            case .userFederatedCredential:
                issue = try redeemUserFederatedCredential(form, client: client, selector: selector, proof: proof, now: now)
            }
            info.username = issue.user.username
            issue.proofKeyID = try Self.proofKeyID(form)
            if let dpop {
                guard issue.proofKeyID == nil else {
                    throw EmulatorOAuthError("invalid_request", 900144, "A request cannot ask for a pop token and carry a DPoP proof.")
                }
                issue.dpopThumbprint = dpop.thumbprint
            }
            return try issueTokens(issue, now: now)
        } catch {
            return errorResponse(error, info: info)
        }
    }

    /// The SHA-256 of the client certificate the TLS terminator forwarded for this request's
    /// connection (``MSALEmulator/Configuration/clientCertificateHeader``); `nil` without one.
    func tlsCertificateSHA256(_ request: EmulatorHTTPRequest) throws(EmulatorOAuthError) -> [UInt8]? {
        guard let name = configuration.clientCertificateHeader, let value = request.header(name), !value.isEmpty else { return nil }
        guard let der = Data(base64Encoded: value), !der.isEmpty, let digest = try? MessageDigest.sha256(Array(der)) else {
            throw EmulatorOAuthError(status: 400, "invalid_request", 900144, "The forwarded client certificate is not base64 DER.")
        }
        return digest
    }

    /// The key a proof-of-possession request binds its token to: with `token_type=pop`, the `kid` of
    /// `req_cnf` (base64url JSON, as Microsoft Entra reads it); `nil` for a bearer request.
    static func proofKeyID(_ form: EmulatorParameters) throws(EmulatorOAuthError) -> String? {
        guard let type = form.nonEmpty("token_type"), type.lowercased() != "bearer" else { return nil }
        guard type.lowercased() == "pop" else {
            throw EmulatorOAuthError(
                "invalid_request", 900144, "The token_type '\(EmulatorText.sanitized(type, limit: 32))' is not supported.")
        }
        guard let confirmation = form.nonEmpty("req_cnf") else { throw .missing("req_cnf") }
        guard let bytes = try? Base64URL.decode(confirmation),
            let document = try? JSONDocument(parsing: bytes, limits: .document), document.root.kind == .object,
            let keyID = document.root["kid"]?.string, !keyID.isEmpty
        else {
            throw EmulatorOAuthError("invalid_request", 900144, "The req_cnf parameter is not a base64url JSON object with a kid.")
        }
        return keyID
    }

    /// The user a token request is about, looked up without using the grant.
    private func peekUsername(grant: MSALEmulator.GrantType, form: EmulatorParameters) -> String? {
        let userID: String? = state.withLock { state in
            switch grant {
            case .authorizationCode: return form["code"].flatMap { state.codes[$0]?.userID }
            case .refreshToken: return form["refresh_token"].flatMap { state.refreshTokens[$0]?.userID }
            case .deviceCode:
                guard let code = form["device_code"], case .approved(let userID, _) = state.deviceCodes[code]?.status else { return nil }
                return userID
            case .clientCredentials, .jwtBearer: return nil
            case .userFederatedCredential: return nil
            }
        }
        if grant == .userFederatedCredential, let username = form["username"] { return configuration.user(named: username)?.username }
        return userID.flatMap { user(homeObjectID: $0)?.username }
    }

    private func scope(_ form: EmulatorParameters) throws(EmulatorOAuthError) -> EmulatorScope {
        guard let text = form.nonEmpty("scope") else { throw .missing("scope") }
        return try EmulatorScope.parse(text)
    }

    // MARK: Authorization code

    private func redeemCode(
        _ form: EmulatorParameters, client: MSALEmulator.Client, selector: TenantSelector, dpop: DPoPProofVerifier.Proof?, now: Date
    ) throws(EmulatorOAuthError) -> TokenIssue {
        guard let code = form.nonEmpty("code") else { throw .missing("code") }
        guard let redirectURI = form.nonEmpty("redirect_uri") else { throw .missing("redirect_uri") }
        guard let verifier = form.nonEmpty("code_verifier") else { throw .missing("code_verifier") }
        // Optional here: without one, the authorization request's scopes are granted.
        var requested: EmulatorScope?
        if let text = form.nonEmpty("scope") { requested = try EmulatorScope.parse(text) }
        let outcome: Result<AuthorizationCodeGrant, EmulatorOAuthError> = state.withLock { state in
            guard var grant = state.codes[code] else {
                return .failure(.invalidGrant(70000, "The provided authorization code is invalid: the emulator never issued it."))
            }
            if grant.isRedeemed {
                // RFC 6749 §4.1.2: a replayed code revokes what it was exchanged for.
                for (token, refresh) in state.refreshTokens where refresh.lineage == grant.lineage {
                    state.refreshTokens[token]?.status = .revoked
                }
                return .failure(
                    .invalidGrant(
                        54005,
                        "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token. The refresh tokens issued for it were revoked."
                    ))
            }
            guard grant.expiresAt > now else {
                return .failure(
                    .invalidGrant(
                        70008,
                        "The provided authorization code or refresh token has expired due to inactivity. Send a new interactive authorization request for this user and resource."
                    ))
            }
            guard grant.clientID == client.clientID else {
                return .failure(.invalidGrant(70000, "The provided authorization code was issued to another client."))
            }
            guard grant.redirectURI == redirectURI else {
                return .failure(
                    .invalidGrant(
                        500112, "The reply address does not match the reply address provided when requesting the authorization code."))
            }
            if case .tenant(let tenant) = selector, tenant.id != grant.tenantID {
                return .failure(.invalidGrant(70000, "The provided authorization code was issued for another tenant."))
            }
            guard let pkce = try? PKCE(verifier: verifier), pkce.challenge == grant.codeChallenge else {
                return .failure(
                    .invalidGrant(501481, "The Code_Verifier does not match the code_challenge supplied in the authorization request."))
            }
            grant.isRedeemed = true
            state.codes[code] = grant
            return .success(grant)
        }
        let grant = try outcome.get()
        try Self.checkBinding(grant.dpopThumbprint, proof: dpop, what: "authorization code (dpop_jkt)")
        guard let user = user(homeObjectID: grant.userID) else { throw .invalidGrant(50034, "The user account no longer exists.") }
        let granted: EmulatorScope
        if let requested { granted = requested } else { granted = try EmulatorScope.parse(grant.scope) }
        return TokenIssue(
            user: user, tenantID: grant.tenantID, client: client, scope: granted, nonce: grant.nonce,
            includesClientInfo: form["client_info"] == "1", lineage: grant.lineage)
    }

    // MARK: Refresh token

    private func redeemRefreshToken(
        _ form: EmulatorParameters, client: MSALEmulator.Client, selector: TenantSelector, dpop: DPoPProofVerifier.Proof?, now: Date
    ) throws(EmulatorOAuthError) -> TokenIssue {
        guard let token = form.nonEmpty("refresh_token") else { throw .missing("refresh_token") }
        let requested = try scope(form)
        let outcome: Result<(RefreshTokenGrant, String), EmulatorOAuthError> = state.withLock { state in
            guard var grant = state.refreshTokens[token] else {
                return .failure(
                    .invalidGrant(9002313, "Invalid request. The refresh token is malformed or was not issued by the emulator."))
            }
            switch grant.status {
            case .revoked:
                return .failure(
                    .invalidGrant(
                        50173,
                        "The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password."
                    ))
            case .rotated:
                // Refresh token reuse (RFC 9700 §4.14.2): revoke the whole lineage.
                for (other, refresh) in state.refreshTokens where refresh.lineage == grant.lineage {
                    state.refreshTokens[other]?.status = .revoked
                }
                return .failure(
                    .invalidGrant(
                        70000,
                        "The refresh token was already used; the emulator rotates refresh tokens on every use, so it revoked the tokens descended from it."
                    ))
            case .active:
                break
            }
            guard grant.expiresAt > now else {
                return .failure(.invalidGrant(700082, "The refresh token has expired due to inactivity."))
            }
            do throws(EmulatorOAuthError) {
                // Checked before the token rotates: a refused proof leaves the refresh token usable.
                try Self.checkBinding(grant.dpopThumbprint, proof: dpop, what: "refresh token")
            } catch {
                return .failure(error)
            }
            guard grant.clientID == client.clientID || (grant.isFamily && client.isFamilyMember) else {
                return .failure(.invalidGrant(70000, "The refresh token was issued to a different client.", subError: "client_mismatch"))
            }
            let tenantID: String
            switch selector {
            case .common, .organizations:
                tenantID = grant.tenantID
            case .tenant(let tenant):
                guard self.user(homeObjectID: grant.userID)?.objectID(inTenant: tenant.id) != nil else {
                    return .failure(
                        .invalidGrant(50020, "The user account does not exist in tenant '\(tenant.displayName)' and cannot access it."))
                }
                tenantID = tenant.id
            }
            grant.status = .rotated
            state.refreshTokens[token] = grant
            return .success((grant, tenantID))
        }
        let (grant, tenantID) = try outcome.get()
        guard let user = user(homeObjectID: grant.userID) else { throw .invalidGrant(50034, "The user account no longer exists.") }
        return TokenIssue(
            user: user, tenantID: tenantID, client: client, scope: requested, nonce: nil, includesClientInfo: form["client_info"] == "1",
            lineage: grant.lineage)
    }

    // MARK: Device code

    /// Polls closer together than the interval by less than this are still on time (clocks and scheduling jitter).
    static let pollingTolerance: TimeInterval = 0.25

    private func redeemDeviceCode(
        _ form: EmulatorParameters, client: MSALEmulator.Client, now: Date
    ) throws(EmulatorOAuthError) -> TokenIssue {
        guard let code = form.nonEmpty("device_code") else { throw .missing("device_code") }
        let outcome: Result<(DeviceCodeGrant, String, String), EmulatorOAuthError> = state.withLock { state in
            guard var grant = state.deviceCodes[code], grant.clientID == client.clientID else {
                return .failure(
                    EmulatorOAuthError("bad_verification_code", 70000, "The device_code was not issued to this client by the emulator."))
            }
            guard grant.expiresAt > now else {
                return .failure(EmulatorOAuthError("expired_token", 70019, "Verification code expired."))
            }
            switch grant.status {
            case .pending:
                defer { state.deviceCodes[code] = grant }
                if grant.interval > 0, let last = grant.lastPoll,
                    now.timeIntervalSince(last) + Self.pollingTolerance < TimeInterval(grant.interval)
                {
                    grant.lastPoll = now
                    grant.interval += 5
                    return .failure(
                        EmulatorOAuthError(
                            "slow_down", 70016,
                            "OAuth 2.0 device flow error. Polling too fast: wait \(grant.interval) seconds between polls."))
                }
                grant.lastPoll = now
                return .failure(
                    EmulatorOAuthError(
                        "authorization_pending", 70016, "OAuth 2.0 device flow error. Authorization is pending. Continue polling."))
            case .declined:
                return .failure(EmulatorOAuthError("authorization_declined", 65004, "The user declined the sign-in."))
            case .redeemed:
                return .failure(.invalidGrant(54005, "The device code was already redeemed."))
            case .approved(let userID, let tenantID):
                grant.status = .redeemed
                state.deviceCodes[code] = grant
                return .success((grant, userID, tenantID))
            }
        }
        let (grant, userID, tenantID) = try outcome.get()
        guard let user = user(homeObjectID: userID) else { throw .invalidGrant(50034, "The user account no longer exists.") }
        return TokenIssue(
            user: user, tenantID: tenantID, client: client, scope: try EmulatorScope.parse(grant.scope), nonce: nil,
            includesClientInfo: form["client_info"] == "1", lineage: Self.randomToken())
    }
}
