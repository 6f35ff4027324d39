/// Lookup tables over a ``TokenCacheDocument``, so the silent path probes one hash slot and scans
/// one account's few credentials instead of scanning entries: the cost of a lookup does not grow
/// with the number of accounts.
///
/// Every component is lower-cased and the environment is replaced by its alias group, so entries
/// written under `login.windows.net` answer lookups for `login.microsoftonline.com`.
package struct TokenCacheIndex: Sendable {
    /// Home account and cloud: one ``MSALAccount``.
    package struct AccountKey: Hashable, Sendable {
        package var home: String
        package var environment: String

        package init(home: String, environment: String) {
            self.home = home
            self.environment = environment
        }

        /// Hashes the home account id only: the same account in two clouds is rare, and the
        /// environment would double the bytes hashed for every entry indexed and every lookup.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(home)
        }
    }

    /// One usable entry of an account: a credential or an Account entry (a tenant profile).
    ///
    /// The fields account lists read for every item (section, family flag, client, realm, entry)
    /// come first, so they share the item's first cache lines.
    package struct Item: Sendable {
        package var section: CacheSection
        /// Whether this is a refresh token of a family (`client` is then the family id).
        package var isFamily: Bool
        /// Whether this is an access token with an extended cache key (`ext_cache_key`,
        /// ``CacheExtendedKey``): found only by a lookup that asks with the same key.
        package var isExtended = false
        /// The client id, lower-cased; for a family refresh token the family id; empty for an Account entry.
        package var client: String
        /// The realm, lower-cased; empty for refresh tokens.
        package var realm: String
        /// The entry itself (the same value as in the document: a copy shares its storage), so
        /// lookups read it without hashing the key again.
        package var entry: CacheEntry
        /// An ID token's token: the entry's `secret`, made into a string once, when first handed out
        /// (account lists and cache hits share it, without looking into the entry); `nil` otherwise.
        package var idToken: CacheLazyString?
        /// The entry's key in its section.
        package var key: String
        /// An access token's granted scopes, lower-cased; empty otherwise.
        package var scopes: Set<String>
        /// An access token's `target` as written (shared by the entries with the same one); empty otherwise.
        package var target: String
        /// An access token's scheme, from its `token_type` (none or empty: bearer); `nil` for a type this
        /// library does not know, and for the other sections.
        package var scheme: TokenScheme.Kind? = nil
    }

    /// What a change to the tables touched, so callers can tell which accounts to look at again.
    package enum Change: Sendable, Equatable {
        /// Nothing an account list depends on.
        case none
        /// The entries of one account.
        case account(AccountKey)
        /// Something every account may depend on (a client's family).
        case everything
    }

    /// Each account's usable entries, in the order they were added; the accounts in the order
    /// they were first added.
    package var accounts = TokenCacheIndexAccounts()
    /// Family id of each client id with AppMetadata; `""` for a client known to be in no family.
    /// Use ``family(of:)`` or ``knownFamily(of:)`` to read it.
    package private(set) var familyOfClient: [String: String] = [:]
    /// The `family_id` of every AppMetadata entry (lower-cased, `""` for none), by lower-cased client
    /// id and entry key: ``familyOfClient`` is derived from it, so it depends only on which entries
    /// there are, not on the order they were added or removed in.
    private var appFamilies: [String: [String: String]] = [:]

    /// The family of `client` (lower-cased) as the silent flow and account lists use it: the one its
    /// AppMetadata names; none when the AppMetadata says it is in no family; and family `"1"` when the
    /// client has no AppMetadata yet (MSAL for iOS and for Python assume the one family that exists: a
    /// new family app can use the family's refresh tokens before its first sign-in. A client outside
    /// the family learns so from the service's `client_mismatch` and records it).
    package func family(of client: String) -> String? {
        guard let family = familyOfClient[client] else { return Self.assumedFamily }
        return family.isEmpty ? nil : family
    }

    /// The family the client's AppMetadata names, `nil` when it names none or there is no AppMetadata.
    package func knownFamily(of client: String) -> String? {
        familyOfClient[client].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `client` has no AppMetadata, so ``family(of:)`` is an assumption.
    package func familyIsAssumed(for client: String) -> Bool { familyOfClient[client] == nil }

    /// The family assumed for a client without AppMetadata.
    package static let assumedFamily = "1"

    package init() {}

    /// Builds the index of every usable entry of `document`.
    package init(document: TokenCacheDocument, aliases: CacheEnvironmentAliases) {
        var builder = TokenCacheIndexBuilder(aliases: aliases, expectedAccounts: document.sections[CacheSection.account.rawValue].count)
        for section in CacheSection.allCases {
            document.sections[section.rawValue].forEach { key, entry in
                builder.add(key: key, entry: entry, section: section)
            }
        }
        self = builder.finish()
    }

    /// Adds `entry` (stored under `key`) to the tables; entries missing what their section needs are ignored.
    @discardableResult
    package mutating func insert(key: String, entry: CacheEntry, section: CacheSection, aliases: CacheEnvironmentAliases) -> Change {
        var memo = Memo()
        return insert(key: key, entry: entry, section: section, aliases: aliases, memo: &memo)
    }

    /// ``insert(key:entry:section:aliases:)`` deriving recurring values through `memo`.
    @discardableResult
    mutating func insert(
        key: String, entry: CacheEntry, section: CacheSection, aliases: CacheEnvironmentAliases, memo: inout Memo
    ) -> Change {
        guard entry.opaque == nil else { return .none }
        if section == .appMetadata {
            guard let clientID = entry[.clientID] else { return .none }
            let client = CacheText.lowercased(clientID)
            // No `family_id` (or JSON null, as MSAL for Python writes for a non-family app): in no family.
            appFamilies[client, default: [:]][key] = CacheText.lowercased(entry[.familyID] ?? "")
            return updateFamily(of: client)
        }
        guard let account = Self.accountKey(entry, section: section, aliases: aliases, memo: &memo),
            let item = Self.item(key: key, entry: entry, section: section, memo: &memo)
        else { return .none }
        accounts[account, default: Self.newItems()].append(item)
        return .account(account)
    }

    /// The index item of `entry` (stored under `key` in `section`, not AppMetadata); `nil` when the
    /// entry lacks what its section needs.
    static func item(key: String, entry: CacheEntry, section: CacheSection, memo: inout Memo) -> Item? {
        var item = Item(
            section: section, isFamily: false, client: "", realm: "", entry: entry, idToken: nil, key: key, scopes: [], target: "")
        switch section {
        case .accessToken:
            guard let client = entry.withUTF8(.clientID, { memo.lowercased($0) }), entry.hasString(.secret),
                let (target, scopes) = entry.withUTF8(.target, { memo.scopes($0) })
            else { return nil }
            item.client = client
            item.realm = entry.withUTF8(.realm) { memo.lowercased($0) } ?? ""
            item.scopes = scopes
            item.target = target
            // No `token_type`, or an empty one, is a bearer token, as older writers leave it.
            item.scheme = entry.withUTF8(.tokenType) { $0.isEmpty ? .bearer : TokenScheme.Kind(tokenType: $0) } ?? .bearer
            // Any `ext_cache_key` member, even empty or null, as MSAL for Python tells them apart.
            item.isExtended = entry.lastIndex(of: .extCacheKey) != nil
        case .refreshToken:
            guard let client = entry.withUTF8(.clientID, { memo.lowercased($0) }), entry.hasString(.secret) else { return nil }
            if let family = entry.withUTF8(.familyID, { $0.isEmpty ? nil : memo.lowercased($0) }) ?? nil {
                item.client = family
                item.isFamily = true
            } else {
                item.client = client
            }
        case .idToken:
            guard let client = entry.withUTF8(.clientID, { memo.lowercased($0) }), let token = entry.lazyString(.secret) else {
                return nil
            }
            item.client = client
            item.realm = entry.withUTF8(.realm) { memo.lowercased($0) } ?? ""
            item.idToken = token
        case .account:
            item.realm = entry.withUTF8(.realm) { memo.lowercased($0) } ?? ""
        case .appMetadata:
            return nil
        }
        return item
    }

    /// Sets ``familyOfClient`` for `client` from its AppMetadata entries: a client with AppMetadata in
    /// two clouds is in a family if either says so (the smallest family id if they name different
    /// ones), in none if every entry says none, and unknown without AppMetadata.
    private mutating func updateFamily(of client: String) -> Change {
        let family = appFamilies[client].map { families in families.values.filter { !$0.isEmpty }.min() ?? "" }
        guard familyOfClient[client] != family else { return .none }
        familyOfClient[client] = family
        return .everything
    }

    @inline(__always)
    private static func newItems() -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(4)
        return items
    }

    /// Removes what ``insert(key:entry:section:aliases:)`` added for the same entry.
    @discardableResult
    package mutating func remove(key: String, entry: CacheEntry, section: CacheSection, aliases: CacheEnvironmentAliases) -> Change {
        guard entry.opaque == nil else { return .none }
        if section == .appMetadata {
            guard let clientID = entry[.clientID] else { return .none }
            let client = CacheText.lowercased(clientID)
            appFamilies[client]?[key] = nil
            if appFamilies[client]?.isEmpty == true { appFamilies[client] = nil }
            return updateFamily(of: client)
        }
        var memo = Memo()
        guard let account = Self.accountKey(entry, section: section, aliases: aliases, memo: &memo), var items = accounts[account],
            let position = items.firstIndex(where: { $0.section == section && $0.key == key })
        else { return .none }
        items.remove(at: position)
        accounts[account] = items.isEmpty ? nil : items
        return .account(account)
    }

    /// Removes everything the entries of `section` added.
    mutating func removeAll(_ section: CacheSection) {
        if section == .appMetadata {
            familyOfClient = [:]
            appFamilies = [:]
            return
        }
        var emptied: [AccountKey] = []
        for key in accounts.keys {
            accounts[key]!.removeAll { $0.section == section }
            if accounts[key]!.isEmpty { emptied.append(key) }
        }
        for key in emptied { accounts[key] = nil }
    }

    /// The index's stand-in home account of the app tokens (client credentials, managed identity)
    /// of one realm. They belong to no user — MSAL for Python writes `home_account_id` as JSON
    /// `null` — and a service may hold one per tenant for thousands of tenants, so each realm's are
    /// kept apart: a lookup reads one realm's few tokens. The leading U+0001 cannot start a real
    /// home account id.
    package static func applicationHome(realm: String) -> String {
        AccountKeySource.Marker.application.text + CacheText.lowercased(realm)
    }

    /// The index's stand-in home account of the on-behalf-of tokens obtained with one incoming
    /// assertion: the access and refresh tokens that carry `user_assertion_hash` (as MSAL.NET
    /// writes it). Keeping them apart from their user's own tokens means a lookup for the user
    /// (silent requests, account lists) never returns a token obtained with a caller's assertion,
    /// and an on-behalf-of lookup reads only the few tokens of that one assertion. Lower-cased as
    /// every index key is (the lookups compare the exact hash too); the leading U+0002 cannot
    /// start a real home account id.
    package static func assertionHome(hash: String) -> String {
        AccountKeySource.Marker.assertion.text + CacheText.lowercased(hash)
    }

    /// The account an entry belongs to; `nil` when it names no home account or environment. An
    /// access token whose `home_account_id` is `null`, empty or missing is an app token, under
    /// ``applicationHome(realm:)``; an access or refresh token with a `user_assertion_hash` is an
    /// on-behalf-of token, under ``assertionHome(hash:)``.
    private static func accountKey(
        _ entry: CacheEntry, section: CacheSection, aliases: CacheEnvironmentAliases, memo: inout Memo
    ) -> AccountKey? {
        guard let source = accountKeySource(entry, section: section, aliases: aliases, memo: &memo) else { return nil }
        let lowered = entry.withUTF8(source.field) { CacheText.lowercased(utf8: $0) } ?? ""
        return AccountKey(home: source.marker.text + lowered, environment: source.environment)
    }

    /// Where an entry's account key comes from: the home account id is `marker`'s text followed by
    /// the lower-cased value of `field` (empty when it is absent or not a string), in the alias
    /// group `environment`.
    struct AccountKeySource {
        /// What starts a stand-in home account id: nothing for a user's, U+0001 for the app tokens
        /// of a realm (``applicationHome(realm:)``), U+0002 for the on-behalf-of tokens of an
        /// assertion (``assertionHome(hash:)``).
        enum Marker: UInt8 {
            case none = 0
            case application = 1
            case assertion = 2

            /// The marker as the start of a home account id.
            var text: String { self == .none ? "" : String(UnicodeScalar(rawValue)) }
        }

        var marker: Marker
        var field: CacheKnownField
        var environment: String
    }

    /// The rules of ``accountKey(_:section:aliases:memo:)``, without making the key: `nil` when the
    /// entry names no home account or environment.
    static func accountKeySource(
        _ entry: CacheEntry, section: CacheSection, aliases: CacheEnvironmentAliases, memo: inout Memo
    ) -> AccountKeySource? {
        guard let environment = entry.withUTF8(.environment, { memo.group($0, aliases: aliases) }) else { return nil }
        if section == .accessToken || section == .refreshToken, entry.withUTF8(.userAssertionHash, { !$0.isEmpty }) == true {
            return AccountKeySource(marker: .assertion, field: .userAssertionHash, environment: environment)
        }
        if entry.withUTF8(.homeAccountID, { !$0.isEmpty || section != .accessToken }) == true {
            return AccountKeySource(marker: .none, field: .homeAccountID, environment: environment)
        }
        guard section == .accessToken else { return nil }
        return AccountKeySource(marker: .application, field: .realm, environment: environment)
    }

    /// The account key for a lookup.
    package static func accountKey(home: String, environment: String, aliases: CacheEnvironmentAliases) -> AccountKey {
        AccountKey(home: CacheText.lowercased(home), environment: aliases.group(of: environment))
    }
}

extension TokenCacheIndex {
    /// Values recently derived from member bytes (lower-cased client ids and realms, alias groups,
    /// scope sets), so indexing a document of thousands of entries that share a few clients,
    /// realms, clouds and targets derives each once instead of once per entry.
    struct Memo {
        private var strings = Recent<String>()
        private var groups = Recent<String>()
        private var scopeSets = Recent<(String, Set<String>)>()
        private var scopeSetsByTarget: [String: (String, Set<String>)] = [:]

        mutating func lowercased(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
            if let hit = strings.find(utf8) { return hit }
            let value = CacheText.lowercased(utf8: utf8)
            strings.add(utf8, value)
            return value
        }

        mutating func group(_ utf8: UnsafeBufferPointer<UInt8>, aliases: CacheEnvironmentAliases) -> String {
            if let hit = groups.find(utf8) { return hit }
            let value = aliases.group(of: String(decoding: utf8, as: UTF8.self))
            groups.add(utf8, value)
            return value
        }

        /// The target as a string and its scope set.
        mutating func scopes(_ utf8: UnsafeBufferPointer<UInt8>) -> (String, Set<String>) {
            if let hit = scopeSets.find(utf8) { return hit }
            let target = String(decoding: utf8, as: UTF8.self)
            let value: (String, Set<String>)
            if let known = scopeSetsByTarget[target] {
                value = known
            } else {
                value = (target, CacheText.scopeSet(target))
                scopeSetsByTarget[target] = value
            }
            scopeSets.add(utf8, value)
            return value
        }
    }

    /// The last few values derived from byte strings, found by comparing bytes.
    struct Recent<Value> {
        private var keys: [[UInt8]] = []
        private var values: [Value] = []
        private var next = 0
        private static var capacity: Int { 4 }

        @inline(__always)
        func find(_ utf8: UnsafeBufferPointer<UInt8>) -> Value? {
            for index in keys.indices where keys[index].withUnsafeBufferPointer({ CacheText.equal($0, utf8) }) {
                return values[index]
            }
            return nil
        }

        mutating func add(_ utf8: UnsafeBufferPointer<UInt8>, _ value: Value) {
            if keys.count < Self.capacity {
                keys.append(Array(utf8))
                values.append(value)
                return
            }
            keys[next] = Array(utf8)
            values[next] = value
            next = (next + 1) % Self.capacity
        }
    }
}
