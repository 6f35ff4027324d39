import MSALJSON

/// Merges an app's claims request with its client capabilities, as the other MSALs do: the
/// capabilities become `access_token.xms_cc.values`, every other member of the request is kept.
package enum ClaimsMerging {
    /// The `claims` parameter to send, or `nil` when there is neither a request nor a capability.
    ///
    /// A merged request is written as compact JSON (members in the request's order, `xms_cc`
    /// last in `access_token`), the form MSAL for .NET, Python and Node send, so the value does
    /// not depend on the app's whitespace. Without capabilities the request is sent as given.
    ///
    /// `claims` was validated as a JSON object when the ``MSALClaimsRequest`` was made; text that
    /// does not parse here is sent unchanged rather than dropped.
    package static func merged(claims: String?, capabilities: [String]?) -> String? {
        // Neither claims nor capabilities (every plain silent request): nothing to build.
        if claims?.isEmpty ?? true, capabilities?.allSatisfy(\.isEmpty) ?? true { return nil }
        let capabilities = (capabilities ?? []).filter { !$0.isEmpty }
        let capabilityMember = JSONMember(name: "xms_cc", value: .object(["values": .array(capabilities.map(JSON.string))]))
        guard let claims, !claims.isEmpty else {
            return capabilities.isEmpty
                ? nil : JSONWriter.string(.object([JSONMember(name: "access_token", value: .object([capabilityMember]))]))
        }
        guard !capabilities.isEmpty else { return claims }
        guard let document = try? JSONDocument(parsing: Array(claims.utf8), limits: .document), document.root.kind == .object,
            case .object(var members) = JSON(document.root)
        else {
            return claims
        }
        if let index = members.firstIndex(where: { $0.name == "access_token" }) {
            if case .object(var inner) = members[index].value {
                inner.removeAll { $0.name == "xms_cc" }
                inner.append(capabilityMember)
                members[index].value = .object(inner)
            } else {
                // Not an object: replaced by the capabilities, as a request cannot hold two.
                members[index].value = .object([capabilityMember])
            }
        } else {
            members.insert(JSONMember(name: "access_token", value: .object([capabilityMember])), at: 0)
        }
        return JSONWriter.string(.object(members))
    }
}
