import Foundation

/// A token for the device rather than a user (MSAL for iOS's `MSALDeviceTokenResult`), from
/// ``MSALPublicClientApplication/getDeviceToken(with:completionBlock:)``.
///
/// MSAL for iOS gets one with the device's workplace-join registration, through its broker. Linux
/// has neither, so swift-msal never returns one; the type exists so that code written for MSAL for
/// iOS compiles.
public final class MSALDeviceTokenResult: Sendable {
    /// The access token.
    public let accessToken: String
    /// More about the device, as the token service returned it.
    public let deviceInformation: String?
    /// When the access token expires.
    public let expiresOn: Date?
    /// The scopes the access token grants.
    public let scopes: [String]
    /// The authority that issued the token.
    public let authority: MSALAuthority?

    /// Creates a result with the given values; swift-msal itself never creates one on Linux.
    @available(*, deprecated, message: "No device tokens on Linux: swift-msal never returns one")
    public init(accessToken: String, deviceInformation: String?, expiresOn: Date?, scopes: [String], authority: MSALAuthority?) {
        self.accessToken = accessToken
        self.deviceInformation = deviceInformation
        self.expiresOn = expiresOn
        self.scopes = scopes
        self.authority = authority
    }
}
