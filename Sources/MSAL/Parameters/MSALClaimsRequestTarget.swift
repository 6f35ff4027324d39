/// The token that an ``MSALClaimsRequest`` asks a claim to appear in.
///
/// The cases and raw values are MSAL for iOS's. OpenID Connect also defines a `userinfo` member
/// for claims requests; like MSAL for iOS, swift-msal does not support it.
public enum MSALClaimsRequestTarget: UInt, Sendable, Hashable, CaseIterable {
    /// The ID token: the `id_token` member of the claims request.
    case idToken = 0
    /// The access token: the `access_token` member of the claims request.
    case accessToken = 1

    /// The name of the claims request's member for this token.
    package var memberName: String {
        switch self {
        case .idToken: "id_token"
        case .accessToken: "access_token"
        }
    }

    /// The target whose member is named `memberName`, or `nil` for any other name (`userinfo` among them).
    package init?(memberName: String) {
        switch memberName {
        case "id_token": self = .idToken
        case "access_token": self = .accessToken
        default: return nil
        }
    }
}
