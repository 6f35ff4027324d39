import Foundation
import MSAL
import MSALJOSE
import MSALSupport
import NIOCore
import PostgresNIO

/// A token cache store in PostgreSQL for the replicas of a service: one row per partition of the
/// cache (a user of a web app, an application and tenant, a caller's assertion), each with a
/// version, so that replicas never lose each other's updates, and each encrypted at rest with a
/// key the application provides (AES-256-GCM through OpenSSL).
///
/// ```swift
/// let postgres = PostgresClient(configuration: .init(host: "db", username: "app", password: secret,
///                                                     database: "app", tls: .require(.makeClientConfiguration())))
/// // Run the client for the life of the service: `await postgres.run()` in a task of its own.
/// let store = try MSALPostgresTokenCache(
///     client: postgres, configuration: .init(encryptionKeys: [try MSALTokenCacheEncryptionKey(base64: keyFromVault)]))
/// try await store.createTableIfNeeded()
/// configuration.cacheConfig = MSALCacheConfig(storage: .partitioned(store))
/// ```
///
/// The table (``Configuration/tableName``, default `msal_token_cache`) has the columns
/// `partition_key` (the key swift-msal suggests, as MSAL for .NET names it), `version` (from the
/// sequence `<table>_version`, so a version is never reused), `value` (the sealed cache document:
/// a format byte, the 12-byte nonce, the 16-byte tag and the ciphertext; the partition key and the
/// table are authenticated with it, so a row copied under another key does not open), `expires_at`
/// (when every token of an application's partition has expired; `NULL` for partitions with a
/// refresh token) and `updated_at`. An expired partition reads as absent, is replaced by the next
/// store, and is deleted by ``deleteExpiredPartitions()`` (after a store, at most once per
/// ``Configuration/expiredPartitionCleanupInterval``).
///
/// Every load and store is bounded by ``Configuration/operationTimeout``: with the database down
/// the cache operation fails with ``MSALInternalError/cacheStoreFailed`` in that time, and the
/// next one succeeds once the client reconnects. A partition that no configured key opens fails
/// with ``MSALInternalError/cacheCorrupt`` and is left as it is.
public final class MSALPostgresTokenCache: MSALPartitionedTokenCacheStore {
    let client: PostgresClient
    let configuration: Configuration
    /// The table's name in SQL (validated: only identifier characters and one dot).
    let table: String
    /// The version sequence's name in SQL.
    let sequence: String
    private let lastCleanup = Mutex<ContinuousClock.Instant?>(nil)

    /// A store on `client`, which the application runs (`run()`) for as long as the store is used.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for a configuration
    ///   without an encryption key, with a table name that is not a plain SQL identifier, or with a
    ///   timeout that is not positive.
    public init(client: PostgresClient, configuration: Configuration) throws(MSALFailure) {
        self.table = try configuration.validated()
        self.sequence = table + "_version"
        self.client = client
        self.configuration = configuration
    }

    /// Creates the table, its version sequence and its expiry index when they do not exist; safe
    /// to run from every replica at start (they take a transaction-scoped advisory lock in turn).
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/cacheStoreFailed`` when PostgreSQL fails or
    ///   does not answer in time.
    public func createTableIfNeeded() async throws {
        let table = table
        let sequence = sequence
        let index = table.replacingOccurrences(of: ".", with: "_") + "_expires_at"
        let client = client
        try await bounded("table creation") {
            try await client.withTransaction(logger: Self.silentLogger) { connection in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext(\(table)))", logger: Self.silentLogger)
                try await connection.query("CREATE SEQUENCE IF NOT EXISTS \(unescaped: sequence)", logger: Self.silentLogger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS \(unescaped: table) (
                        partition_key TEXT PRIMARY KEY,
                        version BIGINT NOT NULL,
                        value BYTEA NOT NULL,
                        expires_at TIMESTAMPTZ,
                        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
                    )
                    """, logger: Self.silentLogger)
                try await connection.query(
                    "CREATE INDEX IF NOT EXISTS \(unescaped: index) ON \(unescaped: table) (expires_at) WHERE expires_at IS NOT NULL",
                    logger: Self.silentLogger)
            }
        }
    }

    /// The partition stored under `key`, decrypted; `nil` when there is none or it has expired.
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/cacheStoreFailed`` when PostgreSQL fails or
    ///   does not answer in time; ``MSALInternalError/cacheCorrupt`` when no configured key opens it.
    public func load(partition key: String) async throws -> MSALTokenCachePartitionRecord? {
        let table = table
        let client = client
        let row: (Int64, ByteBuffer)? = try await bounded("load") {
            let rows = try await client.query(
                """
                SELECT version, value FROM \(unescaped: table)
                WHERE partition_key = \(key) AND (expires_at IS NULL OR expires_at > now())
                """, logger: Self.silentLogger)
            var found: (Int64, ByteBuffer)?
            for try await row in rows {
                found = try row.decode((Int64, ByteBuffer).self)
            }
            return found
        }
        guard let (version, value) = row else { return nil }
        return MSALTokenCachePartitionRecord(data: Data(try open(value, partition: key)), version: version)
    }

    /// Stores `data` as the partition `key` over `version` (see
    /// ``MSALPartitionedTokenCacheStore/store(partition:data:expiresOn:replacing:)``): `false` when
    /// another writer stored or removed it since.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/cacheStoreFailed`` when PostgreSQL fails or
    ///   does not answer in time (the partition may or may not have been stored; the next load tells).
    public func store(partition key: String, data: Data?, expiresOn: Date?, replacing version: Int64?) async throws -> Bool {
        let table = table
        let sequence = sequence
        let client = client
        let sealed = try data.map { try ByteBuffer(bytes: seal([UInt8]($0), partition: key)) }
        let stored: Bool = try await bounded("store") {
            let rows: PostgresRowSequence
            switch (sealed, version) {
            case (nil, nil):
                // Nothing stored, nothing to store.
                return true
            case (nil, let version?):
                rows = try await client.query(
                    "DELETE FROM \(unescaped: table) WHERE partition_key = \(key) AND version = \(version) RETURNING version",
                    logger: Self.silentLogger)
            case (let sealed?, nil):
                // A row that expired reads as absent, so it is replaced as if there were none.
                rows = try await client.query(
                    """
                    INSERT INTO \(unescaped: table) AS stored (partition_key, version, value, expires_at, updated_at)
                    VALUES (\(key), nextval('\(unescaped: sequence)'), \(sealed), \(expiresOn), now())
                    ON CONFLICT (partition_key) DO UPDATE
                    SET version = EXCLUDED.version, value = EXCLUDED.value, expires_at = EXCLUDED.expires_at, updated_at = now()
                    WHERE stored.expires_at IS NOT NULL AND stored.expires_at <= now()
                    RETURNING version
                    """, logger: Self.silentLogger)
            case (let sealed?, let version?):
                rows = try await client.query(
                    """
                    UPDATE \(unescaped: table)
                    SET version = nextval('\(unescaped: sequence)'), value = \(sealed), expires_at = \(expiresOn), updated_at = now()
                    WHERE partition_key = \(key) AND version = \(version)
                    RETURNING version
                    """, logger: Self.silentLogger)
            }
            var changed = false
            for try await _ in rows { changed = true }
            return changed
        }
        if stored { await cleanUpIfDue() }
        return stored
    }

    /// Deletes every partition whose tokens have all expired; returns how many.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/cacheStoreFailed`` when PostgreSQL fails or
    ///   does not answer in time.
    @discardableResult
    public func deleteExpiredPartitions() async throws -> Int {
        let table = table
        let client = client
        return try await bounded("cleanup") {
            let rows = try await client.query(
                "DELETE FROM \(unescaped: table) WHERE expires_at IS NOT NULL AND expires_at <= now() RETURNING 1",
                logger: Self.silentLogger)
            var count = 0
            for try await _ in rows { count += 1 }
            return count
        }
    }

    /// Deletes expired partitions when the interval has passed since the last time; a failure is
    /// left for the next time (the store itself succeeded).
    private func cleanUpIfDue() async {
        guard let interval = configuration.expiredPartitionCleanupInterval else { return }
        let now = ContinuousClock.now
        let due = lastCleanup.withLock { last -> Bool in
            if let last, now - last < interval { return false }
            last = now
            return true
        }
        guard due else { return }
        _ = try? await deleteExpiredPartitions()
    }
}
