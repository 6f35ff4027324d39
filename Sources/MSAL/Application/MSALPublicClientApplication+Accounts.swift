import Foundation

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
    ///
    /// With external account providers (``MSALCacheConfig/externalAccountProviders``), their
    /// accounts for `parameters` are merged in: one with the identifier of a cached account adds
    /// its tenant profile and claims to it, any other is listed after the cache's. A provider's
    /// error is logged and the cache's accounts are listed alone, as in MSAL for iOS.
    ///
    /// With the Linux identity broker (``MSALPublicClientApplicationConfig/linuxBroker``), the
    /// broker's accounts for this application are listed too (a cached account the broker also
    /// knows once), whatever their cloud; the call then waits for the broker's answer, at most
    /// ``MSALLinuxBrokerOptions/silentTimeout``. A broker that does not answer is logged, and the
    /// other accounts are listed.
    public func accounts(for parameters: MSALAccountEnumerationParameters) throws -> [MSALAccount] {
        let all = try cache.accounts(
            clientID: client.clientID, environment: environmentFilterHost,
            signedInOnly: parameters.returnOnlySignedInAccounts, memo: accountMemoStore)
        let external = externalAccounts
        let listed =
            external.isEmpty
            ? Self.filter(all, parameters)
            : ExternalAccounts.merge(Self.filter(all, parameters), external.accounts(with: parameters)) {
                !Self.filter([$0], parameters).isEmpty
            }
        // The broker's last: an account an external provider enriched keeps the broker's mark.
        return broker == nil ? listed : Self.filter(BrokerFlow.merge(listed, brokerAccountsBlocking()), parameters)
    }

    /// ``accounts(for:)`` for the SDK's own async APIs, which must not block a cooperative thread on
    /// the cache file's lock or an app's cache hooks.
    func accountsWithoutBlocking(for parameters: MSALAccountEnumerationParameters) async throws -> [MSALAccount] {
        let all = try await cache.accounts(
            clientID: client.clientID, environment: environmentFilterHost,
            signedInOnly: parameters.returnOnlySignedInAccounts, memo: accountMemoStore)
        let external = externalAccounts
        var listed = Self.filter(all, parameters)
        if !external.isEmpty {
            let found = try await BlockingWork.shared.run { external.accounts(with: parameters) }
            listed = ExternalAccounts.merge(listed, found) { !Self.filter([$0], parameters).isEmpty }
        }
        return broker == nil ? listed : Self.filter(BrokerFlow.merge(listed, await brokerAccounts()), parameters)
    }

    /// The signed-in account with home account id `identifier` (compared without regard to case),
    /// or `nil`, for a caller that looks up one account and is done, such as the `msal` tool's one
    /// command per process: one index probe, where ``accountsWithoutBlocking(for:)`` builds (and
    /// remembers) the whole account list, which at 10,000 accounts costs milliseconds.
    ///
    /// The account is a new object each call, not the remembered list's, so remembered silent
    /// hits (keyed by account object) do not carry over between calls; an app that asks again and
    /// again keeps using ``account(forIdentifier:)``. With external account providers, the broker
    /// or every cloud listed, this is ``accountsWithoutBlocking(for:)``.
    package func accountWithoutList(identifier: String) async throws -> MSALAccount? {
        guard let environment = environmentFilterHost, externalAccounts.isEmpty, broker == nil else {
            return try await accountsWithoutBlocking(for: MSALAccountEnumerationParameters(identifier: identifier)).first
        }
        return try await cache.account(identifier: identifier, clientID: client.clientID, environment: environment, signedInOnly: true)
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
            if let profile, !(account.tenantProfiles ?? []).contains(where: { CacheText.lowercased($0.objectID) == profile }) {
                return false
            }
            return true
        }
    }

    /// Signs `account` out of this application: removes its tokens for this application (access,
    /// refresh and ID tokens in every tenant, and the family refresh token of the application's
    /// family), and the account itself when no other application holds a token for it.
    ///
    /// Removing an account that is not in the cache does nothing to the cache. Then each external
    /// account provider (``MSALCacheConfig/externalAccountProviders``) is told, with `wipeAccount`
    /// `false`; a provider's error is logged and does not fail the removal, as in MSAL for iOS.
    ///
    /// An account the Linux identity broker knows (``MSALPublicClientApplicationConfig/linuxBroker``)
    /// is then signed out of the broker for this application (waiting for it on the calling
    /// thread); no broker on the bus is logged, another broker error thrown.
    public func remove(_ account: MSALAccount) throws {
        if let identifier = account.identifier {
            client.logger.info("Removing the tokens of \(oii: identifier) for this application", correlationID: nil)
            let clientID = client.clientID
            let environment = account.environment
            _ = try cache.write(clientID: clientID, partition: .account(identifier)) { contents in
                contents.removeAccount(homeAccountID: identifier, environment: environment, clientID: clientID)
            }
            client.silentHits.forgetAll()
        }
        externalAccounts.remove(account, wipeAccount: false, correlationID: nil)
        try removeFromBrokerBlocking(account)
    }

    /// ``remove(_:)`` for the SDK's own async APIs (sign-out), without blocking a cooperative thread.
    func removeWithoutBlocking(_ account: MSALAccount) async throws {
        try await client.removeTokens(of: account)
        await removeFromExternalAccounts(account, wipeAccount: false, correlationID: nil)
        try await removeFromBroker(account, correlationID: nil)
    }

    /// Tells each external account provider that `account` was removed or signed out, off Swift's
    /// cooperative threads; errors (and a cancellation before the providers ran) are only logged.
    ///
    /// Sign-out calls it with its parameters' ``MSALSignoutParameters/wipeAccount`` after removing
    /// the account's tokens.
    func removeFromExternalAccounts(_ account: MSALAccount, wipeAccount: Bool, correlationID: UUID?) async {
        let external = externalAccounts
        guard !external.isEmpty else { return }
        do {
            try await BlockingWork.shared.run { external.remove(account, wipeAccount: wipeAccount, correlationID: correlationID) }
        } catch {
            client.logger.warning(
                "The external account providers were not told of the removal of \(oii: account.identifier): \(error: error)",
                correlationID: correlationID)
        }
    }
}
