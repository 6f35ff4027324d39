/// An `acquireTokenForClient` request as ``CacheHitMemo`` tells requests apart: the authority (its
/// kind and canonical URL, as ``MSALAuthority`` compares them; the canonical tenant is the one the
/// lookup reads) and the scopes exactly as the parameters gave them.
package struct AppTokenHitKey: Hashable, Sendable {
    let authority: MSALAuthority
    let scopes: [String]

    package init(authority: MSALAuthority, scopes: [String]) {
        self.authority = authority
        self.scopes = scopes
    }

    package static func == (lhs: AppTokenHitKey, rhs: AppTokenHitKey) -> Bool {
        guard lhs.scopes == rhs.scopes else { return false }
        return lhs.authority === rhs.authority || lhs.authority == rhs.authority
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(authority)
        hasher.combine(scopes)
    }
}
