/// The sections of the unified cache document that swift-msal understands.
package enum CacheSection: Int, Sendable, CaseIterable {
    case accessToken, refreshToken, idToken, account, appMetadata

    /// The member name of the section in the document.
    package var name: String {
        switch self {
        case .accessToken: "AccessToken"
        case .refreshToken: "RefreshToken"
        case .idToken: "IdToken"
        case .account: "Account"
        case .appMetadata: "AppMetadata"
        }
    }

    /// The section named `name`, compared exactly.
    package init?(name: String) {
        guard let section = CacheSection.allCases.first(where: { $0.name == name }) else { return nil }
        self = section
    }

    /// The `credential_type` value of the credential sections.
    package var credentialType: String? {
        switch self {
        case .accessToken: "AccessToken"
        case .refreshToken: "RefreshToken"
        case .idToken: "IdToken"
        case .account, .appMetadata: nil
        }
    }
}
