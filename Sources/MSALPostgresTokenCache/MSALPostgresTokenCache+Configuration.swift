import MSAL

extension MSALPostgresTokenCache {
    /// How ``MSALPostgresTokenCache`` keeps partitions.
    public struct Configuration: Sendable {
        /// The table, `name` or `schema.name`: lowercase letters, digits and `_`, starting with a
        /// letter or `_`, at most 48 characters each. Default `msal_token_cache`. A sequence named
        /// after it (`<table>_version`) numbers the versions.
        public var tableName: String
        /// The keys that encrypt partitions at rest: the first encrypts, every one decrypts (for
        /// rotation). At least one.
        public var encryptionKeys: [MSALTokenCacheEncryptionKey]
        /// How long one load or store may take, connecting included, before it fails with
        /// ``MSALInternalError/cacheStoreFailed`` (the database down, a network partition). Default 10 s.
        public var operationTimeout: Duration
        /// How often expired partitions are deleted, after a store (`nil`: only by
        /// ``MSALPostgresTokenCache/deleteExpiredPartitions()``). Default one hour.
        public var expiredPartitionCleanupInterval: Duration?

        /// A configuration with the given keys (the first encrypts) and the defaults.
        public init(
            encryptionKeys: [MSALTokenCacheEncryptionKey], tableName: String = "msal_token_cache",
            operationTimeout: Duration = .seconds(10), expiredPartitionCleanupInterval: Duration? = .seconds(3600)
        ) {
            self.encryptionKeys = encryptionKeys
            self.tableName = tableName
            self.operationTimeout = operationTimeout
            self.expiredPartitionCleanupInterval = expiredPartitionCleanupInterval
        }

        /// Checks the configuration; returns the table's SQL name.
        func validated() throws(MSALFailure) -> String {
            guard !encryptionKeys.isEmpty else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "MSALPostgresTokenCache needs at least one encryption key")
            }
            guard operationTimeout > .zero else {
                throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "operationTimeout must be positive")
            }
            let parts = tableName.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy(Self.isIdentifier) else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message:
                        "The table name must be `name` or `schema.name` of lowercase letters, digits and `_` (starting with a letter or `_`, at most 48 each)"
                )
            }
            return tableName
        }

        private static func isIdentifier(_ part: Substring) -> Bool {
            guard let first = part.utf8.first, part.utf8.count <= 48 else { return false }
            guard first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
            return part.utf8.allSatisfy { byte in
                byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        }
    }
}
