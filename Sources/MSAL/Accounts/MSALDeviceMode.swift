/// How an administrator configured the device (MSAL for iOS's `MSALDeviceMode`).
///
/// On Linux there is no device management for swift-msal to read, so a device is always
/// ``default``.
public enum MSALDeviceMode: UInt, Sendable, Hashable, CaseIterable {
    /// The device is not configured into any mode.
    case `default` = 0
    /// A device shared by several workers, who sign in and out in turn. Never reported on Linux.
    case shared = 1
}
