// Compiled only with the package trait TestEntryPoints, which Benchmarks enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
import MSALJOSE
import MSALSupport

/// Entry points for `Benchmarks/` (a separate package, which cannot see `package` symbols). Not API:
/// import with `@_spi(Benchmarks) import MSAL`.
@_spi(Benchmarks) public enum MSALCacheBenchmarkSupport {
    /// A loaded cache document.
    public final class Loaded: Sendable {
        let cache: TokenCache
        let contents: TokenCacheContents
        let memo = TokenCacheAccountMemo()
        /// The accounts in a fixed order, for ``touchOneAccount(_:clientID:round:)`` (made on first use).
        let accountKeys = Mutex<[TokenCacheIndex.AccountKey]?>(nil)

        init(contents: TokenCacheContents) {
            self.contents = contents
            self.cache = TokenCache(contents: contents)
        }
    }

    /// Parses and indexes a cache document (what reading the cache file costs).
    public static func load(_ bytes: [UInt8]) throws -> Loaded {
        Loaded(contents: try TokenCacheContents(parsing: bytes))
    }

    /// Reads a cache file as the file store does (under its shared lock, straight into the source
    /// the reader compacts) and parses and indexes it.
    public static func loadFile(_ path: String) throws -> Loaded {
        let file = try TokenCacheFile(path: path)
        let source = try file.withLock(exclusive: false) { try $0.readStamped()?.source } ?? CacheSource(bytes: [])
        return Loaded(contents: try TokenCacheContents(parsing: source))
    }

    /// The number of entries in the known sections (so a profiler's loop uses what it loads).
    public static func entryCount(_ loaded: Loaded) -> Int {
        (try? loaded.cache.read(clientID: "") { $0.document.entryCount }) ?? 0
    }

    /// Up to `count` home account ids of the document's accounts.
    public static func homeAccountIDs(_ loaded: Loaded, count: Int) -> [String] {
        (try? loaded.cache.read(clientID: "") { contents in
            contents.document[.account].values.prefix(count).compactMap { $0["home_account_id"] }
        }) ?? []
    }

    /// Saves a new token response for one of the document's accounts (chosen by `round`), as a
    /// silent refresh does: new access and refresh tokens, the same ID token and account, the app
    /// metadata again. What `allAccounts()` sees as "a change" between two calls.
    public static func touchOneAccount(_ loaded: Loaded, clientID: String, round: Int) {
        _ = try? loaded.cache.write(clientID: clientID) { contents in
            let keys = loaded.accountKeys.withLock { keys in
                if keys == nil { keys = contents.index.accounts.keys.sorted { $0.home < $1.home } }
                return keys ?? []
            }
            guard !keys.isEmpty else { return }
            let key = keys[round % keys.count]
            guard let (_, account) = contents.accountEntries(key).first, let home = account["home_account_id"],
                let environment = account["environment"], let realm = account["realm"],
                let idToken = contents.idToken(homeAccountID: home, environment: environment, clientID: clientID, realm: realm)?.entry[
                    "secret"],
                let dot = home.lastIndex(of: ".")
            else { return }
            let clientInfo = Base64URL.encode(
                Array(#"{"uid":"\#(home[..<dot])","utid":"\#(home[home.index(after: dot)...])"}"#.utf8))
            let response = TokenResponse(
                accessToken: "refreshed-access-token-\(round)", expiresIn: 3600, refreshToken: "refreshed-refresh-token-\(round)",
                idToken: idToken, clientInfo: clientInfo, scope: "openid profile User.Read email")
            let context = TokenCacheWriteContext(
                clientID: clientID, environment: environment, authorityTenant: realm, requestedScopes: ["User.Read"],
                now: 1_767_225_600 + Int64(round),
                policy: TokenCacheWritePolicy(realmSource: .authorityTenant, refreshTokenTarget: true))
            guard let entries = try? TokenCacheEntries(response: response, context: context) else { return }
            contents.save(entries, clientID: clientID)
        }
    }

    /// Writes the document back (what saving the cache file costs, without the I/O).
    public static func serialize(_ loaded: Loaded) -> [UInt8] {
        loaded.contents.document.serialized()
    }

    /// The requested scopes in lookup form.
    public static func lookupScopes(_ scopes: [String]) -> Set<String> {
        TokenCacheContents.lookupScopes(scopes)
    }

    /// The silent path's cache lookup: the cache lock, the index probes, the scope and expiry checks.
    public static func silentLookup(
        _ loaded: Loaded, homeAccountID: String, environment: String, clientID: String, realms: [String], scopes: Set<String>, now: Int64
    ) -> String? {
        try? loaded.cache.read(clientID: clientID) { contents in
            contents.accessToken(
                homeAccountID: homeAccountID, environment: environment, clientID: clientID, realms: realms, scopes: scopes, now: now,
                expiryBuffer: 300)?.secret
        }
    }

    /// `allAccounts()` of an application: memoized between changes (`memoized`) or built from the index.
    public static func accounts(_ loaded: Loaded, clientID: String, environment: String, memoized: Bool) -> [MSALAccount] {
        if memoized {
            return (try? loaded.cache.accounts(clientID: clientID, environment: environment, signedInOnly: true, memo: loaded.memo)) ?? []
        }
        return loaded.contents.accounts(clientID: clientID, environment: environment, signedInOnly: true)
    }
}
#endif
