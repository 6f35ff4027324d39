import Foundation
import MSALJOSE

extension AccessToken {
    /// Checks that the token grants what an API operation requires: at least one of `scopes` as a
    /// delegated permission (`scp`), or at least one of `roles` as an application permission or
    /// app role (`roles`). Empty lists require nothing of that kind; both empty require nothing.
    ///
    /// - Throws: ``MSALError`` with ``MSALInternalError/insufficientPermission``; its
    ///   ``MSALError/declinedScopes`` lists what was required, for the `scope` of the challenge.
    public func require(scopes: [String] = [], roles: [String] = []) throws {
        guard !scopes.isEmpty || !roles.isEmpty else { return }
        let granted = Set(self.scopes)
        let grantedRoles = Set(self.roles)
        if scopes.contains(where: granted.contains) || roles.contains(where: grantedRoles.contains) { return }
        var wanted: [String] = []
        if !scopes.isEmpty { wanted.append("one of the scopes \(scopes.joined(separator: ", "))") }
        if !roles.isEmpty { wanted.append("one of the roles \(roles.joined(separator: ", "))") }
        var error = MSALError(
            .internal, internalCode: .insufficientPermission,
            message: "The access token does not grant \(wanted.joined(separator: " or "))")
        error.declinedScopes = scopes + roles
        throw error
    }
}
