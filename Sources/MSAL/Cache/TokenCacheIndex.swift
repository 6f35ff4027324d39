/// Lookup tables over a ``TokenCacheDocument``, so the silent path probes a few hash slots
/// instead of scanning entries: the cost of a lookup does not grow with the number of accounts.
///
/// Every component is lower-cased and the environment is replaced by its alias group, so entries
/// written under `login.windows.net` answer lookups for `login.microsoftonline.com`.
package struct TokenCacheIndex: Sendable {
    /// Home account, cloud, client (or family id) and realm of a credential.
    package struct Partition: Hashable, Sendable {
        package var home: String
        package var environment: String
        package var client: String
        package var realm: String
    }

    /// Home account and cloud: one ``MSALAccount``.
    package struct AccountKey: Hashable, Sendable {
        package var home: String
        package var environment: String
    }

    /// An access token's key and its granted scopes, lower-cased.
    package struct AccessTokenRecord: Sendable {
        package var key: String
        package var scopes: Set<String>
    }

    package var accessTokens: [Partition: [AccessTokenRecord]] = [:]
    /// Refresh tokens by client id (realm empty).
    package var refreshTokens: [Partition: [String]] = [:]
    /// Family refresh tokens by family id (realm empty).
    package var familyRefreshTokens: [Partition: [String]] = [:]
    package var idTokens: [Partition: [String]] = [:]
    /// Account entries (one per tenant profile) by account.
    package var accounts: [AccountKey: [String]] = [:]
    /// For each client id: the accounts it holds a refresh token or an ID token for, with a count.
    package var clientAccounts: [String: [AccountKey: Int]] = [:]
    /// For each family id: the accounts holding a family refresh token, with a count.
    package var familyAccounts: [String: [AccountKey: Int]] = [:]
    /// Family id of each client id, from AppMetadata.
    package var familyOfClient: [String: String] = [:]

    package init() {}

    /// Builds the index of every usable entry of `document`.
    package init(document: TokenCacheDocument, aliases: CacheEnvironmentAliases) {
        for section in CacheSection.allCases {
            for (key, entry) in document[section] {
                insert(key: key, entry: entry, section: section, aliases: aliases)
            }
        }
    }

    /// Adds `entry` (stored under `key`) to the tables; entries missing what their section needs are ignored.
    package mutating func insert(key: String, entry: CacheEntry, section: CacheSection, aliases: CacheEnvironmentAliases) {
        guard entry.opaque == nil else { return }
        switch section {
        case .accessToken:
            guard let partition = Self.partition(entry, aliases: aliases, realm: true), let target = entry["target"],
                entry["secret"] != nil
            else { return }
            accessTokens[partition, default: []].append(AccessTokenRecord(key: key, scopes: CacheText.scopeSet(target)))
        case .refreshToken:
            guard var partition = Self.partition(entry, aliases: aliases, realm: false), entry["secret"] != nil else { return }
            let account = AccountKey(home: partition.home, environment: partition.environment)
            if let family = entry["family_id"], !family.isEmpty {
                partition.client = CacheText.lowercased(family)
                familyRefreshTokens[partition, default: []].append(key)
                familyAccounts[partition.client, default: [:]][account, default: 0] += 1
            } else {
                refreshTokens[partition, default: []].append(key)
                clientAccounts[partition.client, default: [:]][account, default: 0] += 1
            }
        case .idToken:
            guard let partition = Self.partition(entry, aliases: aliases, realm: true), entry["secret"] != nil else { return }
            idTokens[partition, default: []].append(key)
            clientAccounts[partition.client, default: [:]][AccountKey(home: partition.home, environment: partition.environment), default: 0] += 1
        case .account:
            guard let home = entry["home_account_id"], let environment = entry["environment"] else { return }
            accounts[AccountKey(home: CacheText.lowercased(home), environment: aliases.group(of: environment)), default: []].append(key)
        case .appMetadata:
            guard let client = entry["client_id"], let family = entry["family_id"], !family.isEmpty else { return }
            familyOfClient[CacheText.lowercased(client)] = CacheText.lowercased(family)
        }
    }

    /// Removes what ``insert(key:entry:section:aliases:)`` added for the same entry.
    package mutating func remove(key: String, entry: CacheEntry, section: CacheSection, aliases: CacheEnvironmentAliases) {
        guard entry.opaque == nil else { return }
        switch section {
        case .accessToken:
            guard let partition = Self.partition(entry, aliases: aliases, realm: true) else { return }
            accessTokens[partition]?.removeAll { $0.key == key }
            if accessTokens[partition]?.isEmpty == true { accessTokens[partition] = nil }
        case .refreshToken:
            guard var partition = Self.partition(entry, aliases: aliases, realm: false), entry["secret"] != nil else { return }
            let account = AccountKey(home: partition.home, environment: partition.environment)
            if let family = entry["family_id"], !family.isEmpty {
                partition.client = CacheText.lowercased(family)
                if Self.removeKey(key, from: &familyRefreshTokens, at: partition) {
                    Self.decrement(&familyAccounts, partition.client, account)
                }
            } else if Self.removeKey(key, from: &refreshTokens, at: partition) {
                Self.decrement(&clientAccounts, partition.client, account)
            }
        case .idToken:
            guard let partition = Self.partition(entry, aliases: aliases, realm: true) else { return }
            if Self.removeKey(key, from: &idTokens, at: partition) {
                Self.decrement(&clientAccounts, partition.client, AccountKey(home: partition.home, environment: partition.environment))
            }
        case .account:
            guard let home = entry["home_account_id"], let environment = entry["environment"] else { return }
            let account = AccountKey(home: CacheText.lowercased(home), environment: aliases.group(of: environment))
            accounts[account]?.removeAll { $0 == key }
            if accounts[account]?.isEmpty == true { accounts[account] = nil }
        case .appMetadata:
            guard let client = entry["client_id"] else { return }
            familyOfClient[CacheText.lowercased(client)] = nil
        }
    }

    /// The partition of a credential entry; `nil` when a field it needs is missing.
    package static func partition(_ entry: CacheEntry, aliases: CacheEnvironmentAliases, realm: Bool) -> Partition? {
        guard let home = entry["home_account_id"], let environment = entry["environment"], let client = entry["client_id"] else { return nil }
        // AD FS entries may have no realm at all (MSAL.NET writes none); that is the empty realm.
        let realmValue = realm ? CacheText.lowercased(entry["realm"] ?? "") : ""
        return Partition(
            home: CacheText.lowercased(home), environment: aliases.group(of: environment),
            client: CacheText.lowercased(client), realm: realmValue)
    }

    private static func removeKey(_ key: String, from table: inout [Partition: [String]], at partition: Partition) -> Bool {
        guard var keys = table[partition], let index = keys.firstIndex(of: key) else { return false }
        keys.remove(at: index)
        table[partition] = keys.isEmpty ? nil : keys
        return true
    }

    private static func decrement(_ table: inout [String: [AccountKey: Int]], _ client: String, _ account: AccountKey) {
        guard let count = table[client]?[account] else { return }
        if count <= 1 {
            table[client]?[account] = nil
            if table[client]?.isEmpty == true { table[client] = nil }
        } else {
            table[client]?[account] = count - 1
        }
    }
}
