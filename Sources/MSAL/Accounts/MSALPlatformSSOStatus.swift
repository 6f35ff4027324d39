/// The state of macOS Platform SSO on the device (MSAL for iOS's `MSALPlatformSSOStatus`), with
/// its raw values.
///
/// It exists only so that code written for MSAL for iOS and macOS compiles: Linux has no Platform
/// SSO, so ``MSALDeviceInformation/platformSSOStatus`` is always ``notEnabled``.
public enum MSALPlatformSSOStatus: UInt, Sendable, Hashable, CaseIterable {
    /// Platform SSO is not configured: always the case on Linux.
    case notEnabled = 0
    /// Platform SSO is configured but the device is not registered. Never reported on Linux.
    case enabledNotRegistered = 1
    /// Platform SSO is configured and the device is registered. Never reported on Linux.
    case enabledAndRegistered = 2
    /// The Platform SSO registration must be repaired. Never reported on Linux.
    case registrationNeedsRepair = 3
}
