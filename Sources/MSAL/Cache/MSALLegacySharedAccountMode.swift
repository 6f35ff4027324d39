/// Whether an ``MSALLegacySharedAccountsProvider`` may change the accounts it shares (MSAL for
/// iOS's `MSALLegacySharedAccountMode`), with its raw values.
///
/// It exists only so that code written for MSAL for iOS compiles: the legacy account storage it
/// governs is in the iOS keychain, which Linux does not have, so the mode changes nothing there.
public enum MSALLegacySharedAccountMode: Int, Sendable, Hashable, CaseIterable {
    /// Read the shared accounts only (MSAL for iOS's default). Changes nothing on Linux.
    case readOnly = 0
    /// Also write and remove shared accounts. Changes nothing on Linux.
    case readWrite = 1
}
