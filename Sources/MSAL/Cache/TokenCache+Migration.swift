extension TokenCache {
    /// What ``moveFileIntoSecretService(_:)`` did.
    package struct Migration: Sendable {
        /// The cache entries the file held, now in the Secret Service item.
        package var entries: Int
        /// Whether there was a file to move.
        package var fileFound: Bool
        /// Files beside the cache that may still hold tokens (moved-aside corrupt files, temporary files of
        /// interrupted writes): left in place for the user to check and delete.
        package var leftovers: [String]
    }

    /// Moves the cache in `file` into this cache's Secret Service item and removes the file.
    ///
    /// Under the file's exclusive lock (no other process writes it meanwhile): reads and parses the
    /// file, stores its entries in the item (an empty item takes the whole document; otherwise each
    /// entry is added or replaces the item's entry with the same key), then overwrites the file with
    /// zeros and removes it. The file is removed only once the item is stored, so a failure at any
    /// step leaves the tokens in one place or both, never in none.
    ///
    /// - Throws: `cacheSecretServiceUnavailable` when this cache is not in the Secret Service (it
    ///   fell back, or cannot reach it); `cacheCorrupt` for a file that is not a cache (left as it
    ///   is); the file's and the item's errors.
    package func moveFileIntoSecretService(_ file: TokenCacheFile) throws -> Migration {
        guard case .secretService(let store) = backing else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The destination cache is not stored in the Secret Service")
        }
        guard case .secretService = try store.resolved() else {
            throw MSALFailure.secretServiceUnavailable(
                "the Secret Service is unavailable, so nothing was moved (the cache fell back to \(storageDescription))")
        }
        return try file.withLock(exclusive: true) { access in
            let leftovers = access.leftoverCopies()
            guard let (source, _) = try access.readStamped() else {
                return Migration(entries: 0, fileFound: false, leftovers: leftovers)
            }
            let parsed = try TokenCacheContents(parsing: source)
            let document = parsed.document
            try write(clientID: "msal-migration") { contents in
                if contents.document.entryCount == 0 {
                    contents.replaceDocument(document)
                } else {
                    for section in CacheSection.allCases {
                        for (key, entry) in document[section] {
                            contents.upsert(entry, key: key, in: section)
                        }
                    }
                }
            }
            try access.wipeAndRemove()
            return Migration(entries: document.entryCount, fileFound: true, leftovers: leftovers)
        }
    }
}
