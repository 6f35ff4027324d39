/// The parameters of ``MSALPublicClientApplication/getDeviceToken(with:completionBlock:)`` (MSAL
/// for iOS's `MSALDeviceTokenParameters`): a token for the device rather than a user.
///
/// MSAL for iOS gets device tokens with the device's workplace-join registration, through its
/// broker. Linux has neither, so a request with these parameters always fails with
/// ``MSALInternalError/internalBrokerNotAvailable``; the type exists so that code written for
/// MSAL for iOS compiles.
public final class MSALDeviceTokenParameters: MSALTokenParameters, @unchecked Sendable {
    // @unchecked Sendable: the two stored properties added here are `let`s of Sendable types; the
    // rest is MSALTokenParameters' (see there).

    /// The tenant whose registration the device token is for.
    public let tenantId: String?
    /// The resource the device token is for.
    public let resource: String

    /// Creates parameters for a device token for `resource` in `tenantId`.
    ///
    /// - Parameters:
    ///   - resource: The resource the token is for.
    ///   - scopes: The scopes to request, or `nil` for none.
    ///   - tenantId: The tenant whose registration the token is for.
    @available(*, deprecated, message: "No broker on Linux: a device token request always fails")
    public init(resource: String, scopes: [String]?, forTenantId tenantId: String) {
        self.resource = resource
        self.tenantId = tenantId
        super.init(scopes: scopes ?? [])
    }
}
