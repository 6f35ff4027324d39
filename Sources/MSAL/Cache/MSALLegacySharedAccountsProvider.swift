import MSALSupport

/// MSAL for iOS's reader of the legacy Microsoft account storage that apps shared through the iOS
/// keychain (MSAL for iOS's `MSALLegacySharedAccountsProvider`).
///
/// Linux has no iOS keychain, so there are no such accounts to read; the type exists so that code
/// written for MSAL for iOS compiles. As in MSAL for iOS it is an ``MSALExternalAccountProviding``
/// that can be added to the cache configuration; on Linux it lists no account and stores nothing.
public final class MSALLegacySharedAccountsProvider: Sendable {
    private let mode = Mutex(MSALLegacySharedAccountMode.readOnly)

    /// Whether the provider may write and remove shared accounts. Default
    /// ``MSALLegacySharedAccountMode/readOnly``.
    ///
    /// Reads back as set; nothing reads it on Linux.
    public var sharedAccountMode: MSALLegacySharedAccountMode {
        get { mode.withLock { $0 } }
        set { mode.withLock { $0 = newValue } }
    }

    /// Creates a provider for the accounts that apps share in a keychain access group.
    ///
    /// Kept so that code written for MSAL for iOS compiles; on Linux the arguments are not kept and
    /// the provider never finds an account.
    ///
    /// - Parameters:
    ///   - sharedKeychainAccessGroup: The keychain access group of the shared accounts.
    ///   - serviceIdentifier: The keychain service of the shared accounts' item.
    ///   - applicationIdentifier: The app's name, for logs and storage.
    @available(*, deprecated, message: "No iOS keychain on Linux: there are no legacy shared accounts")
    public init(sharedKeychainAccessGroup: String, serviceIdentifier: String, applicationIdentifier: String) {}
}
