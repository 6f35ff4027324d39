import Foundation
import MSALJOSE

/// `acquireTokenOnBehalfOf`: a middle-tier API (a confidential client) trades the access token
/// its caller sent it — the user assertion — for the same user's tokens for a downstream API
/// (the JWT bearer grant with `requested_token_use=on_behalf_of`).
///
/// The tokens are cached under the hash of the incoming assertion (``assertionHash(_:)``,
/// `user_assertion_hash` as MSAL.NET writes it), so a result is only ever returned to a caller
/// that presents the very same assertion: two callers, even for the same user, never share one.
/// When the access token has expired, the refresh token obtained with the same assertion is
/// redeemed silently (the incoming token has usually expired by then too); when that one is
/// refused, the assertion is presented again.
package struct OnBehalfOfFlow: Sendable {
    /// The confidential client's shared state, with its authentication (``TokenClient/clientAuthentication``).
    package let client: TokenClient

    /// The cache key of an incoming assertion: the base64url form (no padding) of the SHA-256 of
    /// its UTF-8 bytes, as MSAL.NET computes `user_assertion_hash`.
    package static func assertionHash(_ assertion: String) throws(MSALFailure) -> String {
        do throws(JOSEError) {
            return Base64URL.encode(try MessageDigest.sha256(Array(assertion.utf8)))
        } catch {
            throw MSALFailure(error)
        }
    }

    /// Whether `assertion` has the form of a JWT (RFC 7519 §7.2): three (signed) or five (encrypted)
    /// dot-separated base64url segments. The grant takes nothing else, and anything else (a
    /// `Bearer ` prefix left on, a header with a line break) is a caller's mistake to report before
    /// it reaches the wire.
    static func isCompactJWT(_ assertion: String) -> Bool {
        var segments = 1
        for byte in assertion.utf8 {
            switch byte {
            case UInt8(ascii: "."): segments += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default: return false
            }
        }
        return segments == 3 || segments == 5
    }

    /// The request as the flow sees it, read once from the parameters: the incoming assertion and its hash, the cache key of its tokens.
    package struct Request: TokenRequestWithBasics {
        package var basics: TokenRequestBasics
        var assertion: String
        var assertionHash: String
        /// What the credential is told for this request (`x5c`, the assertion provider's context).
        var credentialContext = ClientAuthentication.RequestContext()
    }

    /// Reads and checks the parameters.
    package func request(_ parameters: MSALOnBehalfOfParameters) throws -> Request {
        let basics = try client.basics(
            parameters.snapshot, forceRefresh: parameters.forceRefresh,
            noScopes: "The request names no scopes (name the downstream API's scopes, such as https://graph.microsoft.com/User.Read)",
            allowsDPoP: true)
        let correlationID = basics.correlationID
        let assertion = parameters.userAssertion
        guard Self.isCompactJWT(assertion) else {
            // The value is a credential: the message describes it without quoting it.
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: assertion.isEmpty
                    ? "The user assertion is empty (pass the access token the caller sent, without its \"Bearer \" prefix)"
                    : "The user assertion is not a JWT (\(assertion.utf8.count) bytes; pass the access token the caller sent, without its \"Bearer \" prefix)",
                correlationID: correlationID)
        }
        let hash: String
        do throws(MSALFailure) {
            hash = try Self.assertionHash(assertion)
        } catch {
            throw error.correlated(correlationID)
        }
        return Request(
            basics: basics, assertion: assertion, assertionHash: hash,
            credentialContext: ClientAuthentication.RequestContext(sendX5C: parameters.sendX5C))
    }

    /// Runs the request (``TokenAcquisition``, once the authority's metadata is known). Every
    /// ``MSALFailure`` it throws carries the request's correlation id.
    package func run(_ request: Request) async throws -> MSALResult {
        let metadata: MSALAuthorityMetadata
        do {
            metadata = try await self.metadata(request)
        } catch let error as MSALFailure {
            throw error.correlated(request.correlationID)
        }
        let result = try await TokenAcquisition(
            Recipe(flow: self, metadata: metadata), flights: client.refreshFlights, clock: client.clock, logger: client.logger
        ).run(request)
        do throws(MSALFailure) {
            return try client.present(result, request.presentation)
        } catch {
            throw error.correlated(request.correlationID)
        }
    }

    /// The flow at one authority's metadata.
    private struct Recipe: TokenRecipe {
        let flow: OnBehalfOfFlow
        let metadata: MSALAuthorityMetadata

        var label: String { "On-behalf-of request" }

        func cachedResult(_ request: Request) async throws -> MSALResult? {
            try await flow.cachedResult(request, metadata: metadata)
        }

        /// Callers that present the same assertion for the same scopes share one request.
        func flightKey(_ request: Request) -> RefreshFlightKey {
            RefreshFlightKey(
                subject: .onBehalfOf(assertionHash: request.assertionHash), scheme: request.scheme,
                environment: CacheEnvironmentAliases.builtIn.group(of: metadata.cacheEnvironment),
                realm: CacheText.lowercased(request.authority.components.tenant), scopes: request.scopes.map(CacheText.lowercased).sorted(),
                claims: request.claims)
        }

        /// The refresh token obtained with this assertion when there is one (and the cache is not
        /// skipped), else — or when it is refused — the assertion itself.
        func redeem(_ request: Request, ticket: Void) async throws -> MSALResult {
            if !request.skipsCache, let refreshed = try await flow.redeemRefreshToken(request, metadata: metadata) {
                return refreshed
            }
            return try await flow.redeemAssertion(request, metadata: metadata)
        }
    }

    /// The authority's metadata: from memory after the first request, so a cache hit makes no request.
    private func metadata(_ request: Request) async throws -> MSALAuthorityMetadata {
        if let known = client.resolver.cachedMetadata(for: request.authority) { return known }
        return try await client.resolver.resolve(request.authority, correlationID: request.correlationID)
    }

    /// The realms a cached token may be under: the authority's tenant when it is an id; also the
    /// token endpoint's (Entra names a domain-named tenant by its id there); any realm for an
    /// authority that names no tenant (the assertion's own tenant answered).
    private static func realms(_ request: Request, metadata: MSALAuthorityMetadata) -> [String]? {
        let tenant = request.authority.components.tenant
        if TokenClient.isMultiTenant(tenant) { return nil }
        var realms = [tenant]
        if !CacheText.isGUID(tenant), let realm = metadata.tokenEndpoint.path.split(separator: "/").first.map(String.init),
            !CacheText.equalIgnoringASCIICase(realm, tenant)
        {
            realms.append(realm)
        }
        return realms
    }

    private func cachedResult(_ request: Request, metadata: MSALAuthorityMetadata) async throws -> MSALResult? {
        let clientID = client.clientID
        let now = client.nowSeconds
        let buffer = client.expiryBuffer
        let environment = metadata.cacheEnvironment
        let realms = Self.realms(request, metadata: metadata)
        let hash = request.assertionHash
        let scopes = TokenCacheContents.lookupScopes(request.scopes)
        let scheme = request.scheme
        @Sendable func lookup(_ contents: TokenCacheContents) -> (CachedAccessToken, String?, MSALAccount?)? {
            guard
                let token = contents.onBehalfOfAccessToken(
                    hash: hash, environment: environment, clientID: clientID, realms: realms, scopes: scopes, scheme: scheme, now: now,
                    expiryBuffer: buffer)
            else { return nil }
            // The user's ID token and account, written with the tokens.
            let idToken = contents.idToken(
                homeAccountID: token.homeAccountID, environment: environment, clientID: clientID, realm: token.realm)
            let key = TokenCacheIndex.accountKey(home: token.homeAccountID, environment: environment, aliases: contents.aliases)
            return (token, idToken?.entry.ownedString(.secret), contents.account(key, clientID: clientID))
        }
        guard
            let (token, idToken, account) = try await client.cache.read(
                clientID: clientID, partition: .onBehalfOf(assertionHash: hash), lookup)
        else { return nil }
        let profile =
            account?.tenantProfiles?.first { CacheText.equalIgnoringASCIICase($0.realm, token.realm) }
            ?? MSALTenantProfile(
                identifier: "", environment: environment, tenantId: token.realm, isHomeTenantProfile: false, idToken: idToken)
        return MSALResult(
            accessToken: token.secret, expiresOn: Date(timeIntervalSince1970: Double(token.expiresOn)), idToken: idToken,
            scopes: CacheText.scopes(token.target).map(String.init), tenantProfile: profile,
            account: account
                ?? MSALAccount(identifier: token.homeAccountID, username: nil, environment: environment, tenantProfiles: [profile]),
            authority: request.authority, correlationId: request.correlationID, tokenSource: .cache,
            refreshOn: token.refreshOn.map { Date(timeIntervalSince1970: Double($0)) })
    }

    /// Redeems the refresh token obtained with this assertion; `nil` when there is none, or when
    /// the service refuses it (it is then removed, and the assertion is presented instead).
    private func redeemRefreshToken(_ request: Request, metadata: MSALAuthorityMetadata) async throws -> MSALResult? {
        let clientID = client.clientID
        let environment = metadata.cacheEnvironment
        let hash = request.assertionHash
        @Sendable func lookup(_ contents: TokenCacheContents) -> (key: String, secret: String, home: String)? {
            guard let (key, entry) = contents.onBehalfOfRefreshToken(hash: hash, environment: environment, clientID: clientID),
                let secret = entry[.secret], let home = entry[.homeAccountID]
            else { return nil }
            return (key, secret, home)
        }
        guard let stored = try await client.cache.read(clientID: clientID, partition: .onBehalfOf(assertionHash: hash), lookup) else {
            return nil
        }
        let correlationID = request.correlationID
        var httpRequest = TokenRequests.refresh(
            tokenEndpoint: try client.tokenEndpoint(metadata, authority: request.authority, correlationID: correlationID),
            clientID: clientID, refreshToken: stored.secret,
            scope: TokenRequests.scopeParameter(request.scopes, excluding: client.excludedScopes),
            claims: request.claims, extraQueryParameters: request.extraQueryParameters, microsoft: request.authority.kind.isMicrosoft,
            authentication: try await client.authenticationFields(
                tokenEndpoint: metadata.tokenEndpoint, authority: request.authority, claims: request.claims,
                context: request.credentialContext))
        httpRequest.sendsMicrosoftHeaders = request.authority.kind.isMicrosoft
        let redemption = TokenRedemption(
            authority: request.authority, metadata: metadata, scopes: request.scopes, nonce: nil,
            expectedAccount: MSALAccount(identifier: stored.home, username: nil, environment: environment, tenantProfiles: []),
            grant: .refreshToken, correlationID: correlationID, userAssertionHash: hash, scheme: request.scheme,
            presentation: request.presentation)
        do {
            return try await client.redeem(httpRequest, redemption)
        } catch let error as MSALFailure where error.code == .interactionRequired && error.oauthError?.lowercased() == "invalid_grant" {
            client.logger.info(
                "On-behalf-of request: the refresh token was refused (invalid_grant \(public: error.oauthSubError)); removing it and presenting the assertion",
                correlationID: correlationID)
            try? await client.cache.write(clientID: clientID, partition: .onBehalfOf(assertionHash: hash, homeAccountID: stored.home)) {
                $0.removeRefreshToken(stored.key, ifSecretIs: stored.secret)
            }
            return nil
        }
    }

    /// Presents the assertion (the JWT bearer grant).
    private func redeemAssertion(_ request: Request, metadata: MSALAuthorityMetadata) async throws -> MSALResult {
        let isMicrosoft = request.authority.kind.isMicrosoft
        var httpRequest = TokenRequests.onBehalfOf(
            tokenEndpoint: try client.tokenEndpoint(metadata, authority: request.authority, correlationID: request.correlationID),
            clientID: client.clientID, assertion: request.assertion,
            scope: TokenRequests.scopeParameter(request.scopes, excluding: client.excludedScopes),
            claims: request.claims,
            authentication: try await client.authenticationFields(
                tokenEndpoint: metadata.tokenEndpoint, authority: request.authority, claims: request.claims,
                context: request.credentialContext),
            extraQueryParameters: request.extraQueryParameters, microsoft: isMicrosoft)
        httpRequest.sendsMicrosoftHeaders = isMicrosoft
        let redemption = TokenRedemption(
            authority: request.authority, metadata: metadata, scopes: request.scopes, nonce: nil, expectedAccount: nil,
            grant: .onBehalfOf, correlationID: request.correlationID, userAssertionHash: request.assertionHash, scheme: request.scheme,
            presentation: request.presentation)
        return try await client.redeem(httpRequest, redemption)
    }
}
