extension MSALPublicClientApplication {
    /// The accounts signed in to this application (those it holds a refresh token for), in the
    /// authority's cloud unless ``MSALPublicClientApplicationConfig/multipleCloudsSupported``.
    ///
    /// - Throws: ``MSALFailure`` when the cache cannot be read (for example a corrupt cache file,
    ///   which is moved aside: ``MSALInternalError/cacheCorrupt``).
    public func allAccounts() throws -> [MSALAccount] {
        try accounts(for: MSALAccountEnumerationParameters())
    }

    /// The account with home account id `identifier` (`uid.utid`).
    ///
    /// Throwing and non-optional, as MSAL for iOS's `account(forIdentifier:)` imports into Swift.
    ///
    /// - Throws: ``MSALFailure`` ``MSALError/internal`` with
    ///   ``MSALInternalError/internalErrorAccountRequired`` when no signed-in account has that
    ///   identifier (use `try?` for an optional), or when the cache cannot be read.
    public func account(forIdentifier identifier: String) throws -> MSALAccount {
        guard let account = try accounts(for: MSALAccountEnumerationParameters(identifier: identifier)).first else {
            throw Self.noAccount("identifier")
        }
        return account
    }

    /// The account with `username` (compared without regard to case).
    ///
    /// Throwing and non-optional, as MSAL for iOS's `account(forUsername:)` imports into Swift.
    ///
    /// - Throws: ``MSALFailure`` ``MSALError/internal`` with
    ///   ``MSALInternalError/internalErrorAccountRequired`` when no signed-in account has that
    ///   username (use `try?` for an optional), or when the cache cannot be read.
    public func account(forUsername username: String) throws -> MSALAccount {
        guard let account = try accounts(for: MSALAccountEnumerationParameters(identifier: nil, username: username)).first else {
            throw Self.noAccount("username")
        }
        return account
    }

    /// The error of an account looked up and not found (the value is not quoted: it may be PII).
    private static func noAccount(_ what: String) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .internalErrorAccountRequired,
            message: "No account signed in to this application has that \(what)")
    }

    /// The accounts matching `parameters`.
    public func accounts(for parameters: MSALAccountEnumerationParameters) throws -> [MSALAccount] {
        let all = try cache.accounts(
            clientID: configuration.clientId, environment: environmentFilterHost,
            signedInOnly: parameters.returnOnlySignedInAccounts, memo: accountMemoStore)
        return Self.filter(all, parameters)
    }

    /// ``accounts(for:)`` for the SDK's own async APIs, which must not block a cooperative thread on
    /// the cache file's lock or an app's cache hooks.
    func accountsWithoutBlocking(for parameters: MSALAccountEnumerationParameters) async throws -> [MSALAccount] {
        let all = try await cache.accounts(
            clientID: configuration.clientId, environment: environmentFilterHost,
            signedInOnly: parameters.returnOnlySignedInAccounts, memo: accountMemoStore)
        return Self.filter(all, parameters)
    }

    /// The accounts of `all` that `parameters` select.
    private static func filter(_ all: [MSALAccount], _ parameters: MSALAccountEnumerationParameters) -> [MSALAccount] {
        guard parameters.identifier != nil || parameters.username != nil || parameters.tenantProfileIdentifier != nil else {
            return all
        }
        let identifier = parameters.identifier.map(CacheText.lowercased)
        let username = parameters.username?.lowercased()
        let profile = parameters.tenantProfileIdentifier.map(CacheText.lowercased)
        return all.filter { account in
            if let identifier, account.identifier.map(CacheText.lowercased) != identifier { return false }
            if let username, account.username?.lowercased() != username { return false }
            if let profile, !(account.tenantProfiles ?? []).contains(where: { CacheText.lowercased($0.identifier) == profile }) {
                return false
            }
            return true
        }
    }

    /// Signs `account` out of this application: removes its tokens for this application (access,
    /// refresh and ID tokens in every tenant, and the family refresh token of the application's
    /// family), and the account itself when no other application holds a token for it.
    ///
    /// Removing an account that is not in the cache does nothing.
    public func remove(_ account: MSALAccount) throws {
        guard let identifier = account.identifier else { return }
        client.logger.info("Removing the tokens of \(oii: identifier) for this application", correlationID: nil)
        let clientID = configuration.clientId
        let environment = account.environment
        _ = try cache.write(clientID: clientID, partition: .account(identifier)) { contents in
            contents.removeAccount(homeAccountID: identifier, environment: environment, clientID: clientID)
        }
        client.silentHits.forgetAll()
    }

    /// ``remove(_:)`` for the SDK's own async APIs (sign-out), without blocking a cooperative thread.
    func removeWithoutBlocking(_ account: MSALAccount) async throws {
        guard let identifier = account.identifier else { return }
        client.logger.info("Removing the tokens of \(oii: identifier) for this application", correlationID: nil)
        let clientID = configuration.clientId
        let environment = account.environment
        _ = try await cache.write(clientID: clientID, partition: .account(identifier)) { contents in
            contents.removeAccount(homeAccountID: identifier, environment: environment, clientID: clientID)
        }
        client.silentHits.forgetAll()
    }
}
