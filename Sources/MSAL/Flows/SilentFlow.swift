import Foundation
import MSALJOSE

/// `acquireTokenSilent`: a cached access token when one is usable — with no network call at all,
/// not even discovery — else the refresh token redeemed, sharing the request with concurrent
/// callers that need the same refresh.
package struct SilentFlow: TokenRecipe {
    package let client: TokenClient

    /// The request as the flow sees it, read once from the parameters.
    package struct Request: TokenRequestWithBasics {
        /// The authority is the request's, else the configuration's with the account's home tenant
        /// for `common`/`organizations`; the extra parameters carry the slice.
        package var basics: TokenRequestBasics
        var account: MSALAccount
        /// The tenant segment the app asked for (`common`, `organizations`) before it was replaced
        /// by the home tenant: MSAL for Python caches tokens under it.
        var requestedTenant: String
        var hasClaimsRequest: Bool
        /// The parameters' own scopes and authority (the memo's key).
        var hitKey: SilentHitKey
    }

    /// Reads and checks the parameters.
    package func request(_ parameters: MSALSilentTokenParameters) throws -> Request {
        let values = parameters.snapshot
        var basics = try client.basics(values, forceRefresh: parameters.forceRefresh, noScopes: nil, allowsProofOfPossession: true)
        guard let account = values.account, let identifier = account.identifier, !identifier.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorAccountRequired,
                message: "A silent request needs an account (MSALSilentTokenParameters.account)",
                correlationID: basics.correlationID)
        }
        guard !values.scopes.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "The request names no scopes",
                correlationID: basics.correlationID)
        }
        let requestedTenant = basics.authority.components.tenant
        basics.authority = authority(values.authority, account: account)
        basics.extraQueryParameters = client.withSlice(values.extraQueryParameters)
        return Request(
            basics: basics, account: account, requestedTenant: requestedTenant, hasClaimsRequest: values.claimsRequest != nil,
            hitKey: SilentHitKey(account: account, authority: values.authority, scopes: values.scopes))
    }

    /// The answer the cache lookup gave last for the same account object, authority and scopes,
    /// while the cache has not changed since and the token is still usable (``CacheHitMemo``),
    /// reissued with this request's correlation id; `nil` when the request skips the cache or must
    /// be looked up. Static, so that the hit does not build the flow.
    package static func memoizedResult(_ parameters: MSALSilentTokenParameters, client: TokenClient) -> MSALResult? {
        guard !parameters.forceRefresh else { return nil }
        let request: (key: SilentHitKey, correlationID: UUID?)? = parameters.withValues { values in
            // A bound token is presented afresh by each call: never from the memo.
            guard values.claimsRequest == nil,
                values.authenticationScheme == nil || values.authenticationScheme is MSALAuthenticationSchemeBearer,
                let account = values.account
            else { return nil }
            return (SilentHitKey(account: account, authority: values.authority, scopes: values.scopes), values.correlationId)
        }
        guard let request else { return nil }
        guard let result = client.silentHits.result(for: request.key, in: client.cache, now: client.nowSeconds) else { return nil }
        let correlationID = request.correlationID ?? client.correlationIDs.make()
        client.logger.verbose(
            "Silent request for \(oii: request.key.account.identifier): cache hit in realm \(oii: result.tenantProfile.tenantId)",
            correlationID: correlationID)
        // The authority the parameters named, else the one derived for the account (the same each time).
        return result.reissued(authority: request.key.authority ?? result.authority, correlationID: correlationID)
    }

    /// The authority of a silent request: the request's, else the configuration's, with Entra's
    /// multi-tenant `common`/`organizations` replaced by the account's home tenant (tokens are
    /// issued by, and cached under, a real tenant). An account from another cloud is asked of
    /// its own cloud when the application supports several.
    private func authority(_ requested: MSALAuthority?, account: MSALAccount) -> MSALAuthority {
        if let requested { return requested }
        let authority = client.defaultAuthority
        guard authority.kind == .aad else { return authority }
        // `origin` is built from the components, so only when another cloud may be needed.
        var otherCloud: String?
        var tenant = authority.components.tenant
        if client.multipleCloudsSupported, !account.environment.isEmpty,
            CacheEnvironmentAliases.builtIn.group(of: account.environment)
                != CacheEnvironmentAliases.builtIn.group(of: authority.components.hostAndPort)
        {
            otherCloud = "https://" + account.environment
        }
        if Self.isMultiTenant(tenant), let home = account.homeAccountId?.tenantId, !home.isEmpty {
            tenant = home
        }
        guard otherCloud != nil || tenant != authority.components.tenant else { return authority }
        return client.derivedAuthorities.authority(base: authority, otherCloud: otherCloud, tenant: tenant) ?? authority
    }

    private static func isMultiTenant(_ tenant: String) -> Bool { TokenClient.isMultiTenant(tenant) }

    /// Runs the request (``TokenAcquisition``). Every ``MSALFailure`` it throws carries the request's correlation id.
    package func run(_ request: Request) async throws -> MSALResult {
        do {
            let result = try await client.informingExternalAccounts(
                TokenAcquisition(self, flights: client.refreshFlights, clock: client.clock, logger: client.logger).run(request))
            return try client.present(result, request.presentation)
        } catch let error as MSALFailure {
            throw error.correlated(request.correlationID)
        }
    }

    package var label: String { "Silent request" }

    package func logHit(_ request: Request, cached: MSALResult, logger: MSALLogger) {
        logger.verbose(
            "Silent request for \(oii: request.account.identifier): cache hit in realm \(oii: cached.tenantProfile.tenantId)",
            correlationID: request.correlationID)
    }

    package func logMiss(_ request: Request, logger: MSALLogger) {
        logger.info(
            "Silent request for \(oii: request.account.identifier): \(public: request.skipsCache ? "cache skipped (force refresh or claims)" : "no usable cached token"); refreshing",
            correlationID: request.correlationID)
    }

    /// While the service is down, a token within its extended lifetime when the application allows it.
    package func recover(_ request: Request, from error: MSALFailure, logger: MSALLogger) async -> MSALResult? {
        if client.extendedLifetimeEnabled, !request.skipsCache, Self.serviceUnavailable(error),
            let extended = try? await findCached(request, extended: true)
        {
            logger.warning(
                "Silent request: service unavailable; returning a token within its extended lifetime", correlationID: request.correlationID)
            return extended
        }
        logger.info(
            "Silent request failed: \(error.code) \(error.internalCode) \(public: error.oauthError)", correlationID: request.correlationID)
        return nil
    }

    /// Whether the service, not the grant, failed: a network error, a timeout, a 5xx or throttling
    /// (answered by the service or, for a repeat, by the throttling cache). A repeat of an
    /// interaction-required answer from the throttling cache is not: the grant failed.
    private static func serviceUnavailable(_ error: MSALFailure) -> Bool {
        error.isServiceFailure
    }

    /// The realms an access token for this request may be cached under, most specific first.
    private func realms(_ request: Request) -> [String] {
        var realms: [String] = []
        realms.reserveCapacity(3)
        // A generic OpenID Connect provider names no tenant: its tokens are cached under the empty
        // realm (or under a `tid` claim, should its ID tokens carry one: the account's profiles name it).
        if request.authority.kind == .oidc {
            realms.append("")
            for profile in request.account.tenantProfiles ?? [] where !profile.realm.isEmpty {
                realms.append(profile.realm)
            }
            return realms
        }
        let tenant = request.authority.components.tenant
        func add(_ realm: String?) {
            guard let realm, !realm.isEmpty, !realms.contains(where: { CacheText.equalIgnoringASCIICase($0, realm) }) else { return }
            realms.append(realm)
        }
        let isMultiTenant = Self.isMultiTenant(tenant)
        if isMultiTenant || request.authority.kind == .b2c || request.authority.kind == .ciam {
            add(request.account.homeAccountId?.tenantId)
        } else if CacheText.equalIgnoringASCIICase(tenant, "consumers") {
            add(TokenClient.consumersTenantID)
        }
        add(tenant)
        add(request.requestedTenant)
        // A domain-named tenant (contoso.com) is cached under its id, which the issuer names. (A
        // tenant id or a multi-tenant segment needs no metadata: the lookup stays free of it.)
        if !isMultiTenant, !CacheText.isGUID(tenant), let issuer = client.resolver.cachedMetadata(for: request.authority)?.issuer,
            let url = URL(string: issuer)
        {
            let segments = url.path.split(separator: "/")
            if let first = segments.first, CacheText.isGUID(String(first)) { add(String(first)) }
        }
        return realms
    }

    package func cachedResult(_ request: Request) async throws -> MSALResult? {
        try await findCached(request, extended: false)
    }

    /// The cached access token as a result, or `nil`. With `extended`, a token past expiry but
    /// within its extended lifetime.
    private func findCached(_ request: Request, extended: Bool) async throws -> MSALResult? {
        let clientID = client.clientID
        let now = client.nowSeconds
        let buffer = client.expiryBuffer
        let realms = realms(request)
        let environment = request.authority.components.hostAndPort
        let identifier = request.account.identifier ?? ""
        let scopes = TokenCacheContents.lookupScopes(request.scopes)
        let scheme = request.scheme
        @Sendable func lookup(_ contents: TokenCacheContents) -> (token: CachedAccessToken, idToken: String?)? {
            contents.accessTokenAndIDToken(
                homeAccountID: identifier, environment: environment, clientID: clientID, realms: realms, scopes: scopes, scheme: scheme,
                now: now, expiryBuffer: extended ? 0 : buffer, usingExtendedExpiry: extended)
        }
        // A hit from memory passes the lookup without an escaping closure (an allocation per call).
        let found: (token: CachedAccessToken, idToken: String?)?
        // The contents the answer came from, when they are the ones in memory (the memo's check).
        var seen: TokenCacheContents.Version?
        if let answered = try client.cache.readIfInMemory({ contents in (lookup(contents), contents.version) }) {
            found = answered.0
            seen = answered.1
        } else {
            found = try await client.cache.readFromStorage(clientID: clientID, partition: .account(identifier)) { lookup($0) }
        }
        guard let (token, idToken) = found else { return nil }
        let account = request.account
        let profile =
            account.tenantProfiles?.first { CacheText.equalIgnoringASCIICase($0.realm, token.realm) }
            ?? MSALTenantProfile(
                identifier: "", environment: account.environment, tenantId: token.realm,
                isHomeTenantProfile: account.homeAccountId?.tenantId.map { CacheText.equalIgnoringASCIICase($0, token.realm) } ?? false,
                idToken: idToken)
        let isExtended = extended && token.expiresOn - now <= buffer
        let refreshOn = token.refreshOn
        let result = MSALResult(
            accessToken: token.secret,
            expiresOn: Date(timeIntervalSince1970: Double(isExtended ? (token.extendedExpiresOn ?? token.expiresOn) : token.expiresOn)),
            extendedLifeTimeToken: isExtended, idToken: idToken, target: token.target,
            tenantProfile: profile, account: account, authority: request.authority, correlationId: request.correlationID,
            tokenSource: .cache, refreshOn: refreshOn.map { Date(timeIntervalSince1970: Double($0)) })
        if !extended, request.scheme == .bearer, let seen {
            client.silentHits.remember(
                result, for: request.hitKey, seen: seen, expiresOn: token.expiresOn, refreshOn: refreshOn, expiryBuffer: buffer,
                now: now)
        }
        return result
    }

    /// Concurrent callers needing the same refresh share one.
    package func flightKey(_ request: Request) -> RefreshFlightKey {
        RefreshFlightKey(
            subject: .account(home: CacheText.lowercased(request.account.identifier ?? "")), scheme: request.scheme,
            environment: CacheEnvironmentAliases.builtIn.group(of: request.authority.components.hostAndPort),
            realm: CacheText.lowercased(request.authority.components.tenant),
            scopes: TokenCacheContents.lookupScopes(request.scopes).sorted(), claims: request.claims)
    }

    /// The tokens as this call found them, before any wait: a change seen under the refresh lock
    /// means another process refreshed after this call was made.
    package func ticket(_ request: Request) async throws -> TokenSnapshot {
        try await tokenSnapshot(request)
    }

    package func redeem(_ request: Request, ticket: TokenSnapshot) async throws -> MSALResult {
        try await redeemHoldingRefreshLock(request, seen: ticket)
    }

    /// The secrets of the refresh token and of the access token this request would use, as the cache holds them now.
    package struct TokenSnapshot: Equatable, Sendable {
        var refreshToken: String?
        var accessToken: String?
    }

    private func tokenSnapshot(_ request: Request) async throws -> TokenSnapshot {
        let clientID = client.clientID
        let identifier = request.account.identifier ?? ""
        let environment = request.authority.components.hostAndPort
        let realms = realms(request)
        let scopes = TokenCacheContents.lookupScopes(request.scopes)
        return try await client.cache.read(clientID: clientID, partition: .account(identifier)) { contents in
            let refresh = contents.refreshToken(homeAccountID: identifier, environment: environment, clientID: clientID)?.entry["secret"]
            // Expired or not: any change of the secret means a new token was stored.
            let access = contents.accessTokenAndIDToken(
                homeAccountID: identifier, environment: environment, clientID: clientID, realms: realms, scopes: scopes,
                scheme: request.scheme, now: 0, expiryBuffer: 0, usingExtendedExpiry: false)?.0.secret
            return TokenSnapshot(refreshToken: refresh, accessToken: access)
        }
    }

    /// Redeems the refresh token holding the account's cross-process refresh lock (issue 19, finding 8).
    ///
    /// Processes sharing a cache file would otherwise redeem one refresh token at once, and a provider
    /// with rotation and reuse detection (Django OAuth Toolkit, Auth0, Okta, Keycloak) then revokes the
    /// whole grant. Under the lock the cache is read again: when another process stored new tokens after
    /// this call was made (``TokenSnapshot`` changed), its access token is the answer — for a forced
    /// refresh too, since it is newer than the request — unless the request carries claims; otherwise the
    /// refresh token read under the lock is redeemed and the answer stored before the lock is released.
    /// The lock is held only across bounded work (discovery and the token request have deadlines and at
    /// most one retry), waited for at most as long as that can take, and the kernel releases it when its
    /// holder dies.
    private func redeemHoldingRefreshLock(_ request: Request, seen: TokenSnapshot) async throws -> MSALResult {
        let key = Self.refreshLockKey(accountIdentifier: request.account.identifier ?? "", authority: request.authority)
        let pipeline = client.pipeline.configuration
        let wait = Double(2 * (pipeline.retryCount + 1)) * pipeline.limits.totalTimeout + 2 * pipeline.maximumRetryWait
        guard let lock = try await client.cache.refreshLock(for: key, timeout: wait) else {
            return try await redeemRefreshToken(request)
        }
        defer { lock.release() }
        if !request.hasClaimsRequest, try await tokenSnapshot(request) != seen,
            let cached = try await cachedResult(request), TokenAcquisition<Self>.isFresh(cached.refreshOn, now: client.clock.now())
        {
            client.logger.info(
                "Silent request: another process refreshed this account's tokens meanwhile; using its access token",
                correlationID: request.correlationID)
            return cached
        }
        return try await redeemRefreshToken(request)
    }

    /// What the cross-process refresh lock is taken for: the account in a cloud (aliases count as one
    /// cloud), whatever the tenant, scopes or client — a family refresh token is shared by its clients.
    package static func refreshLockKey(accountIdentifier: String, authority: MSALAuthority) -> String {
        CacheText.lowercased(accountIdentifier) + "|" + CacheEnvironmentAliases.builtIn.group(of: authority.components.hostAndPort)
    }

    /// Throws unless `request` can prove possession of the DPoP key `keyID` its refresh token is bound to
    /// (RFC 9449 §5), before the refresh token is sent: a bearer request is refused (the provider would
    /// answer a DPoP-bound token, and may have rotated the refresh token by then), and a key this
    /// application no longer has means the user must sign in again.
    private func checkRefreshTokenKey(_ keyID: String, _ request: Request) throws(MSALFailure) {
        guard case .dpop(let key) = request.presentation else {
            var error = MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "This account's refresh token is bound to the application's DPoP key: ask for its tokens with "
                    + "MSALAuthenticationSchemeDPoP, or sign in again for bearer tokens",
                correlationID: request.correlationID)
            error.homeAccountID = request.account.identifier
            throw error
        }
        guard key.thumbprint == keyID else {
            var error = MSALFailure(
                .interactionRequired, internalCode: nil,
                message: "This account's refresh token is bound to a DPoP key the application no longer has: the user must sign in",
                correlationID: request.correlationID)
            error.homeAccountID = request.account.identifier
            throw error
        }
    }

    private func redeemRefreshToken(_ request: Request) async throws -> MSALResult {
        let clientID = client.clientID
        let identifier = request.account.identifier ?? ""
        let environment = request.authority.components.hostAndPort
        let correlationID = request.correlationID
        let stored = try await client.cache.read(clientID: clientID, partition: .account(identifier)) {
            contents -> (key: String, secret: String, familyID: String?, familyAssumed: Bool, keyID: String?)? in
            guard let hit = contents.refreshToken(homeAccountID: identifier, environment: environment, clientID: clientID),
                let secret = hit.entry["secret"], !secret.isEmpty
            else { return nil }
            let familyID = hit.entry["family_id"].flatMap { $0.isEmpty ? nil : $0 }
            return (
                hit.key, secret, familyID, familyID != nil && contents.index.familyIsAssumed(for: CacheText.lowercased(clientID)),
                hit.entry[.keyID].flatMap { $0.isEmpty ? nil : $0 }
            )
        }
        guard let stored else {
            var error = MSALFailure(
                .interactionRequired, internalCode: nil,
                message: "The cache holds no refresh token for this account and application: the user must sign in",
                correlationID: correlationID)
            error.homeAccountID = identifier
            throw error
        }
        if let boundTo = stored.keyID { try checkRefreshTokenKey(boundTo, request) }
        let metadata = try await client.resolver.resolve(request.authority, correlationID: correlationID)
        // Microsoft's platform takes any scope the grant allows, and the reserved ones keep the ID
        // token and refresh token coming. A generic provider may not widen the grant on refresh
        // (RFC 6749 §6; a strict one answers invalid_scope): it is asked for the scope it granted.
        let microsoft = request.authority.kind.isMicrosoft
        let httpRequest = TokenRequests.refresh(
            tokenEndpoint: try client.tokenEndpoint(metadata, authority: request.authority, correlationID: correlationID),
            clientID: clientID, refreshToken: stored.secret,
            scope: microsoft ? TokenRequests.scopeParameter(request.scopes, excluding: client.excludedScopes) : nil, claims: request.claims,
            extraQueryParameters: request.extraQueryParameters, microsoft: microsoft,
            authentication: try await client.authenticationFields(
                tokenEndpoint: metadata.tokenEndpoint, authority: request.authority, claims: request.claims),
            schemeFields: client.tokenRequestFields(request.presentation))
        let redemption = TokenRedemption(
            authority: request.authority, metadata: metadata, scopes: request.scopes, nonce: nil,
            expectedAccount: request.account, grant: .refreshToken, correlationID: correlationID, scheme: request.scheme,
            presentation: request.presentation)
        let response = try await client.sendTokenRequest(httpRequest, presentation: request.presentation, correlationID: correlationID)
        guard response.statusCode == 200 else {
            var error = MSALFailure(tokenEndpointResponse: response, grant: .refreshToken, correlationID: correlationID)
            error.homeAccountID = identifier
            if error.internalCode == .dpopProofInvalid, request.presentation?.dpopKey == nil {
                // A refresh without a proof, refused for want of one: the provider bound this refresh
                // token to a DPoP key although the cache did not know it (glewlwyd binds a
                // confidential client's too, where RFC 9449 §5 leaves it unbound). It stays cached.
                error.message =
                    "The identity provider bound this account's refresh token to the application's DPoP key: ask for its "
                    + "tokens with MSALAuthenticationSchemeDPoP, or sign in again for bearer tokens (\(error.message))"
            }
            let action = RefreshFailurePolicy.action(
                oauthError: error.oauthError, subError: error.oauthSubError, code: error.code, familyID: stored.familyID,
                familyAssumed: stored.familyAssumed)
            switch action {
            case .leaveFamily:
                let environment = metadata.cacheEnvironment
                try? await client.cache.write(clientID: clientID) { $0.leaveFamily(clientID: clientID, environment: environment) }
            case .keepAndThrottle(let seconds):
                client.logger.info(
                    "A family refresh token tried for a new application was refused; it stays for the family", correlationID: correlationID)
                client.pipeline.throttling.record(httpRequest, error: error, until: client.clock.now().addingTimeInterval(seconds))
            case .removeRefreshToken:
                client.logger.info(
                    "The refresh token was rejected (invalid_grant \(public: error.oauthSubError)); removing it from the cache",
                    correlationID: correlationID)
                try? await client.cache.write(clientID: clientID, partition: .account(identifier)) {
                    $0.removeRefreshToken(stored.key, ifSecretIs: stored.secret)
                }
            case .throttle(let seconds):
                client.pipeline.throttling.record(httpRequest, error: error, until: client.clock.now().addingTimeInterval(seconds))
            case .none:
                break
            }
            throw error
        }
        return try await client.accept(response.body, redemption)
    }
}
