/// The keys of the unified cache schema: fields joined with `-`, lower-cased (AppMetadata aside).
package enum CacheKey {
    /// `<home_account_id>-<environment>-accesstoken-<client_id>-<realm>-<target>`, lower-cased.
    /// A bound token's key (``TokenScheme/Kind/pop``, ``TokenScheme/Kind/dpop``, ``TokenScheme/Kind/mtlsPop``) says so, as MSAL.NET and MSAL for iOS key it:
    /// `…-accesstoken_with_authscheme-<client_id>-<realm>-<target>-<token type>`.
    ///
    /// A token asked for with non-standard body fields (``CacheExtendedKey``) is keyed as MSAL for
    /// Python, Go and .NET key it: `…-atext-<client_id>-<realm>-<target>-<extended key>` (a bound
    /// one: its usual key, then `-<extended key>`).
    package static func accessToken(
        homeAccountID: String, environment: String, clientID: String, realm: String, target: String, scheme: TokenScheme.Kind = .bearer,
        extendedKey: String? = nil
    ) -> String {
        let extended = extendedKey.flatMap { $0.isEmpty ? nil : $0 }
        var fields: [String]
        switch scheme {
        case .bearer:
            fields = [homeAccountID, environment, extended == nil ? "accesstoken" : "atext", clientID, realm, target]
        case .pop, .dpop, .mtlsPop:
            fields = [homeAccountID, environment, "accesstoken_with_authscheme", clientID, realm, target, scheme.tokenType]
        }
        if let extended { fields.append(extended) }
        return CacheText.lowercased(fields.joined(separator: "-"))
    }

    /// `<home_account_id>-<environment>-refreshtoken-<client_id or family id>--<target>`, lower-cased.
    package static func refreshToken(homeAccountID: String, environment: String, clientID: String, target: String = "") -> String {
        CacheText.lowercased([homeAccountID, environment, "refreshtoken", clientID, "", target].joined(separator: "-"))
    }

    /// `<home_account_id>-<environment>-idtoken-<client_id>-<realm>-`, lower-cased.
    package static func idToken(homeAccountID: String, environment: String, clientID: String, realm: String) -> String {
        CacheText.lowercased([homeAccountID, environment, "idtoken", clientID, realm, ""].joined(separator: "-"))
    }

    /// `<home_account_id>-<environment>-<realm>`, lower-cased.
    package static func account(homeAccountID: String, environment: String, realm: String) -> String {
        CacheText.lowercased([homeAccountID, environment, realm].joined(separator: "-"))
    }

    /// The key of an on-behalf-of access or refresh token (one with `user_assertion_hash`): its
    /// usual key with `-obo` appended, so it never replaces the user's own token of the same
    /// scopes. One per user and scopes, whichever caller's assertion obtained it last, so the
    /// cache does not grow with every new incoming token. Peers read entries by their members,
    /// not their keys.
    package static func onBehalfOf(_ key: String) -> String {
        key + "-obo"
    }

    /// `appmetadata-<environment>-<client_id>`, not lower-cased.
    package static func appMetadata(environment: String, clientID: String) -> String {
        "appmetadata-\(environment)-\(clientID)"
    }

    /// The key an entry of `section` must have, computed from its fields; `nil` when a field the key
    /// needs is missing.
    package static func key(for entry: CacheEntry, in section: CacheSection) -> String? {
        switch section {
        case .accessToken:
            guard let home = entry["home_account_id"], let environment = entry["environment"],
                let clientID = entry["client_id"], let target = entry["target"]
            else { return nil }
            return accessToken(
                homeAccountID: home, environment: environment, clientID: clientID, realm: entry["realm"] ?? "", target: target,
                extendedKey: entry[CacheExtendedKey.member])
        case .refreshToken:
            guard let home = entry["home_account_id"], let environment = entry["environment"] else { return nil }
            guard let clientID = entry["family_id"].flatMap({ $0.isEmpty ? nil : $0 }) ?? entry["client_id"] else { return nil }
            return refreshToken(homeAccountID: home, environment: environment, clientID: clientID, target: entry["target"] ?? "")
        case .idToken:
            guard let home = entry["home_account_id"], let environment = entry["environment"],
                let clientID = entry["client_id"]
            else { return nil }
            return idToken(homeAccountID: home, environment: environment, clientID: clientID, realm: entry["realm"] ?? "")
        case .account:
            guard let home = entry["home_account_id"], let environment = entry["environment"] else { return nil }
            return account(homeAccountID: home, environment: environment, realm: entry["realm"] ?? "")
        case .appMetadata:
            guard let environment = entry["environment"], let clientID = entry["client_id"] else { return nil }
            return appMetadata(environment: environment, clientID: clientID)
        }
    }
}
