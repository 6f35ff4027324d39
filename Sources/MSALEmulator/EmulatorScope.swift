/// A `scope` parameter split into OpenID Connect scopes and one resource's permissions.
struct EmulatorScope: Sendable, Hashable {
    /// `openid`, `profile`, `email` and `offline_access` as requested, lower-cased.
    var openIDScopes: [String]
    /// The other scopes, as written.
    var resourceScopes: [String]
    /// The resource the access token is for (its `aud`).
    var resource: String
    /// The permissions for `scp`.
    var permissions: [String]

    static let openIDNames: Set<String> = ["openid", "profile", "email", "offline_access"]

    var includesOpenID: Bool { openIDScopes.contains("openid") }
    var includesOfflineAccess: Bool { openIDScopes.contains("offline_access") }

    /// The `scope` of the token response: the resource's scopes (Graph's `User.Read` when none was
    /// asked for), then the OpenID Connect scopes other than `offline_access`.
    var granted: String {
        let resourcePart = resourceScopes.isEmpty ? ["User.Read"] : resourceScopes
        return (resourcePart + openIDScopes.filter { $0 != "offline_access" }).joined(separator: " ")
    }

    /// Parses `text`.
    ///
    /// - Throws: `invalid_scope` for a scope that is too long, has control characters, names no
    ///   permission, or a request for more than one resource.
    static func parse(_ text: String) throws(EmulatorOAuthError) -> EmulatorScope {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !parts.isEmpty else { throw .missing("scope") }
        guard parts.count <= 64 else { throw invalid("more than 64 scopes were requested") }
        var openID: [String] = []
        var resourceScopes: [String] = []
        var resource: String?
        var permissions: [String] = []
        for part in parts {
            guard part.utf8.count <= 512, part.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw invalid("a scope is longer than 512 bytes or has characters outside printable ASCII")
            }
            let folded = part.lowercased()
            if openIDNames.contains(folded) {
                if !openID.contains(folded) { openID.append(folded) }
                continue
            }
            let (owner, permission): (String, String)
            if let slash = part.lastIndex(of: "/") {
                owner = String(part[..<slash])
                permission = String(part[part.index(after: slash)...])
            } else {
                owner = MSALEmulator.graphResource
                permission = part
            }
            guard !owner.isEmpty, !permission.isEmpty, !owner.hasSuffix("/") else {
                throw invalid("the scope '\(EmulatorText.sanitized(part, limit: 64))' names no permission or no resource")
            }
            if let resource, resource.lowercased() != owner.lowercased() {
                throw EmulatorOAuthError(
                    "invalid_scope", 28000,
                    "Provided value for the input parameter scope is not valid because it contains more than one resource. Scope \(EmulatorText.sanitized(text, limit: 256)) is not valid."
                )
            }
            resource = owner
            if !resourceScopes.contains(part) { resourceScopes.append(part) }
            let scp = permission == ".default" ? "user_impersonation" : permission
            if !permissions.contains(scp) { permissions.append(scp) }
        }
        return EmulatorScope(
            openIDScopes: openID, resourceScopes: resourceScopes, resource: resource ?? MSALEmulator.graphResource,
            permissions: permissions.isEmpty ? ["User.Read"] : permissions)
    }

    private static func invalid(_ reason: String) -> EmulatorOAuthError {
        EmulatorOAuthError("invalid_scope", 70011, "The provided value for the input parameter 'scope' is not valid: \(reason).")
    }
}
