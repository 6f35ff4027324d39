/// `extraDeviceInformation` key: the username of the device's primary registration's owner.
/// MSAL for iOS reads it from its broker; swift-msal never sets it on Linux.
public let MSAL_PRIMARY_REGISTRATION_UPN = "primary_registration_metadata_upn"
/// `extraDeviceInformation` key: the device id of the primary registration. Never set on Linux.
public let MSAL_PRIMARY_REGISTRATION_DEVICE_ID = "primary_registration_metadata_device_id"
/// `extraDeviceInformation` key: the tenant id of the primary registration. Never set on Linux.
public let MSAL_PRIMARY_REGISTRATION_TENANT_ID = "primary_registration_metadata_tenant_id"
/// `extraDeviceInformation` key: the cloud host of the primary registration. Never set on Linux.
public let MSAL_PRIMARY_REGISTRATION_CLOUD = "primary_registration_metadata_cloud_host"
/// `extraDeviceInformation` key: the thumbprint of the primary registration's certificate. Never
/// set on Linux.
public let MSAL_PRIMARY_REGISTRATION_CERTIFICATE_THUMBPRINT = "primary_registration_metadata_certificate_thumbprint"

/// `extraDeviceInformation` key: the version of Microsoft's Linux identity broker
/// (`getLinuxBrokerVersion`), set when the application uses it
/// (``MSALPublicClientApplicationConfig/linuxBroker``) and it answered. A swift-msal addition.
public let MSAL_LINUX_BROKER_VERSION = "linux_broker_version"

/// What MSAL knows about the device (MSAL for iOS's `MSALDeviceInformation`), from
/// ``MSALPublicClientApplication/getDeviceInformation(with:completionBlock:)``.
///
/// MSAL for iOS reads it from its broker (Microsoft Authenticator, Company Portal or the
/// Enterprise SSO extension). On Linux it reports what MSAL for iOS reports on a device without
/// those: ``MSALDeviceMode/default``, ``MSALPreferredAuthMethod/none``, no SSO extension; and, when
/// the application uses Microsoft's Linux identity broker and it answers, the broker's version under
/// ``MSAL_LINUX_BROKER_VERSION``.
public final class MSALDeviceInformation: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let`; `extraDeviceInformation` is typed
    // `[AnyHashable: Any]` as MSAL for iOS's untyped dictionary imports, and swift-msal puts only
    // strings in it, which are Sendable.

    /// How an administrator configured the device: always ``MSALDeviceMode/default`` on Linux.
    public let deviceMode: MSALDeviceMode
    /// The authentication method an administrator prefers: always ``MSALPreferredAuthMethod/none``
    /// on Linux.
    public let configuredPreferredAuthMethod: MSALPreferredAuthMethod
    /// Whether Apple's Enterprise SSO extension for Microsoft Entra ID is on the device: always
    /// `false` on Linux.
    public let hasAADSSOExtension: Bool
    /// More about the device, under keys such as ``MSAL_PRIMARY_REGISTRATION_UPN``: on Linux only
    /// ``MSAL_LINUX_BROKER_VERSION``, when a broker answered.
    public let extraDeviceInformation: [AnyHashable: Any]

    /// The information of a device without a broker.
    package init() {
        deviceMode = .default
        configuredPreferredAuthMethod = .none
        hasAADSSOExtension = false
        extraDeviceInformation = [:]
    }

    /// The information of a device whose Linux identity broker answered with `linuxBrokerVersion`.
    package init(linuxBrokerVersion: String) {
        deviceMode = .default
        configuredPreferredAuthMethod = .none
        hasAADSSOExtension = false
        extraDeviceInformation = [MSAL_LINUX_BROKER_VERSION: linuxBrokerVersion]
    }
}
