import Foundation
import MSALSupport

/// The token cache in an app's ``MSALPartitionedTokenCacheStore``: every operation works on its
/// own copy of its partition, so operations never wait for each other in this process, and a
/// write stores the partition only over the version it read (optimistic concurrency), redone from
/// the newer version when another writer stored first.
extension TokenCache {
    /// ``read(clientID:partition:_:)`` from the partition the store holds. An operation that spans
    /// partitions (`partition` `nil`, such as listing every account) sees an empty cache: a store
    /// cannot enumerate its users, as with MSAL for .NET's partitioned caches.
    func readPartition<T>(
        _ store: any MSALPartitionedTokenCacheStore, partition: TokenCachePartition?,
        _ body: (TokenCacheContents) throws -> T
    ) async throws -> T {
        guard let partition else { return try body(TokenCacheContents(aliases: currentAliases)) }
        let (contents, _) = try await loadPartition(store, key: partition.key)
        return try body(contents)
    }

    /// ``write(clientID:partition:_:)`` to the partition: load it, run `body` on the copy, and
    /// store the copy over the version loaded when `body` changed it; on a conflict, all of it
    /// again after a short random wait, at most `attempts` times.
    ///
    /// - Throws: `cacheWriteConflict` after `attempts` conflicts; `cacheStoreFailed` when the store
    ///   throws, or for an operation that spans partitions; whatever `body` throws.
    func writePartition<T>(
        _ store: any MSALPartitionedTokenCacheStore, attempts: Int, partition: TokenCachePartition?,
        _ body: (inout TokenCacheContents) throws -> T
    ) async throws -> T {
        guard let partition else {
            throw MSALFailure(
                .internal, internalCode: .cacheStoreFailed,
                message: "This cache operation spans every partition, which a partitioned token cache store cannot change")
        }
        for attempt in 0..<attempts {
            if attempt > 0 {
                // Writers that lost the same race would otherwise all come back at once: wait a
                // random 0–2^attempt ms (at most 32 ms) first.
                let ceiling = UInt64(min(1 << attempt, 32))
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...ceiling * 1_000_000))
            }
            var (contents, version) = try await loadPartition(store, key: partition.key)
            let revision = contents.revision
            let result = try body(&contents)
            guard contents.revision != revision else { return result }
            let document = contents.document
            // A partition left without tokens (its account removed) is removed from the store, as
            // MSAL for .NET's distributed caches do.
            let data = document.hasTokens ? Data(document.serialized()) : nil
            let stored: Bool
            do {
                stored = try await store.store(
                    partition: partition.key, data: data, expiresOn: document.expiryOfEveryToken, replacing: version)
            } catch {
                throw Self.storeFailure("store", partition: partition, error)
            }
            if stored { return result }
        }
        throw MSALFailure(
            .internal, internalCode: .cacheWriteConflict,
            message:
                "Other writers stored the token cache partition first at each of \(attempts) attempts; this operation's changes were not stored"
        )
    }

    /// The partition `key` as contents, with the version it was stored at (`nil`: none stored). A
    /// stored document that does not parse is treated as none: the operation starts empty (the
    /// user signs in again), and a write replaces it, over its version.
    private func loadPartition(
        _ store: any MSALPartitionedTokenCacheStore, key: String
    ) async throws -> (TokenCacheContents, Int64?) {
        let record: MSALTokenCachePartitionRecord?
        do {
            record = try await store.load(partition: key)
        } catch {
            throw Self.storeFailure("load", partition: nil, error)
        }
        let aliases = currentAliases
        guard let record else { return (TokenCacheContents(aliases: aliases), nil) }
        guard let contents = try? TokenCacheContents(parsing: [UInt8](record.data), aliases: aliases) else {
            return (TokenCacheContents(aliases: aliases), record.version)
        }
        return (contents, record.version)
    }

    /// The alias groups the contents in memory were built with (instance discovery adds to them).
    private var currentAliases: CacheEnvironmentAliases {
        state.withLock { $0.contents.aliases }
    }

    /// A synchronous operation on a partitioned store, which is asynchronous.
    static func synchronousPartitionedAccess() -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .cacheStoreFailed,
            message: "A partitioned token cache store is asynchronous: use the async API of the application")
    }

    private static func storeFailure(_ method: String, partition: TokenCachePartition?, _ error: any Error) -> MSALFailure {
        if let error = error as? MSALFailure { return error }
        return MSALFailure(
            .internal, internalCode: .cacheStoreFailed,
            message: "The partitioned token cache store's \(method) failed: \(error)",
            underlyingError: MSALSendableErrorDescription(domain: "\(type(of: error))", code: 0, description: "\(error)"))
    }
}
