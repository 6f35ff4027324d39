extension TokenCacheContents {
    /// Scopes Entra adds to many tokens' `target`; sharing only these does not make two tokens overlap
    /// (otherwise a `User.Read` token would evict a `Mail.Read` one because both carry `email`).
    package static let overlapNeutralScopes: Set<String> = ["openid", "profile", "offline_access", "email"]

    /// Stores the entries of one token response, as the other MSALs do: the access token replaces
    /// this account's and client's tokens of its scheme and extended cache key in the same realm
    /// whose scopes overlap it; the refresh
    /// token replaces every refresh token of this account for this client (or, for a family refresh
    /// token, of its family) in the whole alias group and in every key shape (rotation, in one
    /// step: no redeemed token is left for a peer to find first); the ID token, account and app
    /// metadata replace theirs, keeping members other writers added. Other accounts' entries are
    /// never touched.
    package mutating func save(_ entries: TokenCacheEntries, clientID: String) {
        let accessToken = entries.accessToken.entry
        // On-behalf-of tokens replace only tokens of the same assertion, never the user's own.
        let tokenHome = entries.userAssertionHash.map { TokenCacheIndex.assertionHome(hash: $0) } ?? entries.homeAccountID
        if let environment = accessToken["environment"] {
            let granted = CacheText.scopeSet(entries.target).subtracting(Self.overlapNeutralScopes)
            // A token replaces only tokens of its own scheme: a bearer token and a bound one for the same scopes live side by side.
            let kind = accessToken.withUTF8(.tokenType) { $0.isEmpty ? .bearer : TokenScheme.Kind(tokenType: $0) } ?? .bearer
            // …and only tokens of its own extended cache key (an FMI path's token never replaces
            // another path's, nor the plain token).
            let extendedKey = accessToken[.extCacheKey]
            for record in accessTokenKeys(
                homeAccountID: tokenHome, environment: environment, clientID: clientID, realm: entries.realm)
            where record.key != entries.accessToken.key && record.scheme == kind
                && record.isExtended == (extendedKey != nil) && (extendedKey == nil || record.entry[.extCacheKey] == extendedKey)
                && !record.scopes.subtracting(Self.overlapNeutralScopes).isDisjoint(with: granted)
            {
                remove(key: record.key, from: .accessToken)
            }
        }
        upsert(accessToken, key: entries.accessToken.key, in: .accessToken)
        if let refreshToken = entries.refreshToken {
            removeReplacedRefreshTokens(by: refreshToken, homeAccountID: tokenHome, clientID: clientID)
            upsert(refreshToken.entry, key: refreshToken.key, in: .refreshToken)
        }
        if let idToken = entries.idToken {
            upsert(idToken.entry, key: idToken.key, in: .idToken)
        }
        if let account = entries.account {
            upsert(account.entry, key: account.key, in: .account)
        }
        var appMetadata = entries.appMetadata.entry
        if appMetadata["family_id"] == nil, let existing = entry(entries.appMetadata.key, in: .appMetadata) {
            appMetadata["family_id"] = existing["family_id"]
        }
        upsert(appMetadata, key: entries.appMetadata.key, in: .appMetadata)
    }

    /// Removes the account's refresh tokens that `refreshToken` replaces: this client's own (any
    /// host of the alias group, any key shape), and for a family refresh token those of its family.
    private mutating func removeReplacedRefreshTokens(by refreshToken: KeyedCacheEntry, homeAccountID: String, clientID: String) {
        guard let environment = refreshToken.entry["environment"],
            let items = index.accounts[TokenCacheIndex.accountKey(home: homeAccountID, environment: environment, aliases: aliases)]
        else { return }
        let client = CacheText.lowercased(clientID)
        let family = refreshToken.entry["family_id"].flatMap { $0.isEmpty ? nil : CacheText.lowercased($0) }
        let replaced = items.filter { item in
            item.section == .refreshToken && item.key != refreshToken.key && (item.isFamily ? item.client == family : item.client == client)
        }
        for item in replaced { remove(key: item.key, from: .refreshToken) }
    }

    /// Removes an account's credentials for one client: its access tokens, ID tokens and refresh
    /// token in every realm, and the family refresh token of the client's family (otherwise the
    /// account would stay signed in through it). The Account entries go too when no other client
    /// holds a credential for the account. Returns the number of entries removed.
    ///
    /// Costs O(entries of that account), whatever the number of accounts.
    @discardableResult
    package mutating func removeAccount(homeAccountID: String, environment: String, clientID: String) -> Int {
        let account = TokenCacheIndex.accountKey(home: homeAccountID, environment: environment, aliases: aliases)
        guard let items = index.accounts[account] else { return 0 }
        let client = CacheText.lowercased(clientID)
        // Only a family the AppMetadata names: an assumed one would take other apps' family tokens.
        let family = index.knownFamily(of: client)
        var removed = 0
        for item in items {
            let matches: Bool
            switch item.section {
            case .accessToken, .idToken: matches = item.client == client
            case .refreshToken: matches = item.isFamily ? item.client == family : item.client == client
            case .account, .appMetadata: matches = false
            }
            if matches, remove(key: item.key, from: item.section) != nil { removed += 1 }
        }
        let remaining = index.accounts[account] ?? []
        let stillUsed = remaining.contains { $0.section == .refreshToken || $0.section == .idToken }
        if !stillUsed {
            for item in remaining where item.section == .account && remove(key: item.key, from: .account) != nil { removed += 1 }
        }
        return removed
    }

    /// Removes the app tokens (client credentials: access tokens without a home account) of
    /// `clientID` in `environment`'s alias group, every realm and extended key (MSAL for Python's
    /// `remove_tokens_for_client` leaves the extended ones); users' tokens, on-behalf-of tokens and the AppMetadata
    /// stay. Returns the number of entries removed.
    @discardableResult
    package mutating func removeAppTokens(clientID: String, environment: String) -> Int {
        let group = aliases.group(of: environment)
        let client = CacheText.lowercased(clientID)
        var keys: [String] = []
        for (account, items) in index.accounts where account.environment == group && account.home.hasPrefix("\u{1}") {
            for item in items where item.section == .accessToken && item.client == client { keys.append(item.key) }
        }
        var removed = 0
        for key in keys where remove(key: key, from: .accessToken) != nil { removed += 1 }
        return removed
    }

    /// Removes every entry of every account, client and cloud, and every application's metadata
    /// (sign-out with `wipeCacheForAllAccounts`). Returns the number of entries removed.
    @discardableResult
    package mutating func removeEverything() -> Int {
        var removed = 0
        for section in CacheSection.allCases {
            for key in document[section].map({ $0.0 }) where remove(key: key, from: section) != nil {
                removed += 1
            }
        }
        return removed
    }

    /// Removes every entry of an account in one cloud, for every client (`msal cache remove`).
    @discardableResult
    package mutating func removeAllEntries(homeAccountID: String, environment: String?) -> Int {
        let home = CacheText.lowercased(homeAccountID)
        let group = environment.map { aliases.group(of: $0) }
        var removed = 0
        for section in CacheSection.allCases where section != .appMetadata {
            for (key, entry) in document[section] {
                guard let entryHome = entry["home_account_id"], CacheText.lowercased(entryHome) == home else { continue }
                if let group, let entryEnvironment = entry["environment"], aliases.group(of: entryEnvironment) != group { continue }
                if remove(key: key, from: section) != nil { removed += 1 }
            }
        }
        return removed
    }
}

extension TokenCacheContents {
    /// Records that `clientID` is not a member of any family in `environment`'s cloud (MSAL's
    /// behaviour on `client_mismatch`): its AppMetadata gets an empty `family_id`, so family refresh
    /// tokens are no longer used for it, nor the accounts they hold listed for it.
    package mutating func leaveFamily(clientID: String, environment: String) {
        let group = aliases.group(of: environment)
        var found = false
        for (key, entry) in document[.appMetadata]
        where entry["client_id"].map(CacheText.lowercased) == CacheText.lowercased(clientID)
            && entry["environment"].map({ aliases.group(of: $0) }) == group
        {
            found = true
            guard entry["family_id"] != "" else { continue }
            var updated = entry
            updated["family_id"] = ""
            upsert(updated, key: key, in: .appMetadata)
        }
        if !found {
            let key = CacheText.lowercased(CacheKey.appMetadata(environment: environment, clientID: clientID))
            upsert(CacheEntry(["client_id": clientID, "environment": environment, "family_id": ""]), key: key, in: .appMetadata)
        }
    }

    /// Removes the refresh token at `key` if it still holds `secret` (a refused token, which another
    /// request may have replaced meanwhile).
    package mutating func removeRefreshToken(_ key: String, ifSecretIs secret: String) {
        if entry(key, in: .refreshToken)?[.secret] == secret { _ = remove(key: key, from: .refreshToken) }
    }
}
