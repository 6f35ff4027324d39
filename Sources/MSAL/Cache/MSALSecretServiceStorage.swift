/// How a token cache is kept in the Secret Service (GNOME Keyring, KWallet, KeePassXC) over D-Bus,
/// through libsecret: the item, the signal file beside it, and what to do when there is no Secret Service.
///
/// The defaults are those of msal-extensions' `LibsecretPersistence` (MSAL for Python), so an app of
/// either library that names the same signal file shares one item: the schema name is the SHA-256
/// (lowercase hex) of the signal file's path as given, there are no other attributes, and the label
/// is empty. See `docs/cache-persistence.md`.
public struct MSALSecretServiceStorage: Sendable {
    /// What happens when no Secret Service can be used (no D-Bus session, no keyring daemon, a
    /// locked keyring that cannot be unlocked, libsecret not installed). Decided once, at the cache's
    /// first use; a fallback is logged at warning level.
    public enum Fallback: Sendable, Equatable {
        /// Every cache operation fails with ``MSALInternalError/cacheSecretServiceUnavailable``
        /// (the default: tokens are never written anywhere less protected without the app's say).
        case fail
        /// The cache lives in this process's memory only.
        case memory
        /// The cache lives in the 0600 file at `path` (`nil`: the default cache file location).
        case file(path: String?)
    }

    /// The signal file: empty, touched after every write so other processes notice the change, and
    /// the base of the lock files (`<path>.lock`, and msal-extensions' `<path>.lockfile`). An absolute
    /// path, or one starting with `~/` (the home directory). `nil`: `token_cache.signal` beside the
    /// default cache file, `$XDG_CACHE_HOME/msal/` or `~/.cache/msal/`.
    public var signalFilePath: String?
    /// The schema name (`xdg:schema`); `nil`: the SHA-256 in lowercase hex of ``signalFilePath``
    /// exactly as given (msal-extensions hashes the path before expanding `~`).
    public var schemaName: String?
    /// The item's attributes besides the schema name (msal-extensions' default: none).
    public var attributes: [String: String]
    /// The item's label in keyring managers (msal-extensions' default: empty).
    public var label: String
    /// What to do without a Secret Service. Default ``Fallback/fail``.
    public var fallback: Fallback
    /// How long, in seconds, each D-Bus step (connecting to the session bus and authenticating,
    /// then each call: reading, storing or removing the item, asking whether the keyring is locked)
    /// may take before it is given up with ``MSALInternalError/cacheSecretServiceUnavailable`` (and
    /// the ``fallback``, when the storage is being chosen). Default 25, GDBus's own default for one
    /// call: long enough to type a keyring password at an unlock prompt, which counts against it. A
    /// session bus or keyring daemon that accepts the connection and then never answers (a stopped
    /// or hung process) no longer hangs the app. A step given up after its request was sent may
    /// still be carried out by the daemon when it resumes.
    public var operationTimeout: Double = 25
    /// The libsecret library to load, for swift-msal's own tests (a name that does not exist
    /// stands for a machine without libsecret).
    package var librarySoname: String = LibSecret.soname

    /// Creates Secret Service storage settings; every default is msal-extensions'.
    ///
    /// - Parameters:
    ///   - signalFilePath: The signal file (see ``signalFilePath``); `nil` for the default.
    ///   - schemaName: The schema name; `nil` for the hash of the signal file's path.
    ///   - attributes: Attributes besides the schema name.
    ///   - label: The item's label.
    ///   - fallback: What to do without a Secret Service.
    ///   - operationTimeout: Seconds each D-Bus step may take (see ``operationTimeout``).
    public init(
        signalFilePath: String? = nil, schemaName: String? = nil, attributes: [String: String] = [:], label: String = "",
        fallback: Fallback = .fail, operationTimeout: Double = 25
    ) {
        self.signalFilePath = signalFilePath
        self.schemaName = schemaName
        self.attributes = attributes
        self.label = label
        self.fallback = fallback
        self.operationTimeout = operationTimeout
    }
}
