/// Where MSAL for iOS finds the caches of partner apps that it wipes with its own when the user
/// signs out of every account (MSAL for iOS's `MSALWipeCacheForAllAccountsConfig`).
///
/// Those locations are Apple keychain items, which Linux does not have; the type exists so that
/// code written for MSAL for iOS compiles, and lists no location.
public final class MSALWipeCacheForAllAccountsConfig: Sendable {
    /// The partner caches to wipe, by display name, each with the keychain attributes that find it.
    ///
    /// Kept so that code written for MSAL for iOS compiles: always empty on Linux, which has no
    /// keychain; swift-msal's wipe covers its own cache only.
    @available(*, deprecated, message: "No keychain on Linux: always empty")
    public static func additionalPartnerLocations() -> [String: [AnyHashable: Any]] {
        [:]
    }

    /// Creates the configuration. MSAL for iOS inherits this initializer from `NSObject`; kept so
    /// that code written for it compiles.
    @available(*, deprecated, message: "No keychain on Linux: there are no partner caches to wipe")
    public init() {}
}
