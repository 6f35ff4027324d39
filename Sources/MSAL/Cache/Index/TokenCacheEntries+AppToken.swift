extension TokenCacheEntries {
    /// The entries of an app token (client credentials): an AccessToken whose `home_account_id` is
    /// JSON `null`, and the client's AppMetadata — exactly what MSAL for Python writes, so each
    /// library answers from the other's token. No refresh token, ID token or account.
    ///
    /// - Parameters:
    ///   - response: the token response (its ID token and `client_info`, if any, are ignored).
    ///   - environment: the authority's host as configured (MSAL for Python's `environment`, which
    ///     it also looks app tokens up by).
    ///   - realm: the tenant segment of the token endpoint (MSAL for Python's `realm`).
    ///   - scheme: the scheme the token was asked for: a bound token is keyed and marked as a
    ///     user's bound token is (``TokenScheme``).
    ///   - extendedKey: the request's ``CacheExtendedKey`` (an FMI path, extra body fields): the
    ///     entry carries it as `ext_cache_key` and is keyed with it, as MSAL for Python writes it.
    package init(
        appTokenResponse response: TokenResponse, clientID: String, environment: String, realm: String, requestedScopes: [String],
        now: Int64, scheme: TokenScheme = .bearer, extendedKey: String? = nil
    ) {
        let target = Self.target(granted: response.scope, requested: requestedScopes, order: .sorted)
        let expiresOn = now + response.expiresIn
        let extendedExpiresOn = now + max(response.extendedExpiresIn ?? 0, response.expiresIn)
        var entry = CacheEntry([
            "credential_type": "AccessToken", "secret": response.accessToken, "home_account_id": "", "environment": environment,
            "client_id": clientID, "target": target, "realm": realm, "token_type": response.tokenType, "cached_at": String(now),
            "expires_on": String(expiresOn), "extended_expires_on": String(extendedExpiresOn),
            "refresh_on": response.refreshIn.map { String(now + $0) }, "key_id": scheme.keyID, "kid": scheme.keyID,
            CacheExtendedKey.member: extendedKey,
        ])
        entry.members[2].value = .raw(Array("null".utf8))  // home_account_id, written as MSAL for Python writes it
        self.homeAccountID = TokenCacheIndex.applicationHome(realm: realm)
        self.realm = realm
        self.target = target
        self.accessToken = KeyedCacheEntry(
            key: CacheKey.accessToken(
                homeAccountID: "", environment: environment, clientID: clientID, realm: realm, target: target, scheme: scheme.kind,
                extendedKey: extendedKey),
            entry: entry)
        self.appMetadata = KeyedCacheEntry(
            key: CacheText.lowercased(CacheKey.appMetadata(environment: environment, clientID: clientID)),
            entry: CacheEntry(["client_id": clientID, "environment": environment]))
    }
}
