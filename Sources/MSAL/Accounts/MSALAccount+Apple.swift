extension MSALAccount {
    /// Whether MSAL for iOS's Enterprise SSO extension uses this account for single sign-on across
    /// the device.
    ///
    /// Kept so that code written for MSAL for iOS compiles: Linux has no SSO extension, so this is
    /// always `false`, as MSAL for iOS reports on a device without one.
    @available(*, deprecated, message: "No SSO extension on Linux: always false")
    public var isSSOAccount: Bool { false }
}
