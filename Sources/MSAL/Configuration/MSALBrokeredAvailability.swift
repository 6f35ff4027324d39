/// Whether MSAL for iOS may sign in through Microsoft Authenticator as a broker (MSAL for iOS's
/// `MSALBrokeredAvailability`), with its raw values.
///
/// It exists only so that code written for MSAL for iOS compiles: there is no Microsoft
/// Authenticator on Linux, so ``MSALGlobalConfig/brokerAvailability`` always reads ``none``.
/// Microsoft's Linux identity broker is opted into per application, with
/// ``MSALPublicClientApplicationConfig/linuxBroker``.
public enum MSALBrokeredAvailability: Int, Sendable, Hashable, CaseIterable {
    /// Use the broker when it is installed (MSAL for iOS's default). No broker exists on Linux.
    case auto = 0
    /// Never use a broker: what Linux always does.
    case none = 1
}
