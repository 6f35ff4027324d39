extension MSALSilentTokenParameters {
    /// Whether MSAL for iOS falls back to the cached refresh token when its Enterprise SSO extension
    /// fails to return a token. Default `true` in MSAL for iOS.
    ///
    /// Kept so that code written for MSAL for iOS compiles. Linux has no SSO extension, so a silent
    /// request always uses the cached refresh token, as MSAL for iOS does on a device without one:
    /// this always reads `true`, whatever was set, and setting it does nothing.
    @available(*, deprecated, message: "No SSO extension on Linux: always true, the cached refresh token is always used")
    public var allowUsingLocalCachedRtWhenSsoExtFailed: Bool {
        get { true }
        set {}
    }
}
