extension MSALCacheConfig {
    /// MSAL for iOS's default keychain access group.
    static let iOSDefaultKeychainSharingGroup = "com.microsoft.adalcache"

    /// The keychain access group MSAL for iOS keeps its token cache in, which apps that share it
    /// declare in their entitlements. Default `com.microsoft.adalcache`, as in MSAL for iOS.
    ///
    /// Kept so that code written for MSAL for iOS compiles: the value reads back as set, but Linux
    /// has no keychain and nothing reads it. Apps share a cache on Linux by using the same
    /// ``Storage/file(path:)`` or the same ``Storage/secretService(_:)`` item.
    @available(*, deprecated, message: "No keychain on Linux: stored, never read; share the cache file or Secret Service item")
    public var keychainSharingGroup: String {
        get { storedKeychainSharingGroup }
        set { storedKeychainSharingGroup = newValue }
    }

    /// MSAL for iOS's default keychain access group, `com.microsoft.adalcache`.
    ///
    /// Kept so that code written for MSAL for iOS compiles; Linux has no keychain, so the group
    /// means nothing there (see ``keychainSharingGroup``).
    @available(*, deprecated, message: "No keychain on Linux: the group means nothing")
    public static func defaultKeychainSharingGroup() -> String {
        iOSDefaultKeychainSharingGroup
    }
}
