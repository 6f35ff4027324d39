/// An access token found in the cache.
///
/// A lookup makes only what every caller reads — the key, the secret, the target, the realm and
/// the expiry — and leaves the other members in the entry until they are read, so a cache hit
/// neither compares nor parses fields its flow never looks at. It holds the entry, and through it the
/// cache document's bytes, so it lives only for the moment of a lookup: results copy what they keep.
package struct CachedAccessToken: Sendable, Equatable {
    package var key: String
    package var secret: String
    /// The granted scopes as stored (space-separated, case kept).
    package var target: String
    /// The realm as stored (case kept).
    package var realm: String
    package var expiresOn: Int64
    /// Where the other members are read from.
    private var entry: CacheEntry

    /// A token read from `entry`, with the members a lookup already read.
    init(key: String, secret: String, target: String, realm: String, expiresOn: Int64, entry: CacheEntry) {
        self.key = key
        self.secret = secret
        self.target = target
        self.realm = realm
        self.expiresOn = expiresOn
        self.entry = entry
    }

    package var tokenType: String { entry.string(.tokenType, reusing: "Bearer") ?? "Bearer" }
    package var homeAccountID: String { entry[.homeAccountID] ?? "" }
    package var environment: String { entry[.environment] ?? "" }
    package var cachedAt: Int64? { entry.seconds(.cachedAt) }
    /// `extended_expires_on`, else `ext_expires_on` (older writers).
    package var extendedExpiresOn: Int64? { TokenCacheContents.extendedExpiresOn(entry) }
    package var refreshOn: Int64? { entry.seconds(.refreshOn) }

    /// Tokens are equal when every member is.
    package static func == (lhs: CachedAccessToken, rhs: CachedAccessToken) -> Bool {
        lhs.key == rhs.key && lhs.secret == rhs.secret && lhs.target == rhs.target && lhs.realm == rhs.realm
            && lhs.expiresOn == rhs.expiresOn && lhs.tokenType == rhs.tokenType && lhs.homeAccountID == rhs.homeAccountID
            && lhs.environment == rhs.environment && lhs.cachedAt == rhs.cachedAt && lhs.extendedExpiresOn == rhs.extendedExpiresOn
            && lhs.refreshOn == rhs.refreshOn
    }
}

extension TokenCacheContents {
    /// Scopes every Entra token response may add or drop; never required to be in a cached target.
    package static let reservedScopes: Set<String> = ["openid", "profile", "offline_access"]

    /// The requested scopes as the lookup wants them: lower-cased, reserved scopes removed.
    package static func lookupScopes<S: Sequence>(_ scopes: S) -> Set<String> where S.Element == String {
        // One pass into one set (no intermediate arrays: this runs on every silent request).
        var set = Set<String>(minimumCapacity: scopes.underestimatedCount)
        for scope in scopes {
            let folded = CacheText.lowercased(scope)
            if !folded.isEmpty, !reservedScopes.contains(folded) { set.insert(folded) }
        }
        return set
    }

    /// The usable access token for an account, client and scopes: its target holds every requested
    /// scope and it expires more than `expiryBuffer` seconds after `now`. `realms` are tried in
    /// order (the account's tenant, then the authority's tenant segment as MSAL for Python writes it).
    /// Among several matches the one that lives longest wins. Reads never change the cache.
    /// With `usingExtendedExpiry`, `extended_expires_on` is compared instead of `expires_on`.
    package func accessToken(
        homeAccountID: String, environment: String, clientID: String, realms: [String],
        scopes: Set<String>, scheme: TokenScheme = .bearer, now: Int64, expiryBuffer: Int64, usingExtendedExpiry: Bool = false
    ) -> CachedAccessToken? {
        guard let items = index.accounts[TokenCacheIndex.accountKey(home: homeAccountID, environment: environment, aliases: aliases)]
        else { return nil }
        return accessToken(
            in: items, client: CacheText.lowercased(clientID), realms: realms,
            scopes: scopes, scheme: scheme, now: now, expiryBuffer: expiryBuffer, usingExtendedExpiry: usingExtendedExpiry)
    }

    /// ``accessToken(homeAccountID:environment:clientID:realms:scopes:now:expiryBuffer:usingExtendedExpiry:)``
    /// with the secret of the ID token of the same client and realm (left in the document until
    /// read), from one lookup of the account: what a silent cache hit returns.
    package func accessTokenAndIDToken(
        homeAccountID: String, environment: String, clientID: String, realms: [String],
        scopes: Set<String>, scheme: TokenScheme = .bearer, now: Int64, expiryBuffer: Int64, usingExtendedExpiry: Bool = false
    ) -> (token: CachedAccessToken, idToken: String?)? {
        guard let items = index.accounts[TokenCacheIndex.accountKey(home: homeAccountID, environment: environment, aliases: aliases)]
        else { return nil }
        let client = CacheText.lowercased(clientID)
        guard
            let token = accessToken(
                in: items, client: client, realms: realms,
                scopes: scopes, scheme: scheme, now: now, expiryBuffer: expiryBuffer, usingExtendedExpiry: usingExtendedExpiry)
        else { return nil }
        // The ID token's string shared by every hit and account list (made by the first).
        let idToken = Self.idTokenIndex(in: items, client: client, realm: CacheText.lowercased(token.realm)).flatMap {
            items[$0].idToken?.value
        }
        return (token, idToken)
    }

    /// The usable app token (client credentials) of `clientID` for `scopes`, as
    /// ``accessToken(homeAccountID:environment:clientID:realms:scopes:now:expiryBuffer:usingExtendedExpiry:)``
    /// finds a user's: app tokens are the access tokens without a home account.
    ///
    /// `extendedKey` (``CacheExtendedKey``: an FMI path, extra body fields) finds only a token
    /// cached with that key; `nil` only one cached without any.
    package func appToken(
        environment: String, clientID: String, realms: [String], scopes: Set<String>, scheme: TokenScheme = .bearer, now: Int64,
        expiryBuffer: Int64, extendedKey: String? = nil
    ) -> CachedAccessToken? {
        let client = CacheText.lowercased(clientID)
        for realm in realms {
            let home = TokenCacheIndex.accountKey(
                home: TokenCacheIndex.applicationHome(realm: realm), environment: environment, aliases: aliases)
            if let items = index.accounts[home],
                let token = accessToken(
                    in: items, client: client, realms: [realm], scopes: scopes, scheme: scheme, now: now, expiryBuffer: expiryBuffer,
                    usingExtendedExpiry: false, extendedKey: extendedKey)
            {
                return token
            }
        }
        return nil
    }

    /// The usable on-behalf-of access token obtained with the incoming assertion whose hash is
    /// `hash` (``TokenCacheIndex/assertionHome(hash:)``), as
    /// ``accessToken(homeAccountID:environment:clientID:realms:scopes:now:expiryBuffer:usingExtendedExpiry:)``
    /// finds a user's; `realms` `nil` accepts any realm (an authority that names no tenant: the
    /// assertion's own tenant answered). Never a token another assertion obtained, even the same user's.
    package func onBehalfOfAccessToken(
        hash: String, environment: String, clientID: String, realms: [String]?, scopes: Set<String>, scheme: TokenScheme = .bearer,
        now: Int64, expiryBuffer: Int64
    ) -> CachedAccessToken? {
        guard let items = onBehalfOfItems(hash: hash, environment: environment) else { return nil }
        let client = CacheText.lowercased(clientID)
        var candidates = realms ?? []
        if realms == nil {
            for item in items where item.section == .accessToken && !candidates.contains(item.realm) { candidates.append(item.realm) }
        }
        return accessToken(
            in: items, client: client, realms: candidates, scopes: scopes, scheme: scheme, now: now,
            expiryBuffer: expiryBuffer, usingExtendedExpiry: false)
    }

    /// The refresh token obtained with the incoming assertion whose hash is `hash`, for `clientID`
    /// (or the family its AppMetadata names).
    package func onBehalfOfRefreshToken(hash: String, environment: String, clientID: String) -> (key: String, entry: CacheEntry)? {
        guard let items = onBehalfOfItems(hash: hash, environment: environment) else { return nil }
        let client = CacheText.lowercased(clientID)
        return refreshToken(in: items, client: client, family: index.knownFamily(of: client))
    }

    /// The items of the assertion whose hash is exactly `hash` (the index groups hashes lower-cased).
    private func onBehalfOfItems(hash: String, environment: String) -> [TokenCacheIndex.Item]? {
        let key = TokenCacheIndex.accountKey(home: TokenCacheIndex.assertionHome(hash: hash), environment: environment, aliases: aliases)
        guard let items = index.accounts[key]?.filter({ $0.entry[.userAssertionHash] == hash }), !items.isEmpty else { return nil }
        return items
    }

    /// The access token of `scheme` among one account's `items` for `client` (lower-cased); one
    /// with an extended cache key only when `extendedKey` is that key, as MSAL for Python looks
    /// them up (a lookup without one never returns such a token).
    private func accessToken(
        in items: [TokenCacheIndex.Item], client: String, realms: [String],
        scopes: Set<String>, scheme: TokenScheme, now: Int64, expiryBuffer: Int64, usingExtendedExpiry: Bool,
        extendedKey: String? = nil
    ) -> CachedAccessToken? {
        for realm in realms {
            let realm = CacheText.lowercased(realm)
            var best: (index: Int, entry: CacheEntry, expiresOn: Int64)?
            // By position, so only the candidates' fields are touched (no copy of every item).
            for index in items.indices where items[index].section == .accessToken {
                guard items[index].client == client, items[index].realm == realm, items[index].scheme == scheme.kind,
                    items[index].isExtended == (extendedKey != nil), scopes.isSubset(of: items[index].scopes)
                else { continue }
                let entry = items[index].entry
                if let extendedKey, entry[.extCacheKey] != extendedKey { continue }
                // A bound token is found only for the key it is bound to (`key_id`, as MSAL for
                // Python and MSAL.js write it, else `kid`, as MSAL.NET and MSAL for iOS do).
                if let keyID = scheme.keyID, (entry[.keyID] ?? entry["kid"]) != keyID { continue }
                guard entry.hasString(.secret), let expiresOn = entry.seconds(.expiresOn),
                    (usingExtendedExpiry ? (Self.extendedExpiresOn(entry) ?? expiresOn) : expiresOn) - now > expiryBuffer
                else { continue }
                if best == nil || expiresOn > best!.expiresOn { best = (index, entry, expiresOn) }
            }
            if let best {
                return Self.accessToken(
                    items[best.index].key, best.entry, target: items[best.index].target, expiresOn: best.expiresOn, realm: realm)
            }
        }
        return nil
    }

    /// Every access token of an account and client in one realm, whatever its scopes or expiry.
    package func accessTokenKeys(homeAccountID: String, environment: String, clientID: String, realm: String) -> [TokenCacheIndex.Item] {
        guard let items = index.accounts[TokenCacheIndex.accountKey(home: homeAccountID, environment: environment, aliases: aliases)]
        else { return [] }
        let client = CacheText.lowercased(clientID)
        let realm = CacheText.lowercased(realm)
        return items.filter { $0.section == .accessToken && $0.client == client && $0.realm == realm }
    }

    /// The token in `entry`, which expires at `expiresOn` (already read). The realm equal to the
    /// query's is that string, not a new copy of the document's bytes; the target is the index's
    /// shared one (the entry's, as written); the other members stay in the entry until read.
    private static func accessToken(
        _ key: String, _ entry: CacheEntry, target: String, expiresOn: Int64, realm: String
    ) -> CachedAccessToken? {
        guard let secret = entry[.secret] else { return nil }
        return CachedAccessToken(
            key: key, secret: secret, target: target, realm: entry.string(.realm, reusing: realm) ?? "", expiresOn: expiresOn, entry: entry)
    }

    /// `extended_expires_on`, else `ext_expires_on` (older writers).
    static func extendedExpiresOn(_ entry: CacheEntry) -> Int64? {
        entry.seconds(.extendedExpiresOn) ?? entry.seconds(.extExpiresOn)
    }

    /// The refresh token for an account and client: the client's own, else a family refresh token
    /// of the client's family (``TokenCacheIndex/family(of:)``: from AppMetadata, or family "1" when
    /// the client has none yet).
    package func refreshToken(homeAccountID: String, environment: String, clientID: String) -> (key: String, entry: CacheEntry)? {
        guard let items = index.accounts[TokenCacheIndex.accountKey(home: homeAccountID, environment: environment, aliases: aliases)]
        else { return nil }
        let client = CacheText.lowercased(clientID)
        return refreshToken(in: items, client: client, family: index.family(of: client))
    }

    /// The refresh token among one account's `items` for `client` (lower-cased), else of `family`.
    ///
    /// When several match (other writers keep one per alias host or key shape), the newest by
    /// `last_modification_time` wins, as in MSAL for Python; among equals, the last in the document.
    package func refreshToken(in items: [TokenCacheIndex.Item], client: String, family: String?) -> (key: String, entry: CacheEntry)? {
        if let index = Self.newestIndex(
            in: items, where: { $0.pointee.section == .refreshToken && !$0.pointee.isFamily && $0.pointee.client == client })
        {
            return (items[index].key, items[index].entry)
        }
        guard let family,
            let index = Self.newestIndex(
                in: items, where: { $0.pointee.section == .refreshToken && $0.pointee.isFamily && $0.pointee.client == family })
        else { return nil }
        return (items[index].key, items[index].entry)
    }

    /// The position of the last item matching `predicate`, read in place: the predicate reads the
    /// fields it needs through the pointer, so no item is copied (a copy retains its six references).
    @inline(__always)
    private static func lastIndex(
        in items: [TokenCacheIndex.Item], where predicate: (UnsafePointer<TokenCacheIndex.Item>) -> Bool
    ) -> Int? {
        items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var index = buffer.count - 1
            while index >= 0 {
                if predicate(base + index) { return index }
                index -= 1
            }
            return nil
        }
    }

    /// The position of the item matching `predicate` with the greatest `last_modification_time`
    /// (missing or unreadable: 0), the last one among equals; read in place (no copy of each item).
    @inline(__always)
    private static func newestIndex(
        in items: [TokenCacheIndex.Item], where predicate: (UnsafePointer<TokenCacheIndex.Item>) -> Bool
    ) -> Int? {
        items.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var best: (index: Int, time: Int64)?
            var matches = 0
            for index in buffer.indices where predicate(base + index) {
                matches += 1
                best = (index, 0)
            }
            // One match (the usual case) needs no time: it is the newest.
            guard matches > 1 else { return best?.index }
            best = nil
            for index in buffer.indices where predicate(base + index) {
                let time = (base + index).pointee.entry.seconds(.lastModificationTime) ?? 0
                if best == nil || time >= best!.time { best = (index, time) }
            }
            return best?.index
        }
    }

    /// The host an account's tokens for `client` (or its family) are best written under, so every
    /// peer finds the newest first: the host of the account's newest refresh token for them in
    /// `environment`'s alias group, else of its Account entry; `nil` when the cache holds neither.
    ///
    /// MSAL for Python looks in its authority's own host first and tries an alias only when that
    /// host has nothing; MSAL.NET and swift-msal look in the whole alias group. Writing where the
    /// account already lives keeps each of them on the same entries.
    package func existingEnvironment(homeAccountID: String, environment: String, clientID: String, familyID: String?) -> String? {
        guard let items = index.accounts[TokenCacheIndex.accountKey(home: homeAccountID, environment: environment, aliases: aliases)]
        else { return nil }
        let client = CacheText.lowercased(clientID)
        let family = familyID.map(CacheText.lowercased)
        let newest = Self.newestIndex(in: items) { item in
            item.pointee.section == .refreshToken && (item.pointee.isFamily ? item.pointee.client == family : item.pointee.client == client)
        }
        let index = newest ?? items.lastIndex { $0.section == .account }
        return index.flatMap { items[$0].entry["environment"] }
    }

    /// The ID token of an account and client in one realm.
    package func idToken(homeAccountID: String, environment: String, clientID: String, realm: String) -> (key: String, entry: CacheEntry)? {
        guard let items = index.accounts[TokenCacheIndex.accountKey(home: homeAccountID, environment: environment, aliases: aliases)]
        else { return nil }
        return idToken(in: items, client: CacheText.lowercased(clientID), realm: CacheText.lowercased(realm))
    }

    /// The ID token among one account's `items` for `client` and `realm` (both lower-cased).
    package func idToken(in items: [TokenCacheIndex.Item], client: String, realm: String) -> (key: String, entry: CacheEntry)? {
        guard let index = Self.idTokenIndex(in: items, client: client, realm: realm) else { return nil }
        return (items[index].key, items[index].entry)
    }

    /// Where the ID token of `client` in `realm` (both lower-cased) is among `items`: the last one.
    private static func idTokenIndex(in items: [TokenCacheIndex.Item], client: String, realm: String) -> Int? {
        lastIndex(in: items, where: { $0.pointee.section == .idToken && $0.pointee.client == client && $0.pointee.realm == realm })
    }

    /// The accounts a client can use: those it holds a refresh token or an ID token for, and those
    /// holding a family refresh token of its family. `environment` restricts them to one cloud.
    /// In no particular order.
    package func accountKeys(clientID: String, environment: String?) -> [TokenCacheIndex.AccountKey] {
        let client = CacheText.lowercased(clientID)
        let family = index.family(of: client)
        let group = environment.map { aliases.group(of: $0) }
        return index.accounts.compactMap { key, items in
            (group == nil || key.environment == group) && Self.listing(items, client: client, family: family).listed ? key : nil
        }
    }

    /// Whether an account with `items` is listed for `client` (lower-cased, of `family`) — it has
    /// an Account entry, and a refresh token or ID token of the client or a family refresh token — and
    /// whether it holds a refresh token the client can use (its own or its family's), in one pass
    /// that reads the fields in place.
    package static func listing(_ items: [TokenCacheIndex.Item], client: String, family: String?) -> (listed: Bool, signedIn: Bool) {
        items.withUnsafeBufferPointer { buffer in
            var hasAccount = false
            var hasIDToken = false
            var hasRefreshToken = false
            for item in buffer.indices.lazy.map({ buffer.baseAddress! + $0 }) {
                switch item.pointee.section {
                case .account: hasAccount = true
                case .refreshToken:
                    if !hasRefreshToken {
                        hasRefreshToken =
                            item.pointee.isFamily ? (family != nil && item.pointee.client == family) : item.pointee.client == client
                    }
                case .idToken: hasIDToken = hasIDToken || item.pointee.client == client
                case .accessToken, .appMetadata: break
                }
            }
            return (hasAccount && (hasRefreshToken || hasIDToken), hasRefreshToken)
        }
    }

    /// The Account entries (tenant profiles) of one account.
    package func accountEntries(_ account: TokenCacheIndex.AccountKey) -> [(key: String, entry: CacheEntry)] {
        accountEntries(in: index.accounts[account] ?? [])
    }

    /// The Account entries among one account's `items`.
    package func accountEntries(in items: [TokenCacheIndex.Item]) -> [(key: String, entry: CacheEntry)] {
        items.compactMap { item in
            item.section == .account ? (item.key, item.entry) : nil
        }
    }
}
