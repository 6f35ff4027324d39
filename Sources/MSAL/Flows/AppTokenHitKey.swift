/// An `acquireTokenForClient` request as ``CacheHitMemo`` tells requests apart: the authority (its
/// kind and canonical URL, as ``MSALAuthority`` compares them; the canonical tenant is the one the
/// lookup reads), the scopes exactly as the parameters gave them, and the extra body fields (the
/// FMI path and extra parameters, ``RequestBodyExtras/identity``) that key the token apart.
package struct AppTokenHitKey: Hashable, Sendable {
    let authority: MSALAuthority
    let scopes: [String]
    let extras: [String: String]

    package init(authority: MSALAuthority, scopes: [String], extras: [String: String] = [:]) {
        self.authority = authority
        self.scopes = scopes
        self.extras = extras
    }

    package static func == (lhs: AppTokenHitKey, rhs: AppTokenHitKey) -> Bool {
        guard lhs.scopes == rhs.scopes, lhs.extras == rhs.extras else { return false }
        return lhs.authority === rhs.authority || lhs.authority == rhs.authority
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(authority)
        hasher.combine(scopes)
        if !extras.isEmpty { hasher.combine(extras) }
    }
}
