import MSALJOSE
import MSALJSON

/// What the cache needs to know about the request a token response answers.
package struct TokenCacheWriteContext: Sendable {
    /// The application's client id.
    package var clientID: String
    /// The host entries are stored under: the authority's preferred cache host.
    package var environment: String
    /// The authority's tenant segment (`common`, a tenant id or domain, `adfs`, a B2C tenant).
    package var authorityTenant: String
    /// Whether the authority is AD FS (accounts get `authority_type` "ADFS").
    package var isADFS: Bool
    /// The scopes asked for, used as `target` when the response names none.
    package var requestedScopes: [String]
    /// The time the response arrived, in seconds since 1970.
    package var now: Int64
    package var policy: TokenCacheWritePolicy
    /// The account a refresh answer belongs to when it identifies none itself: OpenID Connect
    /// Core §12.2 lets a provider answer a refresh without an ID token (and a generic provider
    /// sends no `client_info`), and the tokens then stay with the account whose refresh token was
    /// redeemed.
    package var redeemedAccountID: String?
    /// The scheme the access token was asked for: a bound token's key carries its token type, and
    /// its entry the key it is bound to.
    package var scheme: TokenScheme
    /// The DPoP key a public client's refresh token is bound to (RFC 9449 §5: the provider binds it
    /// when a proof came with the request): the entry names it in `key_id`, so every later refresh
    /// carries a proof of it. `nil` for an unbound refresh token.
    package var refreshTokenKeyID: String? = nil

    package init(
        clientID: String, environment: String, authorityTenant: String, isADFS: Bool = false,
        requestedScopes: [String], now: Int64, policy: TokenCacheWritePolicy = .default, redeemedAccountID: String? = nil,
        scheme: TokenScheme = .bearer
    ) {
        self.redeemedAccountID = redeemedAccountID
        self.scheme = scheme
        self.clientID = clientID
        self.environment = environment
        self.authorityTenant = authorityTenant
        self.isADFS = isADFS
        self.requestedScopes = requestedScopes
        self.now = now
        self.policy = policy
    }
}

/// A cache entry with its key.
package struct KeyedCacheEntry: Sendable, Equatable {
    package var key: String
    package var entry: CacheEntry
}

/// The entries one token response produces (the unified schema's mapping; see `docs/token-cache.md`).
package struct TokenCacheEntries: Sendable, Equatable {
    /// `uid.utid` from `client_info`, else the ID token's `sub`.
    package var homeAccountID: String
    /// The realm the credentials are stored under.
    package var realm: String
    /// The granted scopes as stored in `target`.
    package var target: String
    package var accessToken: KeyedCacheEntry
    package var refreshToken: KeyedCacheEntry?
    package var idToken: KeyedCacheEntry?
    package var account: KeyedCacheEntry?
    package var appMetadata: KeyedCacheEntry
    /// The hash of the incoming assertion the access and refresh tokens were obtained with on
    /// behalf of a caller (``markOnBehalfOf(assertionHash:)``); `nil` for every other response.
    package var userAssertionHash: String? = nil

    /// The username written when the ID token names none (the value MSAL for iOS and .NET write).
    package static let missingUsername = "Missing from the token response"

    /// Maps `response` to cache entries.
    ///
    /// The ID token is read, not verified: the flow that received it verifies it first.
    ///
    /// - Throws: ``MSALFailure`` (`invalidClientInfo`, `invalidResponse`) when the account cannot be identified.
    package init(response: TokenResponse, context: TokenCacheWriteContext) throws(MSALFailure) {
        let claims = try response.idToken.map { (token) throws(MSALFailure) in try Self.claims(of: token) }
        var clientInfo: ClientInfo?
        if let encoded = response.clientInfo {
            do throws(JOSEError) {
                clientInfo = try ClientInfo(encoded: encoded)
            } catch {
                throw MSALFailure(error)
            }
        }
        let subject = claims?["sub"]?.string
        guard let homeAccountID = clientInfo.map({ "\($0.uid).\($0.utid)" }) ?? subject ?? context.redeemedAccountID, !homeAccountID.isEmpty
        else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidResponse,
                message: "The token response identifies no account: it has neither client_info nor an ID token with a sub claim")
        }
        let tenantClaim = claims?["tid"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let realm: String
        switch context.policy.realmSource {
        case .idTokenTenant: realm = tenantClaim ?? context.authorityTenant
        case .authorityTenant: realm = context.authorityTenant
        }
        let target = Self.target(granted: response.scope, requested: context.requestedScopes, order: context.policy.targetOrder)
        let environment = context.environment
        let clientID = context.clientID
        let now = context.now

        self.homeAccountID = homeAccountID
        self.realm = realm
        self.target = target

        let expiresOn = now + response.expiresIn
        let extendedExpiresOn = now + max(response.extendedExpiresIn ?? 0, response.expiresIn)
        accessToken = KeyedCacheEntry(
            key: CacheKey.accessToken(
                homeAccountID: homeAccountID, environment: environment, clientID: clientID, realm: realm, target: target,
                scheme: context.scheme.kind),
            entry: CacheEntry([
                "home_account_id": homeAccountID, "environment": environment, "client_id": clientID,
                "credential_type": "AccessToken", "secret": response.accessToken, "realm": realm, "target": target,
                "cached_at": String(now), "expires_on": String(expiresOn), "extended_expires_on": String(extendedExpiresOn),
                "refresh_on": response.refreshIn.map { String(now + $0) }, "token_type": response.tokenType,
                // The key a bound token is bound to, under both names other MSALs read it by.
                "key_id": context.scheme.keyID, "kid": context.scheme.keyID,
            ]))

        if let secret = response.refreshToken {
            let rtTarget = context.policy.refreshTokenTarget ? target : nil
            refreshToken = KeyedCacheEntry(
                key: CacheKey.refreshToken(
                    homeAccountID: homeAccountID, environment: environment, clientID: response.familyID ?? clientID, target: rtTarget ?? ""),
                entry: CacheEntry([
                    "home_account_id": homeAccountID, "environment": environment, "client_id": clientID,
                    "credential_type": "RefreshToken", "secret": secret, "family_id": response.familyID,
                    "target": rtTarget, "last_modification_time": String(now), "key_id": context.refreshTokenKeyID,
                ]))
        }

        if let rawIDToken = response.idToken, let claims {
            idToken = KeyedCacheEntry(
                key: CacheKey.idToken(homeAccountID: homeAccountID, environment: environment, clientID: clientID, realm: realm),
                entry: CacheEntry([
                    "home_account_id": homeAccountID, "environment": environment, "client_id": clientID,
                    "credential_type": "IdToken", "secret": rawIDToken, "realm": realm,
                ]))
            let username = Self.username(claims, isADFS: context.isADFS)
            account = KeyedCacheEntry(
                key: CacheKey.account(homeAccountID: homeAccountID, environment: environment, realm: realm),
                entry: CacheEntry([
                    "home_account_id": homeAccountID, "environment": environment, "realm": realm,
                    "local_account_id": claims["oid"]?.string ?? subject ?? "", "username": username,
                    "authority_type": context.isADFS ? "ADFS" : "MSSTS",
                    "name": claims["name"]?.string, "given_name": claims["given_name"]?.string,
                    "family_name": claims["family_name"]?.string, "client_info": response.clientInfo,
                ]))
        }

        appMetadata = KeyedCacheEntry(
            key: CacheText.lowercased(CacheKey.appMetadata(environment: environment, clientID: clientID)),
            entry: CacheEntry(["client_id": clientID, "environment": environment, "family_id": response.familyID]))
    }

    /// The account's username: `preferred_username`, else `email` (generic OpenID Connect providers
    /// often send no `preferred_username`), else `upn`; AD FS, whose ID tokens name the user in
    /// `upn`, tries `upn` before `email`. ``missingUsername`` only when the ID token has none of them.
    package static func username(_ claims: JSONValue, isADFS: Bool) -> String {
        let order = isADFS ? ["preferred_username", "upn", "email"] : ["preferred_username", "email", "upn"]
        for name in order {
            if let value = claims[name]?.string, !value.isEmpty { return value }
        }
        return missingUsername
    }

    /// The `target` to store: the granted scopes, or the requested ones when none were returned.
    package static func target(granted: String?, requested: [String], order: TokenCacheWritePolicy.TargetOrder) -> String {
        var scopes = granted.map { CacheText.scopes($0).map(String.init) } ?? []
        if scopes.isEmpty { scopes = requested.filter { !$0.isEmpty } }
        var seen = Set<String>()
        scopes = scopes.filter { seen.insert(CacheText.lowercased($0)).inserted }
        if order == .sorted {
            scopes.sort { lhs, rhs in
                let (left, right) = (CacheText.lowercased(lhs), CacheText.lowercased(rhs))
                return left == right ? lhs < rhs : left < right
            }
        }
        return scopes.joined(separator: " ")
    }

    /// The claims of a JWT, read without checking its header or signature.
    package static func claims(of token: String) throws(MSALFailure) -> JSONValue {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw MSALFailure(.internal, internalCode: .jwtMalformed, message: "The ID token does not have three segments")
        }
        do throws(JOSEError) {
            let payload = try Base64URL.decode(bytes: parts[1], padding: .acceptCanonical)
            let document = try JSONDocument.parsed(payload, limits: .token)
            guard document.root.kind == .object else {
                throw JOSEError(.invalidPayload, "The ID token's claims are not a JSON object")
            }
            return document.root
        } catch {
            throw MSALFailure(error)
        }
    }
}
