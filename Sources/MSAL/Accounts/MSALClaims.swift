import MSALJSON

/// Turns ID-token claims into Swift values for ``MSALAccount/accountClaims`` and ``MSALTenantProfile/claims``.
enum MSALClaims {
    /// The claims of `token` as a dictionary: strings, `Int64` for integers, `Double` for other
    /// numbers, `Bool`, `[any Sendable]` and nested dictionaries; JSON `null` members are left out.
    /// `nil` when the token cannot be read.
    static func dictionary(fromIDToken token: String) -> [String: any Sendable]? {
        guard let claims = try? TokenCacheEntries.claims(of: token) else { return nil }
        return value(claims) as? [String: any Sendable]
    }

    private static func value(_ json: JSONValue) -> (any Sendable)? {
        switch json.kind {
        case .string: return json.string
        case .number: return json.int64.map { $0 as any Sendable } ?? json.double
        case .true: return true
        case .false: return false
        case .null: return nil
        case .array: return json.elements.compactMap { value($0) }
        case .object:
            var result: [String: any Sendable] = [:]
            for (name, member) in json.members {
                if let name = name.string, let converted = value(member) { result[name] = converted }
            }
            return result
        }
    }
}
