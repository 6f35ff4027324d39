import MSALJOSE

/// Merges an app's claims request with its client capabilities, as the other MSALs do: the
/// capabilities become `access_token.xms_cc.values`, every other member of the request is kept.
package enum ClaimsMerging {
    /// The `claims` parameter to send, or `nil` when there is neither a request nor a capability.
    ///
    /// `claims` was validated as a JSON object when the ``MSALClaimsRequest`` was made; text that
    /// does not parse here is sent unchanged rather than dropped.
    package static func merged(claims: String?, capabilities: [String]?) -> String? {
        let capabilities = (capabilities ?? []).filter { !$0.isEmpty }
        let capabilityMember = "\"xms_cc\":{\"values\":[" + capabilities.map(quoted).joined(separator: ",") + "]}"
        guard let claims, !claims.isEmpty else {
            return capabilities.isEmpty ? nil : "{\"access_token\":{\(capabilityMember)}}"
        }
        guard !capabilities.isEmpty else { return claims }
        guard let document = try? JSONDocument(parsing: Array(claims.utf8), limits: .document), document.root.kind == .object else {
            return claims
        }
        var members: [String] = []
        var sawAccessToken = false
        for (key, value) in document.root.members {
            let name = raw(key)
            if key.isString("access_token"), value.kind == .object {
                sawAccessToken = true
                var inner: [String] = []
                for (innerKey, innerValue) in value.members where !innerKey.isString("xms_cc") {
                    inner.append(raw(innerKey) + ":" + raw(innerValue))
                }
                inner.append(capabilityMember)
                members.append(name + ":{" + inner.joined(separator: ",") + "}")
            } else if key.isString("access_token") {
                // Not an object: replaced by the capabilities, as a request cannot hold two.
                sawAccessToken = true
                members.append(name + ":{\(capabilityMember)}")
            } else {
                members.append(name + ":" + raw(value))
            }
        }
        if !sawAccessToken { members.insert("\"access_token\":{\(capabilityMember)}", at: 0) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A value's JSON text as it appears in the document (strings with their quotes).
    private static func raw(_ value: JSONValue) -> String {
        let text = String(decoding: value.rawBytes, as: UTF8.self)
        return value.kind == .string ? "\"" + text + "\"" : text
    }

    private static func quoted(_ text: String) -> String {
        JSONWriter.string(.string(text))
    }
}
