extension MSALDeviceInformation {
    /// The state of Platform SSO on the device (macOS only in MSAL).
    ///
    /// Kept so that code written for MSAL for macOS compiles: Linux has no Platform SSO, so this is
    /// always ``MSALPlatformSSOStatus/notEnabled``.
    @available(*, deprecated, message: "No Platform SSO on Linux: always .notEnabled")
    public var platformSSOStatus: MSALPlatformSSOStatus { .notEnabled }
}
