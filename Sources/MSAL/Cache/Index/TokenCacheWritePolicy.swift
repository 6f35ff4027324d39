/// How entries are written where the MSAL libraries differ. The default is MSAL for iOS/.NET's
/// form; the others exist so the conformance tests can reproduce each library's vectors exactly.
package struct TokenCacheWritePolicy: Sendable, Equatable {
    /// Where an entry's `realm` comes from.
    package enum RealmSource: Sendable, Equatable {
        /// The ID token's `tid`, else the authority's tenant segment (MSAL for iOS, .NET).
        case idTokenTenant
        /// Always the authority's tenant segment, `common` included (MSAL for Python, Java).
        case authorityTenant
    }

    /// How the scopes of `target` are ordered.
    package enum TargetOrder: Sendable, Equatable {
        /// Sorted without regard to case (MSAL for iOS, .NET, Python).
        case sorted
        /// As the server returned them (MSAL for Java).
        case asGranted
    }

    package var realmSource: RealmSource = .idTokenTenant
    package var targetOrder: TargetOrder = .sorted
    /// Whether refresh tokens carry `target` (and it ends their key), as MSAL for Python writes them.
    package var refreshTokenTarget: Bool = false

    package init(realmSource: RealmSource = .idTokenTenant, targetOrder: TargetOrder = .sorted, refreshTokenTarget: Bool = false) {
        self.realmSource = realmSource
        self.targetOrder = targetOrder
        self.refreshTokenTarget = refreshTokenTarget
    }

    /// MSAL for iOS and .NET.
    package static let `default` = TokenCacheWritePolicy()
}
