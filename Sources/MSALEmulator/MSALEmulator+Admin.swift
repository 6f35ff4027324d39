import Foundation

extension MSALEmulator {
    // MARK: Faults

    /// Adds a fault; it applies to matching requests from now on.
    @discardableResult
    public func inject(_ fault: Fault) -> Fault.ID {
        core.state.withLock { state in
            let id = state.nextFaultID
            state.nextFaultID += 1
            if fault.times != 0 { state.faults.append((id, fault)) }
            return Fault.ID(value: id)
        }
    }

    /// Removes a fault (no effect when it was used up already).
    public func removeFault(_ id: Fault.ID) {
        core.state.withLock { $0.faults.removeAll { $0.id == id.value } }
    }

    /// Removes every fault.
    public func removeAllFaults() {
        core.state.withLock { $0.faults.removeAll() }
    }

    /// The faults still in force, in the order they are matched.
    public var faults: [Fault] {
        core.state.withLock { $0.faults.map(\.fault) }
    }

    // MARK: Device codes

    /// Approves the device code with `userCode` for `username`, as the user would on `/devicelogin`;
    /// the client's next poll gets tokens.
    ///
    /// - Throws: ``MSALEmulatorError/Code/unknownUserCode`` when no pending, unexpired device code has
    ///   the user code; ``MSALEmulatorError/Code/unknownUser``; ``MSALEmulatorError/Code/userNotInTenant``
    ///   when the user cannot sign in to the tenant the code was requested for.
    public func approveDeviceCode(userCode: String, as username: String) throws {
        try core.decideDeviceCode(userCode: userCode, username: username, approve: true)
    }

    /// Declines the device code with `userCode`: the client's next poll gets `authorization_declined`.
    ///
    /// - Throws: ``MSALEmulatorError/Code/unknownUserCode``.
    public func declineDeviceCode(userCode: String) throws {
        try core.decideDeviceCode(userCode: userCode, username: nil, approve: false)
    }

    /// The user codes of device codes waiting for approval, oldest first is not guaranteed.
    public var pendingUserCodes: [String] {
        let now = core.now()
        return core.state.withLock { state in
            state.deviceCodes.values.filter { grant in
                if case .pending = grant.status { return grant.expiresAt > now }
                return false
            }.map(\.userCode)
        }
    }

    // MARK: Signing keys

    /// Signs tokens with a new RSA key from now on, as a provider rotates its keys.
    ///
    /// - Parameter keepingPrevious: Whether the keys used until now stay published at the key set
    ///   endpoint (the default; Microsoft Entra keeps publishing a key after it stops signing with
    ///   it), so that tokens they signed still verify. `false` publishes the new key alone.
    /// - Returns: The new key's `kid`.
    /// - Throws: ``MSALEmulatorError/Code/keyGenerationFailed``.
    @discardableResult
    public func rotateSigningKey(keepingPrevious: Bool = true) throws -> String {
        try core.rotateSigningKey(keepingPrevious: keepingPrevious)
    }

    /// The `kid`s the key set endpoint publishes, the signing key first.
    public var publishedKeyIDs: [String] {
        core.keySet.keys.compactMap(\.keyID)
    }

    // MARK: Tokens and sessions

    /// Issues a refresh token of `username` to `clientID`, as if an earlier library (ADAL, another
    /// MSAL) had signed the user in and kept it: what an application migrating its users brings
    /// to `acquireToken(byRefreshToken:scopes:)`. Redeeming it answers like any refresh token of
    /// the emulator's (tokens for the requested scopes, an ID token and `client_info`, a new
    /// refresh token), and it can be revoked or expired like them.
    ///
    /// - Throws: ``MSALEmulatorError/Code/unknownUser``, or ``MSALEmulatorError/Code/invalidConfiguration``
    ///   for a client the emulator does not know.
    public func mintRefreshToken(of username: String, clientID: String) throws -> String {
        let user = try knownUser(username)
        guard configuration.client(withID: clientID) != nil else {
            throw MSALEmulatorError(.invalidConfiguration, "No client \(clientID) is configured")
        }
        let token = EmulatorCore.randomToken()
        let now = core.now()
        core.state.withLock { state in
            state.refreshTokens[token] = RefreshTokenGrant(
                clientID: clientID, isFamily: false, userID: user.objectID, tenantID: user.tenantID,
                expiresAt: now.addingTimeInterval(TimeInterval(state.lifetimes.refreshToken)), lineage: EmulatorCore.randomToken())
        }
        return token
    }

    /// Revokes every refresh token of `username`: redeeming one fails with `invalid_grant` (AADSTS50173).
    ///
    /// - Returns: How many active refresh tokens were revoked.
    /// - Throws: ``MSALEmulatorError/Code/unknownUser``.
    @discardableResult
    public func revokeRefreshTokens(of username: String) throws -> Int {
        let user = try knownUser(username)
        return core.state.withLock { state in
            var count = 0
            for (token, grant) in state.refreshTokens where grant.userID == user.objectID && grant.status == .active {
                state.refreshTokens[token]?.status = .revoked
                count += 1
            }
            return count
        }
    }

    /// Makes every refresh token of `username` expire now: redeeming one fails with `invalid_grant` (AADSTS700082).
    ///
    /// - Throws: ``MSALEmulatorError/Code/unknownUser``.
    public func expireRefreshTokens(of username: String) throws {
        let user = try knownUser(username)
        let now = core.now()
        core.state.withLock { state in
            for (token, grant) in state.refreshTokens where grant.userID == user.objectID {
                state.refreshTokens[token]?.expiresAt = now
            }
        }
    }

    /// Makes the protected resource refuse every access token issued to `username` so far (as
    /// continuous access evaluation would after a password change); tokens issued afterwards work.
    ///
    /// - Returns: How many unexpired access tokens were revoked.
    /// - Throws: ``MSALEmulatorError/Code/unknownUser``.
    @discardableResult
    public func revokeAccessTokens(of username: String) throws -> Int {
        let user = try knownUser(username)
        let folded = user.username.lowercased()
        let now = core.now()
        return core.state.withLock { state in
            let revoked = state.accessTokens.filter { $0.value.username == folded && $0.value.expiresAt > now }.map(\.key)
            state.revokedAccessTokens.formUnion(revoked)
            return revoked.count
        }
    }

    /// Ends every browser session: the next `prompt=none` request fails with `login_required`.
    public func signOutAllSessions() {
        core.state.withLock { $0.sessions.removeAll() }
    }

    /// The lifetimes used from now on.
    public var lifetimes: Lifetimes {
        core.state.withLock { $0.lifetimes }
    }

    /// Changes the lifetimes of what is issued from now on (already issued tokens keep theirs).
    /// Values out of range are clamped (at least 1 second; the interval at least 0).
    public func setLifetimes(_ lifetimes: Lifetimes) {
        core.state.withLock { $0.lifetimes = lifetimes.clamped }
    }

    /// Moves the emulator's clock forward (or back, with a negative value) by `seconds`: codes,
    /// device codes and refresh tokens expire by it, issued tokens carry its times, and the
    /// protected resource judges expiry by it. An app whose ``MSALClock`` reads ``now`` sees the same time.
    public func advanceClock(by seconds: TimeInterval) {
        guard seconds.isFinite else { return }
        core.state.withLock { $0.clockOffset += seconds }
    }

    // MARK: Request log

    /// Every request answered since start (or the last ``clearRequestLog()``), oldest first; at most
    /// the latest 100,000.
    public var requests: [RequestRecord] {
        core.state.withLock { $0.log }
    }

    /// How many logged requests went to `endpoint` (and, when given, were token requests of `grantType`).
    public func requestCount(_ endpoint: Endpoint, grantType: GrantType? = nil) -> Int {
        core.state.withLock { state in
            state.log.reduce(0) { count, record in
                count + (record.endpoint == endpoint && (grantType == nil || record.grantType == grantType) ? 1 : 0)
            }
        }
    }

    /// Empties the request log.
    public func clearRequestLog() {
        core.state.withLock { $0.log.removeAll() }
    }

    private func knownUser(_ username: String) throws(MSALEmulatorError) -> User {
        guard let user = configuration.user(named: username) else {
            throw MSALEmulatorError(.unknownUser, "no user is named \(EmulatorText.sanitized(username, limit: 128))")
        }
        return user
    }
}
