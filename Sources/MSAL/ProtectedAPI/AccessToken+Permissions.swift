import Foundation
import MSALJOSE

extension AccessToken {
    /// Checks that the token grants what an API operation requires: at least one of `scopes` as a
    /// delegated permission (`scp`), or at least one of `roles` as an application permission or
    /// app role (`roles`). Empty lists require nothing of that kind; both empty require nothing.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/insufficientPermission``; its
    ///   ``MSALFailure/declinedScopes`` lists what was required, for the `scope` of the challenge.
    public func require(scopes: [String] = [], roles: [String] = []) throws {
        guard !scopes.isEmpty || !roles.isEmpty else { return }
        // Read in place: an API calls this for every request, and a token grants a few permissions.
        if !scopes.isEmpty, let granted = jwt.stringClaim("scp") ?? jwt.stringClaim("scope"),
            scopes.contains(where: { Self.spaceSeparated(granted, contains: $0) })
        {
            return
        }
        if !roles.isEmpty {
            let grantedRoles = self.roles
            if roles.contains(where: grantedRoles.contains) { return }
        }
        var wanted: [String] = []
        if !scopes.isEmpty { wanted.append("one of the scopes \(scopes.joined(separator: ", "))") }
        if !roles.isEmpty { wanted.append("one of the roles \(roles.joined(separator: ", "))") }
        var error = MSALFailure(
            .internal, internalCode: .insufficientPermission,
            message: "The access token does not grant \(wanted.joined(separator: " or "))")
        error.declinedScopes = scopes + roles
        throw error
    }

    /// Whether the space-separated `list` (an `scp` claim) holds `item` (not empty) as one of its items.
    static func spaceSeparated(_ list: String, contains item: String) -> Bool {
        let list = list.utf8
        guard !item.isEmpty else { return false }
        var start = list.startIndex
        while start < list.endIndex {
            let end = list[start...].firstIndex(of: UInt8(ascii: " ")) ?? list.endIndex
            if list[start..<end].elementsEqual(item.utf8) { return true }
            start = end == list.endIndex ? end : list.index(after: end)
        }
        return false
    }
}
