/// How much personal data log messages may show. Raw values are MSAL for iOS's.
///
/// Personal data falls in two classes:
/// - EUII, end-user identifiable information: usernames, display names, email addresses.
/// - OII and pseudonymous identifiers: home account ids, object ids, tenant ids, tenant profiles.
///
/// Secrets (tokens, authorization and device codes, PKCE verifiers, client assertions) are
/// never logged at any level.
public enum MSALLogMaskingLevel: Int, Sendable, CaseIterable, Hashable {
    /// Masks all personal data, EUII and OII alike. The default.
    case settingsMaskAllPII = 0
    /// Shows OII and pseudonymous identifiers; masks EUII.
    case settingsMaskEUIIOnly = 1
    /// Shows all personal data; hides only secrets, which are never logged anyway.
    case settingsMaskSecretsOnly = 2

    /// Whether OII (account, object and tenant ids) is shown.
    package var showsOII: Bool { self != .settingsMaskAllPII }

    /// Whether EUII (usernames, names, email addresses) is shown.
    package var showsEUII: Bool { self == .settingsMaskSecretsOnly }
}
