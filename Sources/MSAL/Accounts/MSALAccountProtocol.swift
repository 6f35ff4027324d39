/// What every account exposes, whether it comes from swift-msal's cache (``MSALAccount``) or from
/// an app's own account store (an ``MSALExternalAccountProviding``): MSAL for iOS's
/// `@protocol MSALAccount`, which Swift names `MSALAccountProtocol` because a class has the same
/// name.
///
/// An app implements it for the accounts its external account provider returns from
/// ``MSALExternalAccountProviding/accounts(with:)``; swift-msal turns each into an ``MSALAccount``
/// before handing it to the app.
public protocol MSALAccountProtocol {
    /// The name the user signs in with, such as `adele@contoso.com` (the `preferred_username`
    /// claim for Microsoft Entra ID); `nil` when the identity provider gave none.
    var username: String? { get }

    /// The account's home account id (`<objectId>.<tenantId>` for Microsoft Entra ID): the key
    /// to find the account again later, and what tells two accounts apart.
    var identifier: String? { get }

    /// The host of the cloud the account belongs to, such as `login.microsoftonline.com`.
    var environment: String { get }

    /// The claims of the account's ID token from its home tenant, when there is one; values
    /// are `Sendable` (MSAL for iOS types them `Any`).
    var accountClaims: [String: any Sendable]? { get }

    /// The account's presence in each tenant it signed in to; `nil` when unknown.
    var tenantProfiles: [MSALTenantProfile]? { get }

    /// The parts of ``identifier``: object id and tenant id in the home tenant.
    var homeAccountId: MSALAccountId? { get }

    /// Whether MSAL for iOS's Enterprise SSO extension uses the account for single sign-on
    /// across the device. Linux has no such extension: the default answer is `false`.
    @available(*, deprecated, message: "No SSO extension on Linux: always false unless the app says otherwise")
    var isSSOAccount: Bool { get }
}

extension MSALAccountProtocol {
    /// `false`: Linux has no SSO extension, so an account of an app's own store is never
    /// used for device-wide single sign-on unless its type says so.
    @available(*, deprecated, message: "No SSO extension on Linux: always false unless the app says otherwise")
    public var isSSOAccount: Bool { false }
}
