/// An `acquireTokenSilent` request as ``CacheHitMemo`` tells requests apart: the account object
/// itself (the result is built from its tenant profiles, so another object with the same identifier
/// is another key), the authority the parameters named (`nil` for the configuration's), and the
/// scopes exactly as the parameters gave them.
package struct SilentHitKey: Hashable, Sendable {
    let account: MSALAccount
    let authority: MSALAuthority?
    let scopes: [String]

    package init(account: MSALAccount, authority: MSALAuthority?, scopes: [String]) {
        self.account = account
        self.authority = authority
        self.scopes = scopes
    }

    package static func == (lhs: SilentHitKey, rhs: SilentHitKey) -> Bool {
        guard lhs.account === rhs.account, lhs.scopes == rhs.scopes else { return false }
        switch (lhs.authority, rhs.authority) {
        case (nil, nil): return true
        case (let left?, let right?): return left === right || left == right
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(account))
        hasher.combine(authority)
        hasher.combine(scopes)
    }
}
