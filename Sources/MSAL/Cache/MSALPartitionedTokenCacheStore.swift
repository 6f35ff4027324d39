import Foundation

/// One partition of a token cache as a ``MSALPartitionedTokenCacheStore`` holds it: the cache
/// document of that partition and the version it was stored as.
public struct MSALTokenCachePartitionRecord: Sendable, Equatable {
    /// The partition's cache document, in the unified JSON format (as
    /// ``MSALTokenCacheAccess/serialize()`` writes it), or whatever the store made of it on the way
    /// back (decrypted, decompressed).
    public var data: Data
    /// The version the store holds the partition at. Each successful store makes a new one; the
    /// value means nothing to swift-msal beyond equality.
    public var version: Int64

    /// Creates a record.
    public init(data: Data, version: Int64) {
        self.data = data
        self.version = version
    }
}

/// Storage for a confidential client's or a managed identity's token cache that many processes
/// share (the replicas of a service), one partition per
/// ``MSALTokenCacheAccess/suggestedCacheKey``: a user of a web app, an application and tenant, a
/// caller's assertion. Set it with ``MSALCacheConfig/Storage/partitioned(_:)``.
///
/// Unlike ``MSALTokenCacheSerializer``, the store is asynchronous and optimistic: an operation loads
/// its partition with ``load(partition:)``, works on that copy alone (operations on different
/// partitions, or reading the same one, run concurrently), and, when it changed the cache, stores
/// it with ``store(partition:data:expiresOn:replacing:)`` only if nobody stored the partition in
/// between. When somebody did, the store answers `false` and the operation starts again from the
/// newer partition, so two replicas never lose each other's tokens. After
/// ``MSALCacheConfig/partitionWriteAttempts`` conflicts in a row the operation fails with
/// ``MSALInternalError/cacheWriteConflict``. An error a method throws fails the operation with
/// ``MSALInternalError/cacheStoreFailed`` (unless it is an ``MSALFailure``, which is passed on), as
/// a failed write of the other storages fails it.
///
/// `MSALPostgresTokenCache` is such a store on PostgreSQL. A public client's cache is one document
/// (its account list spans every account), so a public client refuses this storage.
public protocol MSALPartitionedTokenCacheStore: Sendable {
    /// The partition stored under `key`, or `nil` when there is none (or it expired).
    func load(partition key: String) async throws -> MSALTokenCachePartitionRecord?

    /// Stores `data` as the partition `key` if the stored partition is still at `version` (`nil`:
    /// if there is still none), and returns `true`; returns `false`, storing nothing, when the
    /// partition was stored or removed since. `data` `nil` removes the partition (it holds no
    /// tokens any more). `expiresOn` is when every token in it will have expired (`nil` when it
    /// holds a refresh token, or no expiry is known): a store may delete the partition after it.
    func store(partition key: String, data: Data?, expiresOn: Date?, replacing version: Int64?) async throws -> Bool
}
