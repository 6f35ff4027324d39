/// An app's own account store, kept in step with swift-msal's token cache, as MSAL for iOS's
/// `MSALExternalAccountProviding`.
///
/// Add one with ``MSALCacheConfig/addExternalAccountProvider(_:)`` before creating the
/// ``MSALPublicClientApplication``. Then, instead of copying accounts into its store after each
/// sign-in, the app is told:
///
/// - after every token obtained from the identity provider (interactive, a refresh or the device
///   code flow; never for a token answered from the cache), through
///   ``update(_:idTokenClaims:)``;
/// - when an account is removed or signed out, through ``remove(_:wipeAccount:tenantProfiles:)``;
/// - when the app lists accounts (``MSALPublicClientApplication/allAccounts()`` and the other
///   account lookups), through ``accounts(with:)``, whose accounts are merged with the cache's.
///
/// The methods are called one provider after another, in the order they were added, on one of
/// swift-msal's threads. A provider's error never fails the app's call: it is logged as a warning,
/// and the providers after it are not called for that event (as in MSAL for iOS).
public protocol MSALExternalAccountProviding: Sendable {
    /// Called when a token request got tokens from the identity provider, with the account they
    /// belong to and the claims of its ID token in the tenant of the request (empty when there is
    /// none).
    ///
    /// Objective-C: `updateAccount:idTokenClaims:error:`.
    ///
    /// - Throws: Any error, to report that the store was not updated; swift-msal logs it and the
    ///   token request still succeeds.
    func update(_ account: any MSALAccountProtocol, idTokenClaims: [AnyHashable: Any]) throws

    /// Called when an account is removed (``MSALPublicClientApplication/remove(_:)``) or signed out
    /// (``MSALPublicClientApplication/signout(with:signoutParameters:)``), after swift-msal removed
    /// its tokens.
    ///
    /// Objective-C: `removeAccount:wipeAccount:tenantProfiles:error:`.
    ///
    /// - Parameters:
    ///   - account: The account being removed.
    ///   - wipeAccount: `true` when the app asked for the account and everything related to it to
    ///     go (``MSALSignoutParameters/wipeAccount``); `false` for a plain removal.
    ///   - tenantProfiles: The account's tenant profiles, as the app passed the account.
    /// - Throws: Any error, to report that the store was not updated; swift-msal logs it and the
    ///   removal still succeeds.
    func remove(_ account: any MSALAccountProtocol, wipeAccount: Bool, tenantProfiles: [MSALTenantProfile]?) throws

    /// The store's accounts that match `parameters`, to be merged with the cache's when the app
    /// lists accounts.
    ///
    /// An account whose ``MSALAccountProtocol/identifier`` is that of a cached account adds its
    /// tenant and claims to it; any other is listed as an account of its own.
    ///
    /// Objective-C: `accountsWithParameters:error:`.
    ///
    /// - Throws: Any error, when the store cannot be read; swift-msal logs it and lists the cache's
    ///   accounts alone.
    func accounts(with parameters: MSALAccountEnumerationParameters) throws -> [any MSALAccountProtocol]
}
