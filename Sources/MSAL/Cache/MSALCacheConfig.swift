/// Where and how an application keeps its token cache.
public struct MSALCacheConfig: Sendable {
    /// Where the cache lives between operations.
    public enum Storage: Sendable {
        /// In this process only; gone when it exits.
        case memory
        /// In a file shared safely between processes (see `docs/cache-persistence.md`); `nil` is the
        /// default location, `$XDG_CACHE_HOME/msal/token_cache.json` or `~/.cache/msal/token_cache.json`.
        case file(path: String?)
        /// In the application's own storage, through serialization hooks.
        case custom(any MSALTokenCacheSerializer)
        /// In the Secret Service (GNOME Keyring, KWallet) over D-Bus, through libsecret, shared with
        /// msal-extensions; see ``MSALSecretServiceStorage`` and `docs/cache-persistence.md`.
        case secretService(MSALSecretServiceStorage)
        /// In a store shared by the replicas of a service, one partition per user, application and
        /// tenant, or caller's assertion, written with optimistic concurrency (see
        /// ``MSALPartitionedTokenCacheStore``). For confidential clients and managed identity; a
        /// public client refuses it.
        case partitioned(any MSALPartitionedTokenCacheStore)
    }

    /// Where the cache lives. Default: the file at the default location.
    public var storage: Storage
    /// Seconds to wait for another process holding the cache file's lock. Default 10.
    public var fileLockTimeout: Double
    /// With ``Storage/partitioned(_:)``: how many times one operation is tried when other writers
    /// keep storing its partition first, before it fails with
    /// ``MSALInternalError/cacheWriteConflict``. Default 8.
    public var partitionWriteAttempts: Int = 8
    /// Options of the built-in file, for swift-msal's own tests (fault injection, limits); its
    /// `lockTimeout` is replaced by ``fileLockTimeout``. `nil`: the defaults.
    package var fileOptions: TokenCacheFileOptions? = nil
    /// MSAL for iOS's keychain access group, kept only so that it reads back as set (see
    /// `keychainSharingGroup` in `MSALCacheConfig+Apple.swift`); nothing reads it on Linux.
    var storedKeychainSharingGroup = MSALCacheConfig.iOSDefaultKeychainSharingGroup
    /// The app's own account stores that a ``MSALPublicClientApplication`` keeps in step with its
    /// cache and merges into its account lists, in the order they were added (see
    /// ``MSALExternalAccountProviding``). Default: none.
    ///
    /// The application uses the providers the configuration had when it was created; other clients
    /// (confidential, managed identity) do not use them.
    public private(set) var externalAccountProviders: [any MSALExternalAccountProviding] = []

    /// Creates a configuration.
    public init(storage: Storage = .file(path: nil), fileLockTimeout: Double = 10) {
        self.storage = storage
        self.fileLockTimeout = fileLockTimeout
    }

    /// A cache in memory only (tests, short-lived tools).
    public static var memory: MSALCacheConfig { MSALCacheConfig(storage: .memory) }

    /// Adds an app's own account store after those already added (see
    /// ``externalAccountProviders``).
    ///
    /// As in MSAL for iOS, where the configuration is a class, an app writes
    /// `config.cacheConfig.addExternalAccountProvider(provider)` before creating the application.
    public mutating func addExternalAccountProvider(_ externalAccountProvider: any MSALExternalAccountProviding) {
        externalAccountProviders.append(externalAccountProvider)
    }
}
