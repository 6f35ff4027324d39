/// Entry points for `Benchmarks/` (a separate package, which cannot see `package` symbols). Not API:
/// import with `@_spi(Benchmarks) import MSAL`.
@_spi(Benchmarks) public enum MSALCacheBenchmarkSupport {
    /// A loaded cache document.
    public final class Loaded: Sendable {
        let cache: TokenCache
        let contents: TokenCacheContents
        let memo = TokenCacheAccountMemo()

        init(contents: TokenCacheContents) {
            self.contents = contents
            self.cache = TokenCache(contents: contents)
        }
    }

    /// Parses and indexes a cache document (what reading the cache file costs).
    public static func load(_ bytes: [UInt8]) throws -> Loaded {
        Loaded(contents: TokenCacheContents(document: try TokenCacheDocument(parsing: bytes)))
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
