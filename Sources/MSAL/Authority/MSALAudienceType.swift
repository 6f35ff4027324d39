/// Which accounts a Microsoft Entra authority signs in.
public enum MSALAudienceType: Int, Sendable, Hashable, CaseIterable {
    /// Work or school and personal Microsoft accounts: `/common`.
    case azureADAndPersonalMicrosoftAccountAudience
    /// Work or school accounts of any organization: `/organizations`.
    case azureADMultipleOrgsAudience
    /// Accounts of one organization: `/<tenant id or domain>`.
    case azureADMyOrgOnlyAudience
    /// Personal Microsoft accounts only: `/consumers`.
    case personalMicrosoftAccountAudience

    /// The tenant path segment of the multi-tenant audiences.
    package var tenantAlias: String? {
        switch self {
        case .azureADAndPersonalMicrosoftAccountAudience: "common"
        case .azureADMultipleOrgsAudience: "organizations"
        case .azureADMyOrgOnlyAudience: nil
        case .personalMicrosoftAccountAudience: "consumers"
        }
    }
}
