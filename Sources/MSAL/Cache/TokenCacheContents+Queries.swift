/// An access token found in the cache.
package struct CachedAccessToken: Sendable, Equatable {
    package var key: String
    package var secret: String
    /// The granted scopes as stored (space-separated, case kept).
    package var target: String
    package var tokenType: String
    package var homeAccountID: String
    package var environment: String
    package var realm: String
    package var cachedAt: Int64?
    package var expiresOn: Int64
    package var extendedExpiresOn: Int64?
    package var refreshOn: Int64?
}

extension TokenCacheContents {
    /// Scopes every Entra token response may add or drop; never required to be in a cached target.
    package static let reservedScopes: Set<String> = ["openid", "profile", "offline_access"]

    /// The requested scopes as the lookup wants them: lower-cased, reserved scopes removed.
    package static func lookupScopes<S: Sequence>(_ scopes: S) -> Set<String> where S.Element == String {
        Set(scopes.map(CacheText.lowercased).filter { !$0.isEmpty && !reservedScopes.contains($0) })
    }

    /// The usable access token for an account, client and scopes: its target holds every requested
    /// scope and it expires more than `expiryBuffer` seconds after `now`. `realms` are tried in
    /// order (the account's tenant, then the authority's tenant segment as MSAL for Python writes it).
    /// Among several matches the one that lives longest wins. Reads never change the cache.
    /// With `usingExtendedExpiry`, `extended_expires_on` is compared instead of `expires_on`.
    package func accessToken(
        homeAccountID: String, environment: String, clientID: String, realms: [String],
        scopes: Set<String>, now: Int64, expiryBuffer: Int64, usingExtendedExpiry: Bool = false
    ) -> CachedAccessToken? {
        var partition = TokenCacheIndex.Partition(
            home: CacheText.lowercased(homeAccountID), environment: aliases.group(of: environment),
            client: CacheText.lowercased(clientID), realm: "")
        for realm in realms {
            partition.realm = CacheText.lowercased(realm)
            guard let records = index.accessTokens[partition] else { continue }
            var best: CachedAccessToken?
            for record in records where scopes.isSubset(of: record.scopes) {
                guard let entry = document[.accessToken][record.key], let token = Self.accessToken(record.key, entry),
                    (usingExtendedExpiry ? (token.extendedExpiresOn ?? token.expiresOn) : token.expiresOn) - now > expiryBuffer
                else { continue }
                if best == nil || token.expiresOn > best!.expiresOn { best = token }
            }
            if let best { return best }
        }
        return nil
    }

    /// Every access token of an account and client in one realm, whatever its scopes or expiry.
    package func accessTokenKeys(homeAccountID: String, environment: String, clientID: String, realm: String) -> [TokenCacheIndex.AccessTokenRecord] {
        let partition = TokenCacheIndex.Partition(
            home: CacheText.lowercased(homeAccountID), environment: aliases.group(of: environment),
            client: CacheText.lowercased(clientID), realm: CacheText.lowercased(realm))
        return index.accessTokens[partition] ?? []
    }

    private static func accessToken(_ key: String, _ entry: CacheEntry) -> CachedAccessToken? {
        guard let secret = entry["secret"], let expiresOn = entry.seconds("expires_on") else { return nil }
        return CachedAccessToken(
            key: key, secret: secret, target: entry["target"] ?? "", tokenType: entry["token_type"] ?? "Bearer",
            homeAccountID: entry["home_account_id"] ?? "", environment: entry["environment"] ?? "",
            realm: entry["realm"] ?? "", cachedAt: entry.seconds("cached_at"), expiresOn: expiresOn,
            extendedExpiresOn: entry.seconds("extended_expires_on") ?? entry.seconds("ext_expires_on"),
            refreshOn: entry.seconds("refresh_on"))
    }

    /// The refresh token for an account and client: the client's own, else a family refresh token
    /// of the client's family (from AppMetadata), else — when `allowAnyFamily` — of family "1".
    package func refreshToken(
        homeAccountID: String, environment: String, clientID: String, allowAnyFamily: Bool = false
    ) -> (key: String, entry: CacheEntry)? {
        var partition = TokenCacheIndex.Partition(
            home: CacheText.lowercased(homeAccountID), environment: aliases.group(of: environment),
            client: CacheText.lowercased(clientID), realm: "")
        if let key = index.refreshTokens[partition]?.last, let entry = document[.refreshToken][key] {
            return (key, entry)
        }
        let family = index.familyOfClient[partition.client] ?? (allowAnyFamily ? "1" : nil)
        guard let family else { return nil }
        partition.client = family
        if let key = index.familyRefreshTokens[partition]?.last, let entry = document[.refreshToken][key] {
            return (key, entry)
        }
        return nil
    }

    /// The ID token of an account and client in one realm.
    package func idToken(homeAccountID: String, environment: String, clientID: String, realm: String) -> (key: String, entry: CacheEntry)? {
        let partition = TokenCacheIndex.Partition(
            home: CacheText.lowercased(homeAccountID), environment: aliases.group(of: environment),
            client: CacheText.lowercased(clientID), realm: CacheText.lowercased(realm))
        guard let key = index.idTokens[partition]?.last, let entry = document[.idToken][key] else { return nil }
        return (key, entry)
    }

    /// The accounts a client can use: those it holds a refresh token or an ID token for, and those
    /// holding a family refresh token of its family. `environment` restricts them to one cloud.
    /// In no particular order.
    package func accountKeys(clientID: String, environment: String?) -> [TokenCacheIndex.AccountKey] {
        let client = CacheText.lowercased(clientID)
        var keys = Set<TokenCacheIndex.AccountKey>()
        if let own = index.clientAccounts[client] { keys.formUnion(own.keys) }
        if let family = index.familyOfClient[client], let members = index.familyAccounts[family] {
            keys.formUnion(members.keys)
        }
        let group = environment.map { aliases.group(of: $0) }
        return keys.filter { (group == nil || $0.environment == group) && index.accounts[$0] != nil }
    }

    /// The Account entries (tenant profiles) of one account.
    package func accountEntries(_ account: TokenCacheIndex.AccountKey) -> [(key: String, entry: CacheEntry)] {
        (index.accounts[account] ?? []).compactMap { key in document[.account][key].map { (key, $0) } }
    }
}
