extension TokenCacheEntries {
    /// Marks the access and refresh tokens as obtained on behalf of the caller whose incoming
    /// assertion hashes to `hash` (``OnBehalfOfFlow/assertionHash(_:)``): each gets the
    /// `user_assertion_hash` member MSAL.NET writes, which puts it in the index's bucket for that
    /// assertion (``TokenCacheIndex/assertionHome(hash:)``) instead of its user's, and a key of
    /// its own (``CacheKey/onBehalfOf(_:)``), so it never replaces the user's own tokens in a cache
    /// a web app shares.
    ///
    /// The ID token and Account entry stay as they are: they describe the user, whoever asked.
    package mutating func markOnBehalfOf(assertionHash hash: String) {
        userAssertionHash = hash
        accessToken = Self.marked(accessToken, hash: hash)
        refreshToken = refreshToken.map { Self.marked($0, hash: hash) }
    }

    private static func marked(_ keyed: KeyedCacheEntry, hash: String) -> KeyedCacheEntry {
        var entry = keyed.entry
        entry.members.removeAll { $0.known == .userAssertionHash }
        entry.members.append(CacheMember(known: .userAssertionHash, value: .string(hash)))
        return KeyedCacheEntry(key: CacheKey.onBehalfOf(keyed.key), entry: entry)
    }
}
