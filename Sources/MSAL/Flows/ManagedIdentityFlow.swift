import Foundation
import MSALJOSE
import MSALSupport

/// A managed identity's token for one resource: from the cache while it is usable, else from the
/// detected source with that source's wire format and retry policy, shared with concurrent
/// callers that need the same token.
///
/// Tokens are cached as app tokens (no home account) under the client id
/// ``MSALManagedIdentity/cacheClientID``, the environment ``cacheEnvironment`` and the realm
/// ``cacheRealm``, with the resource as the target.
package struct ManagedIdentityFlow: TokenRecipe {
    package let identity: MSALManagedIdentity
    package let source: MSALManagedIdentitySource
    package let endpoints: ManagedIdentityEndpoints
    /// The application's pipeline, cache, clock and settings (``TokenClient/Role/managedIdentity``).
    package let client: TokenClient

    /// The `environment` of cached managed-identity tokens (MSAL for Python writes `localhost`).
    package static let cacheEnvironment = "localhost"
    /// The `realm` of cached managed-identity tokens (as MSAL for Python and .NET write it).
    package static let cacheRealm = "managed_identity"
    /// The ``MSALResult/authority`` of managed-identity results: a placeholder, as their tokens come
    /// from the platform's source, not from an authority the application names.
    package static let placeholderAuthority = MSALAuthority(
        components: AuthorityComponents(
            kind: .aad, scheme: "https", host: "login.microsoftonline.com", port: nil, tenant: cacheRealm, rawTenant: cacheRealm,
            policy: nil, issuerPath: [], isLoopback: false, canonical: "https://login.microsoftonline.com/\(cacheRealm)"),
        options: MSALAuthorityOptions())

    /// The longest `Retry-After` waited for before asking again; a source that asks for longer is not retried.
    package static let maximumRetryWait: Double = 60

    package struct Request: TokenAcquisitionRequest {
        var resource: String
        var claims: String?
        package var skipsCache: Bool
        package var correlationID: UUID
        package var scheme = TokenScheme.bearer
    }

    /// Reads and checks the parameters: the resource trimmed, without a trailing `/.default`.
    package func request(_ parameters: MSALManagedIdentityParameters) throws -> Request {
        let values = parameters.snapshot
        let correlationID = values.correlationId ?? client.correlationIDs.make()
        var resource = parameters.resource.trimmingCharacters(in: .whitespacesAndNewlines)
        if resource.lowercased().hasSuffix("/.default") { resource.removeLast("/.default".count) }
        guard !resource.isEmpty, !resource.contains(where: { $0.isWhitespace }) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The resource must be one application ID URI, such as https://management.azure.com",
                correlationID: correlationID)
        }
        return Request(
            resource: resource, claims: values.claims, skipsCache: values.forceRefresh || values.claims != nil, correlationID: correlationID
        )
    }

    /// Runs the request (``TokenAcquisition``). Every ``MSALFailure`` it throws carries the request's correlation id.
    package func run(_ request: Request) async throws -> MSALResult {
        try await TokenAcquisition(self, flights: client.refreshFlights, clock: client.clock, logger: client.logger).run(request)
    }

    package var label: String { "Managed identity (\(source.rawValue))" }

    package func cachedResult(_ request: Request) async throws -> MSALResult? {
        try await cachedToken(request).map { result($0, request: request, source: .cache) }
    }

    private func cachedToken(_ request: Request, expiryBuffer: Int64? = nil) async throws -> CachedAccessToken? {
        let clientID = identity.cacheClientID
        let now = client.nowSeconds
        let buffer = expiryBuffer ?? client.expiryBuffer
        let scopes = TokenCacheContents.lookupScopes([request.resource])
        let scheme = request.scheme
        @Sendable func lookup(_ contents: TokenCacheContents) -> CachedAccessToken? {
            contents.appToken(
                environment: Self.cacheEnvironment, clientID: clientID, realms: [Self.cacheRealm], scopes: scopes, scheme: scheme, now: now,
                expiryBuffer: buffer)
        }
        if let answered = try client.cache.readIfInMemory(lookup) { return answered }
        return try await client.cache.readFromStorage(clientID: clientID, partition: .application(clientID: clientID, tenant: nil)) {
            lookup($0)
        }
    }

    private func result(_ token: CachedAccessToken, request: Request, source: MSALTokenSource) -> MSALResult {
        MSALResult(
            accessToken: token.secret, expiresOn: Date(timeIntervalSince1970: Double(token.expiresOn)), extendedLifeTimeToken: false,
            idToken: nil, target: token.target,
            tenantProfile: MSALTenantProfile(
                identifier: "", environment: Self.cacheEnvironment, tenantId: Self.cacheRealm, isHomeTenantProfile: false, idToken: nil),
            account: MSALAccount(application: Self.cacheEnvironment), authority: Self.placeholderAuthority,
            correlationId: request.correlationID,
            tokenSource: source, refreshOn: token.refreshOn.map { Date(timeIntervalSince1970: Double($0)) })
    }

    package func flightKey(_ request: Request) -> RefreshFlightKey {
        RefreshFlightKey(
            subject: .managedIdentity(clientID: identity.cacheClientID), scheme: request.scheme, environment: Self.cacheEnvironment,
            realm: Self.cacheRealm, scopes: [CacheText.lowercased(request.resource)], claims: request.claims)
    }

    package func redeem(_ request: Request, ticket: Void) async throws -> MSALResult {
        let correlationID = request.correlationID
        // A claims challenge names the token it rejected to Service Fabric: the cached one, if any.
        var replacing: String?
        if source == .serviceFabric, request.claims != nil, let cached = try await cachedToken(request, expiryBuffer: 0) {
            replacing = Hex.lowercase(try MessageDigest.sha256(Array(cached.secret.utf8)))
        }
        let httpRequest = try endpoints.request(
            source, identity: identity, resource: request.resource, correlationID: correlationID, capabilities: client.capabilities,
            claims: request.claims, replacing: replacing)
        var response = try await send(httpRequest, correlationID: correlationID)
        if source == .azureArc {
            guard response.statusCode == 401 else {
                throw ManagedIdentityResponse.error(response, source: source, correlationID: correlationID, expected: 401)
            }
            let path = try ArcChallenge.keyPath(challenge: response.headers["WWW-Authenticate"], directory: endpoints.arcTokenDirectory)
            let key = try await BlockingWork.shared.run { () throws -> String in try ArcChallenge.readKey(at: path) }
            var answered = httpRequest
            answered.headers.replaceOrAdd(name: "Authorization", value: "Basic " + key)
            response = try await send(answered, correlationID: correlationID)
        }
        guard response.statusCode == 200 else {
            throw ManagedIdentityResponse.error(response, source: source, correlationID: correlationID)
        }
        let now = client.nowSeconds
        let token: TokenResponse
        do throws(MSALFailure) {
            token = try ManagedIdentityResponse.parse(response.body, now: now, source: source, scheme: request.scheme)
        } catch {
            var error = error.correlated(correlationID)
            error.httpStatusCode = response.statusCode
            throw error
        }
        let clientID = identity.cacheClientID
        let entries = TokenCacheEntries(
            appTokenResponse: token, clientID: clientID, environment: Self.cacheEnvironment, realm: Self.cacheRealm,
            requestedScopes: [request.resource], now: now)
        try await client.cache.write(clientID: clientID, partition: .application(clientID: clientID, tenant: nil)) { contents in
            contents.save(entries, clientID: clientID)
        }
        client.logger.info("Managed identity (\(public: source.rawValue)): token received and cached", correlationID: correlationID)
        return result(
            CachedAccessToken(
                key: entries.accessToken.key, secret: token.accessToken, target: entries.target, tokenType: token.tokenType,
                homeAccountID: "",
                environment: Self.cacheEnvironment, realm: Self.cacheRealm, cachedAt: now, expiresOn: now + token.expiresIn,
                extendedExpiresOn: nil, refreshOn: token.refreshIn.map { now + $0 }),
            request: request, source: .identityProvider)
    }

    /// Sends `request`, asking again after a failure the source may recover from, as
    /// ``RetrySchedule/Rule/managedIdentity(imds:maximumRetryWait:)`` decides (IMDS three times
    /// after 1, 2 and 4 s, or seven times every 10 s after a 410; the other sources three times
    /// after 1 s; a `Retry-After` of up to ``maximumRetryWait`` seconds waited for when longer).
    private func send(_ request: MSALHTTPRequest, correlationID: UUID) async throws -> MSALHTTPResponse {
        var schedule = RetrySchedule(.managedIdentity(imds: source == .imds, maximumRetryWait: Self.maximumRetryWait))
        while true {
            let failure: RetrySchedule.Failure
            var error: MSALFailure?
            var failedResponse: MSALHTTPResponse?
            do {
                let response = try await client.pipeline.send(request, correlationID: correlationID)
                let answer = RetrySchedule.Failure.status(
                    response.statusCode,
                    retryAfter: RetryAfter.seconds(response.headers["Retry-After"], now: client.clock.now(), maximum: 3600))
                guard schedule.isRetryable(answer) else { return response }
                failure = answer
                failedResponse = response
            } catch let thrown as MSALFailure {
                if thrown.isThrottlingCacheHit { throw thrown }
                let kind: RetrySchedule.Failure
                if let code = thrown.httpStatusCode {
                    let retryAfterText = thrown.httpHeaders?.first { $0.key.lowercased() == "retry-after" }?.value
                    kind = .status(code, retryAfter: RetryAfter.seconds(retryAfterText, now: client.clock.now(), maximum: 3600))
                } else {
                    kind = thrown.internalCode == .networkTimeout ? .timeout : .networkFailure
                }
                guard schedule.isRetryable(kind) else {
                    var described = thrown
                    described.message = "The managed identity source (\(source)) could not be reached: " + thrown.message
                    throw described
                }
                var described = thrown
                described.message = "The managed identity source (\(source)) did not answer: " + thrown.message
                if described.internalCode == .internalErrorUnhandledResponse { described.internalCode = .managedIdentityRequestFailed }
                failure = kind
                error = described
            }
            guard !Task.isCancelled, case .retry(let delay) = schedule.next(after: failure) else {
                if let error { throw error }
                return failedResponse!
            }
            let status: String
            if case .status(let code, _) = failure { status = "HTTP \(code)" } else { status = "timeout" }
            client.logger.info(
                "Managed identity (\(public: source.rawValue)): \(public: status); asking again in \(public: String(delay)) s",
                correlationID: correlationID)
            try await client.clock.sleep(seconds: delay)
        }
    }
}
