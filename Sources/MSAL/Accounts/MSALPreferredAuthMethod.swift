/// The authentication method an administrator prefers for the device (MSAL for iOS's
/// `MSALPreferredAuthMethod`), reported in ``MSALDeviceInformation/configuredPreferredAuthMethod``.
///
/// Also the method an interactive request asks the sign-in page to offer first
/// (``MSALInteractiveTokenParameters/preferredAuthMethod``). There is no broker on Linux to report
/// an administrator's choice, so ``MSALDeviceInformation/configuredPreferredAuthMethod`` is always
/// ``none``.
public enum MSALPreferredAuthMethod: UInt, Sendable, Hashable, CaseIterable {
    /// No preferred method.
    case none = 0
    /// QR code and PIN (the name Swift gives MSAL for iOS's `MSALPreferredAuthMethodQRPIN`).
    case QRPIN = 1
}

extension MSALPreferredAuthMethod {
    /// The authorization request's extra parameters with this method's: `pc=18` for
    /// ``QRPIN``, as MSAL for iOS sends it; nothing for ``none``. The app's own `pc`, if any, wins.
    package func authorizeParameters(_ extra: [String: String]?) -> [String: String]? {
        guard self == .QRPIN else { return extra }
        return ["pc": "18"].merging(extra ?? [:]) { _, own in own }
    }
}
