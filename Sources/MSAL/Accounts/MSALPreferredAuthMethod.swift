/// The authentication method an administrator prefers for the device (MSAL for iOS's
/// `MSALPreferredAuthMethod`), reported in ``MSALDeviceInformation/configuredPreferredAuthMethod``.
///
/// On Linux there is no broker to report one, so it is always ``none``.
public enum MSALPreferredAuthMethod: UInt, Sendable, Hashable, CaseIterable {
    /// No preferred method.
    case none = 0
    /// QR code and PIN. Never reported on Linux.
    case qrpin = 1
}
