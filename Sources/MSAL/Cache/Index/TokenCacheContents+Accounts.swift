extension TokenCacheContents {
    /// The accounts `clientID` can use, built from the Account entries (one tenant profile each) and
    /// the client's ID tokens. `environment` restricts them to one cloud; `signedInOnly` to accounts
    /// with a refresh token for the client (its own or its family's). In no particular order.
    package func accounts(clientID: String, environment: String?, signedInOnly: Bool) -> [MSALAccount] {
        let filter = AccountFilter(contents: self, clientID: clientID, environment: environment, signedInOnly: signedInOnly)
        return index.accounts.compactMap { key, items in listedAccount(key, items: items, filter: filter) }
    }

    /// Which accounts a list holds: those a client can use, in one cloud or all.
    package struct AccountFilter: Sendable {
        /// The client id, lower-cased.
        package var client: String
        /// The client's family, from AppMetadata (``TokenCacheIndex/family(of:)``).
        package var family: String?
        /// The alias group of the cloud, or `nil` for every cloud.
        package var group: String?
        package var signedInOnly: Bool

        package init(contents: TokenCacheContents, clientID: String, environment: String?, signedInOnly: Bool) {
            client = CacheText.lowercased(clientID)
            family = contents.index.family(of: client)
            group = environment.map { contents.aliases.group(of: $0) }
            self.signedInOnly = signedInOnly
        }
    }

    /// Account `key` as a list filtered by `filter` shows it; `nil` when the list leaves it out.
    package func listedAccount(_ key: TokenCacheIndex.AccountKey, filter: AccountFilter) -> MSALAccount? {
        guard let items = index.accounts[key] else { return nil }
        return listedAccount(key, items: items, filter: filter)
    }

    /// The account with home account id `identifier` in the cloud `filter` names, as a list
    /// filtered by `filter` shows it; `nil` when there is none or the list leaves it out. One index
    /// probe: no account list is built. `filter` must name a cloud.
    package func listedAccount(identifier: String, filter: AccountFilter) -> MSALAccount? {
        guard let group = filter.group else { return nil }
        return listedAccount(TokenCacheIndex.AccountKey(home: CacheText.lowercased(identifier), environment: group), filter: filter)
    }

    private func listedAccount(_ key: TokenCacheIndex.AccountKey, items: [TokenCacheIndex.Item], filter: AccountFilter) -> MSALAccount? {
        guard filter.group == nil || key.environment == filter.group else { return nil }
        let listing = Self.listing(items, client: filter.client, family: filter.family)
        guard listing.listed, listing.signedIn || !filter.signedInOnly else { return nil }
        return account(key, items: items, client: filter.client)
    }

    /// One account of `clientID`.
    package func account(_ key: TokenCacheIndex.AccountKey, clientID: String) -> MSALAccount? {
        account(key, items: index.accounts[key] ?? [], client: CacheText.lowercased(clientID))
    }

    /// One account from its index `items`, with the ID tokens of `client` (lower-cased). The items
    /// are read in place through a pointer, so only the fields used are touched (copying an item
    /// would retain and release its six references).
    private func account(_ key: TokenCacheIndex.AccountKey, items: [TokenCacheIndex.Item], client: String) -> MSALAccount? {
        items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return account(key, items: base, count: buffer.count, client: client)
        }
    }

    private func account(
        _ key: TokenCacheIndex.AccountKey, items: UnsafePointer<TokenCacheIndex.Item>, count: Int, client: String
    ) -> MSALAccount? {
        var firstIndex = 0
        while firstIndex < count, items[firstIndex].section != .account { firstIndex += 1 }
        guard firstIndex < count else { return nil }
        // Values equal to the index's (already lower-case) ones are those strings, not new copies.
        guard let identifier = (items + firstIndex).pointee.entry.string(.homeAccountID, reusing: key.home) else { return nil }
        let accountID = MSALAccountId(identifier: identifier)
        var tenantProfiles: [MSALTenantProfile] = []
        var homeIndex: Int?
        var homeEnvironment: String?
        var firstEnvironment = key.environment
        for index in firstIndex..<count where items[index].section == .account {
            let item = items + index
            let realm = item.pointee.realm
            let entry = item.pointee.entry
            // The realm is lower-case; the identifier's tenant may not be.
            let isHome = accountID.hasTenant(equalIgnoringASCIICaseTo: realm)
            // Read once per entry: the profile's and (for the home profile) the account's.
            let environment = entry.string(.environment, reusing: key.environment) ?? key.environment
            if index == firstIndex { firstEnvironment = environment }
            if isHome, homeIndex == nil {
                homeIndex = index
                homeEnvironment = environment
            }
            tenantProfiles.append(
                MSALTenantProfile(
                    identifier: entry[.localAccountID] ?? "",
                    environment: environment,
                    tenantId: entry.string(.realm, reusing: realm) ?? "",
                    isHomeTenantProfile: isHome,
                    idToken: idToken(in: items, count: count, client: client, realm: realm)))
        }
        if tenantProfiles.count > 1 {
            tenantProfiles.sort { lhs, rhs in
                lhs.isHomeTenantProfile != rhs.isHomeTenantProfile ? lhs.isHomeTenantProfile : lhs.realm < rhs.realm
            }
        }
        let home = items + (homeIndex ?? firstIndex)
        var username = home.pointee.entry[.username].flatMap { $0.isEmpty ? nil : $0 }
        if username == nil {
            for index in firstIndex..<count where items[index].section == .account {
                if let name = (items + index).pointee.entry[.username], !name.isEmpty {
                    username = name
                    break
                }
            }
        }
        return MSALAccount(
            identifier: identifier,
            username: username,
            environment: homeEnvironment ?? firstEnvironment,
            tenantProfiles: tenantProfiles,
            homeAccountId: accountID)
    }

    /// The ID token of the last ID-token item of `client` in `realm` (the string the entry holds).
    private func idToken(in items: UnsafePointer<TokenCacheIndex.Item>, count: Int, client: String, realm: String) -> String? {
        var index = count - 1
        while index >= 0 {
            let item = items + index
            if item.pointee.section == .idToken, item.pointee.client == client, item.pointee.realm == realm {
                return item.pointee.idToken?.value
            }
            index -= 1
        }
        return nil
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
