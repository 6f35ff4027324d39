import Foundation
import MSALJOSE

/// `acquireTokenForClient`: the application's own app token (client credentials) from the cache
/// when one is usable — no network call at all — else from the token endpoint, sharing the request
/// with concurrent callers that need the same token.
///
/// App tokens are cached as MSAL for Python writes them (``TokenCacheEntries/init(appTokenResponse:clientID:environment:realm:requestedScopes:now:)``):
/// `home_account_id` `null`, `environment` the authority's host, `realm` the token endpoint's
/// tenant; so either library answers from the other's token.
package struct ClientCredentialsFlow: TokenRecipe {
    /// The confidential client's shared state, with its authentication (``TokenClient/clientAuthentication``).
    package let client: TokenClient
    /// The Azure region token requests go to, if any.
    package let region: RegionResolver?

    package init(client: TokenClient, region: RegionResolver? = nil) {
        self.client = client
        self.region = region
    }

    /// The request as the flow sees it, read once from the parameters.
    package struct Request: TokenRequestWithBasics {
        package var basics: TokenRequestBasics
        /// The scopes as the parameters gave them (the memo's key).
        var requestedScopes: [String]
        /// The FMI path and extra body fields, with the extended cache key they give the token.
        var extras = RequestBodyExtras.none
        /// What the credential is told for this request (`x5c`, the assertion provider's context).
        var credentialContext = ClientAuthentication.RequestContext()
    }

    /// Reads and checks the parameters.
    package func request(_ parameters: MSALClientCredentialParameters) throws -> Request {
        let values = parameters.snapshot
        let federation = parameters.federationSnapshot
        var request = Request(
            basics: try client.basics(
                values, forceRefresh: parameters.forceRefresh,
                noScopes:
                    "The request names no scopes (an app token needs one resource's /.default scope, such as https://graph.microsoft.com/.default)",
                allowsDPoP: true, allowsMutualTLSPop: true
            ), requestedScopes: values.scopes)
        do throws(MSALFailure) {
            request.extras = try RequestBodyExtras(fmiPath: federation.fmiPath, extraBodyParameters: federation.extraBodyParameters)
            if let path = federation.fmiPathForClientAssertion {
                try RequestBodyExtras.checkFMIPath(path, parameter: "fmiPathForClientAssertion")
            }
        } catch {
            throw error.correlated(request.correlationID)
        }
        request.credentialContext = ClientAuthentication.RequestContext(
            sendX5C: federation.sendX5C, clientAssertionFmiPath: federation.fmiPathForClientAssertion)
        return request
    }

    /// The answer the cache lookup gave last for the same authority and scopes, while the cache
    /// has not changed since and the token is still usable (``CacheHitMemo``), reissued with this
    /// request's correlation id; `nil` when the request skips the cache or must be looked up.
    ///
    /// Reads only the parameters it needs and builds one object: the cache hit of a service that
    /// asks for the same app token on every request it serves.
    ///
    /// Static, so that the hit does not build the flow.
    package static func memoizedResult(_ parameters: MSALClientCredentialParameters, client: TokenClient) -> MSALResult? {
        guard !parameters.forceRefresh else { return nil }
        // A request with extra body fields is told apart by them (checked when it was looked up);
        // an FMI path for the assertion is checked as the full request checks it, never skipped.
        let federation = parameters.federationSnapshot
        if let path = federation.fmiPathForClientAssertion {
            do throws(MSALFailure) {
                try RequestBodyExtras.checkFMIPath(path, parameter: "fmiPathForClientAssertion")
            } catch {
                return nil
            }
        }
        let extras = RequestBodyExtras.identity(fmiPath: federation.fmiPath, extraBodyParameters: federation.extraBodyParameters)
        let request: (key: AppTokenHitKey, correlationID: UUID?)? = parameters.withValues { values in
            // A bound token is presented with its key: never from the memo.
            guard values.claimsRequest == nil,
                values.authenticationScheme == nil || values.authenticationScheme is MSALAuthenticationSchemeBearer
            else { return nil }
            return (
                AppTokenHitKey(authority: values.authority ?? client.defaultAuthority, scopes: values.scopes, extras: extras),
                values.correlationId
            )
        }
        guard let request else { return nil }
        guard let result = client.appTokenHits.result(for: request.key, in: client.cache, now: client.nowSeconds) else { return nil }
        let correlationID = request.correlationID ?? client.correlationIDs.make()
        client.logger.verbose("App token request: cache hit", correlationID: correlationID)
        return result.reissued(authority: request.key.authority, correlationID: correlationID)
    }

    /// Runs the request (``TokenAcquisition``). Every ``MSALFailure`` it throws carries the request's correlation id.
    package func run(_ request: Request) async throws -> MSALResult {
        let result = try await TokenAcquisition(self, flights: client.refreshFlights, clock: client.clock, logger: client.logger).run(
            request)
        do throws(MSALFailure) {
            return try client.present(result, request.presentation)
        } catch {
            throw error.correlated(request.correlationID)
        }
    }

    package var label: String { "App token request" }

    /// The environment app tokens are stored and looked up under: the authority's host, as
    /// configured (lower-cased), as MSAL for Python stores them.
    private static func environment(_ authority: MSALAuthority) -> String {
        CacheText.lowercased(authority.components.hostAndPort)
    }

    /// The realms an app token may be cached under: the authority's tenant segment, and the token
    /// endpoint's when the metadata is known (Entra names a domain-named tenant by its id there).
    private func realms(_ request: Request) -> [String] {
        var realms = [request.authority.components.tenant]
        // A tenant id is its token endpoint's tenant too: the lookup stays free of the metadata.
        if CacheText.isGUID(realms[0]) { return realms }
        if let endpoint = client.resolver.cachedMetadata(for: request.authority)?.tokenEndpoint,
            let realm = Self.realm(of: endpoint), !CacheText.equalIgnoringASCIICase(realm, realms[0])
        {
            realms.append(realm)
        }
        return realms
    }

    /// The first path segment of a token endpoint: its tenant (MSAL for Python's `realm`).
    private static func realm(of tokenEndpoint: URL) -> String? {
        tokenEndpoint.path.split(separator: "/").first.map(String.init)
    }

    /// ``findCached(_:)``; on a miss for a tenant named by domain whose metadata is not known
    /// yet, the metadata is fetched (discovery, no token request) and the token endpoint's tenant
    /// tried too: MSAL for Python, and this flow, store app tokens under it.
    package func cachedResult(_ request: Request) async throws -> MSALResult? {
        if let cached = try await findCached(request) { return cached }
        let tenant = request.authority.components.tenant
        guard !CacheText.isGUID(tenant), !TokenClient.isMultiTenant(tenant), client.resolver.cachedMetadata(for: request.authority) == nil
        else { return nil }
        let metadata = try await client.resolver.resolve(request.authority, correlationID: request.correlationID)
        guard let realm = Self.realm(of: metadata.tokenEndpoint), !CacheText.equalIgnoringASCIICase(realm, tenant) else { return nil }
        return try await findCached(request)
    }

    /// The partition of the application's tokens at the request's authority
    /// (``TokenCachePartition/application(clientID:tenant:)``): its tenant as configured, none for
    /// `common` and `organizations`.
    private static func partition(_ request: Request, clientID: String) -> TokenCachePartition {
        let tenant = request.authority.components.tenant
        return .application(clientID: clientID, tenant: TokenClient.isMultiTenant(tenant) ? nil : tenant)
    }

    private func findCached(_ request: Request) async throws -> MSALResult? {
        let clientID = client.clientID
        let now = client.nowSeconds
        let buffer = client.expiryBuffer
        let environment = Self.environment(request.authority)
        let realms = realms(request)
        let scopes = Set(request.scopes.map(CacheText.lowercased))
        let scheme = request.scheme
        let extendedKey = request.extras.extendedKey
        @Sendable func lookup(_ contents: TokenCacheContents) -> CachedAccessToken? {
            contents.appToken(
                environment: environment, clientID: clientID, realms: realms, scopes: scopes, scheme: scheme, now: now,
                expiryBuffer: buffer,
                extendedKey: extendedKey)
        }
        let found: CachedAccessToken?
        // The contents the answer came from, when they are the ones in memory (the memo's check).
        var seen: TokenCacheContents.Version?
        if let answered = try client.cache.readIfInMemory({ contents in (lookup(contents), contents.version) }) {
            found = answered.0
            seen = answered.1
        } else {
            found = try await client.cache.readFromStorage(clientID: clientID, partition: Self.partition(request, clientID: clientID)) {
                lookup($0)
            }
        }
        guard let token = found else { return nil }
        let refreshOn = token.refreshOn
        let answer = MSALResult(
            appToken: token.secret, target: token.target, expiresOn: token.expiresOn, refreshOn: refreshOn, environment: token.environment,
            realm: token.realm, authority: request.authority, correlationId: request.correlationID, tokenSource: .cache)
        if let seen, request.scheme == .bearer {
            client.appTokenHits.remember(
                answer, for: AppTokenHitKey(authority: request.authority, scopes: request.requestedScopes, extras: request.extras.identity),
                seen: seen,
                expiresOn: token.expiresOn, refreshOn: refreshOn, expiryBuffer: buffer, now: now)
        }
        return answer
    }

    package func flightKey(_ request: Request) -> RefreshFlightKey {
        RefreshFlightKey(
            subject: .application(home: TokenCacheIndex.applicationHome(realm: request.authority.components.tenant)),
            scheme: request.scheme, environment: CacheEnvironmentAliases.builtIn.group(of: Self.environment(request.authority)),
            realm: CacheText.lowercased(request.authority.components.tenant), scopes: request.scopes.map(CacheText.lowercased).sorted(),
            claims: request.claims, extendedKey: request.extras.extendedKey)
    }

    /// `tokenEndpoint` on the regional host when a region applies: a Microsoft Entra authority on
    /// a Microsoft cloud host, and a region configured, forced or detected.
    private func regionalTokenEndpoint(_ tokenEndpoint: URL, request: Request) async -> URL {
        guard let region, request.authority.kind == .aad, let host = tokenEndpoint.host,
            KnownClouds.trustedHosts.contains(host.lowercased()), let name = await region.region(correlationID: request.correlationID),
            var components = URLComponents(url: tokenEndpoint, resolvingAgainstBaseURL: false)
        else { return tokenEndpoint }
        components.host = MSALAzureRegion.regionalHost(host, region: name)
        guard let regional = components.url else { return tokenEndpoint }
        client.logger.info("App token request to the regional endpoint \(host: regional)", correlationID: request.correlationID)
        return regional
    }

    /// ``TokenClient/mutualTLSTokenEndpoint(_:authority:region:correlationID:)`` with the region, if
    /// one applies (configured, forced or detected) to a Microsoft Entra authority.
    private func mutualTLSTokenEndpoint(_ metadata: MSALAuthorityMetadata, request: Request) async throws -> URL {
        var regionName: String?
        if let region, request.authority.kind == .aad {
            regionName = await region.region(correlationID: request.correlationID)
        }
        let endpoint = try TokenClient.mutualTLSTokenEndpoint(
            metadata, authority: request.authority, region: regionName, correlationID: request.correlationID)
        client.logger.info("App token request over mutual TLS to \(host: endpoint)", correlationID: request.correlationID)
        return endpoint
    }

    package func redeem(_ request: Request, ticket: Void) async throws -> MSALResult {
        let correlationID = request.correlationID
        let clientID = client.clientID
        let metadata = try await client.resolver.resolve(request.authority, correlationID: correlationID)
        let kind = request.authority.kind
        let fields: [(String, String)]
        let tokenEndpoint: URL
        if client.tlsCertificate(request.presentation) != nil {
            // Mutual TLS: the handshake authenticates the client (no assertion, even with a
            // certificate credential that signs them otherwise), at the mTLS endpoint.
            fields = []
            tokenEndpoint = try await mutualTLSTokenEndpoint(metadata, request: request)
        } else {
            // The assertion's audience stays the global token endpoint (as MSAL for Python sends it).
            fields = try await client.authenticationFields(
                tokenEndpoint: metadata.tokenEndpoint, authority: request.authority, claims: request.claims,
                context: request.credentialContext)
            tokenEndpoint = await regionalTokenEndpoint(metadata.tokenEndpoint, request: request)
        }
        var httpRequest = TokenRequests.clientCredentials(
            tokenEndpoint: tokenEndpoint, clientID: clientID, scope: request.scopes.joined(separator: " "), claims: request.claims,
            bodyFields: request.extras.fields.map { ($0.name, $0.value) },
            authentication: fields + client.tokenRequestFields(request.presentation), extraQueryParameters: request.extraQueryParameters)
        httpRequest.sendsMicrosoftHeaders = kind.isMicrosoft
        let response = try await client.sendTokenRequest(httpRequest, presentation: request.presentation, correlationID: correlationID)
        guard response.statusCode == 200 else {
            throw MSALFailure(tokenEndpointResponse: response, grant: .clientCredentials, correlationID: correlationID)
        }
        let realm = Self.realm(of: metadata.tokenEndpoint) ?? request.authority.components.tenant
        let result = try await client.acceptAppToken(
            response, parse: { body, _ throws(MSALFailure) in try TokenResponse(parsing: body, scheme: request.scheme) },
            environment: Self.environment(request.authority), realm: realm, scopes: request.scopes,
            partition: Self.partition(request, clientID: clientID), authority: request.authority, correlationID: correlationID,
            scheme: request.scheme, extendedKey: request.extras.extendedKey)
        client.logger.info(
            "App token accepted and cached in realm \(oii: realm); scopes \(public: result.scopes.joined(separator: " "))",
            correlationID: correlationID)
        return result
    }
}
