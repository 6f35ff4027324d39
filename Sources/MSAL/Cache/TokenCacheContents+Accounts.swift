extension TokenCacheContents {
    /// The accounts `clientID` can use, built from the Account entries (one tenant profile each) and
    /// the client's ID tokens. `environment` restricts them to one cloud; `signedInOnly` to accounts
    /// with a refresh token for the client (its own or its family's).
    package func accounts(clientID: String, environment: String?, signedInOnly: Bool) -> [MSALAccount] {
        accountKeys(clientID: clientID, environment: environment).compactMap { key in
            if signedInOnly, refreshToken(homeAccountID: key.home, environment: key.environment, clientID: clientID) == nil {
                return nil
            }
            return account(key, clientID: clientID)
        }
    }

    /// One account of `clientID`.
    package func account(_ key: TokenCacheIndex.AccountKey, clientID: String) -> MSALAccount? {
        let entries = accountEntries(key)
        guard let first = entries.first?.entry, let identifier = first["home_account_id"] else { return nil }
        let homeTenant = MSALAccountId(identifier: identifier).tenantId.map(CacheText.lowercased)
        var profiles: [MSALTenantProfile] = entries.map { item in
            let realm = item.entry["realm"] ?? ""
            let environment = item.entry["environment"] ?? key.environment
            return MSALTenantProfile(
                identifier: item.entry["local_account_id"] ?? "",
                environment: environment,
                tenantId: realm,
                isHomeTenantProfile: homeTenant != nil && CacheText.lowercased(realm) == homeTenant,
                idToken: idToken(homeAccountID: identifier, environment: environment, clientID: clientID, realm: realm)?.entry["secret"])
        }
        profiles.sort { lhs, rhs in
            lhs.isHomeTenantProfile != rhs.isHomeTenantProfile ? lhs.isHomeTenantProfile : lhs.tenantId < rhs.tenantId
        }
        let home = entries.first { CacheText.lowercased($0.entry["realm"] ?? "") == homeTenant }?.entry ?? first
        let username = [home["username"]] + entries.map { $0.entry["username"] }
        return MSALAccount(
            identifier: identifier,
            username: username.compactMap { $0 }.first { !$0.isEmpty },
            environment: home["environment"] ?? key.environment,
            tenantProfiles: profiles)
    }
}

extension TokenCacheContents {
    /// Every account in the cache, whatever client its tokens belong to (for tools).
    package func allAccounts(environment: String?) -> [MSALAccount] {
        let group = environment.map { aliases.group(of: $0) }
        return index.accounts.keys
            .filter { group == nil || $0.environment == group }
            .sorted { ($0.home, $0.environment) < ($1.home, $1.environment) }
            .compactMap { account($0, clientID: "") }
    }
}
