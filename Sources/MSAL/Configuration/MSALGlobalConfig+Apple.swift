extension MSALGlobalConfig {
    /// Whether MSAL for iOS signs in through Microsoft Authenticator when it is installed.
    ///
    /// Kept so that code written for MSAL for iOS compiles. There is no broker on Linux, so this
    /// always reads ``MSALBrokeredAvailability/none``, whatever was set: setting it does nothing,
    /// and nothing is stored.
    @available(*, deprecated, message: "No broker on Linux: always .none")
    public static var brokerAvailability: MSALBrokeredAvailability {
        get { .none }
        set {}
    }
}
