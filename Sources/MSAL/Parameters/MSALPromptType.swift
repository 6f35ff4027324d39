/// What the sign-in page asks of the user (the OpenID Connect `prompt` parameter).
///
/// The cases and raw values are MSAL for iOS's (`MSALPromptType` in its `MSALDefinitions.h`), in
/// its order, and so is the default, ``promptIfNecessary``.
public enum MSALPromptType: Int, Sendable, CaseIterable, Hashable {
    /// Let the user pick an account, even when one is signed in (`prompt=select_account`).
    case selectAccount = 0
    /// Ask for credentials again (`prompt=login`).
    case login = 1
    /// Ask for consent again (`prompt=consent`).
    case consent = 2
    /// Offer to create an account (`prompt=create`).
    case create = 3
    /// No `prompt`: the service asks only for what it needs.
    case promptIfNecessary = 4

    /// MSAL for iOS's default, ``promptIfNecessary``.
    public static let `default` = MSALPromptType.promptIfNecessary

    /// The `prompt` value sent, or `nil` for none.
    package var parameterValue: String? {
        switch self {
        case .selectAccount: "select_account"
        case .login: "login"
        case .consent: "consent"
        case .promptIfNecessary: nil
        case .create: "create"
        }
    }
}
