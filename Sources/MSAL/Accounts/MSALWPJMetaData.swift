/// What MSAL for iOS knows of the device's workplace-join registration for a tenant (MSAL for iOS's
/// `MSALWPJMetaData`), from
/// ``MSALPublicClientApplication/getWPJMetaDataDevice(with:forTenantId:completionBlock:)``.
///
/// MSAL for iOS reads the registration from the Apple keychain. Linux has neither that keychain
/// nor workplace join, so swift-msal reports what MSAL for iOS reports for a device that is not
/// registered: no information.
public final class MSALWPJMetaData: Sendable {
    /// Information about the registration, under keys such as ``MSAL_PRIMARY_REGISTRATION_UPN``:
    /// always empty on Linux.
    public var extraDeviceInformation: [AnyHashable: Any] { [:] }

    /// Creates the metadata of a device that is not registered.
    ///
    /// MSAL for iOS inherits this initializer from `NSObject`; kept so that code written for it
    /// compiles. The object is always empty on Linux.
    @available(*, deprecated, message: "No workplace join on Linux: the metadata is always empty")
    public convenience init() {
        self.init(unregisteredDevice: ())
    }

    /// The metadata of a device without workplace-join registration, which every Linux device is.
    package init(unregisteredDevice: Void) {}
}
