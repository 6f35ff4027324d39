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
        try await cachedToken(request).map { token in
            MSALResult(
                appToken: token.secret, target: token.target, expiresOn: token.expiresOn, refreshOn: token.refreshOn,
                environment: Self.cacheEnvironment, realm: Self.cacheRealm, authority: Self.placeholderAuthority,
                correlationId: request.correlationID, tokenSource: .cache)
        }
    }

    private func cachedToken(_ request: Request, expiryBuffer: Int64? = nil) async throws -> CachedAccessToken? {
        let clientID = client.clientID
        let now = client.nowSeconds
        let buffer = expiryBuffer ?? client.expiryBuffer
        let scopes = TokenCacheContents.lookupScopes([request.resource])
        let scheme = request.scheme
        @Sendable func lookup(_ contents: TokenCacheContents) -> CachedAccessToken? {
            contents.appToken(
                environment: Self.cacheEnvironment, clientID: clientID, realms: [Self.cacheRealm], scopes: scopes, scheme: scheme, now: now,
                expiryBuffer: buffer)
        }
        return try await client.cache.read(clientID: clientID, partition: .application(clientID: clientID, tenant: nil), lookup)
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
        let source = source
        let result = try await client.acceptAppToken(
            response,
            parse: { body, now throws(MSALFailure) in
                try ManagedIdentityResponse.parse(body, now: now, source: source, scheme: request.scheme)
            }, environment: Self.cacheEnvironment, realm: Self.cacheRealm, scopes: [request.resource],
            partition: .application(clientID: client.clientID, tenant: nil), authority: Self.placeholderAuthority,
            correlationID: correlationID)
        client.logger.info("Managed identity (\(public: source.rawValue)): token received and cached", correlationID: correlationID)
        return result
    }

    /// Sends `request`, asking again after a failure the source may recover from, as
    /// ``RetrySchedule/Rule/managedIdentity(imds:maximumRetryWait:)`` decides (IMDS three times
    /// after 1, 2 and 4 s, or seven times every 10 s after a 410; the other sources three times
    /// after 1 s; a `Retry-After` of up to ``maximumRetryWait`` seconds waited for when longer).
    private func send(_ request: MSALHTTPRequest, correlationID: UUID) async throws -> MSALHTTPResponse {
        var schedule = RetrySchedule(.managedIdentity(imds: source == .imds, maximumRetryWait: Self.maximumRetryWait))
        func retryAfter(_ text: String?) -> Double? { RetryAfter.seconds(text, now: client.clock.now(), maximum: 3600) }
        while true {
            // The attempt's answer, or the pipeline's error described for the caller.
            let outcome: Result<MSALHTTPResponse, MSALFailure>
            let failure: RetrySchedule.Failure
            do {
                let response = try await client.pipeline.send(request, correlationID: correlationID)
                outcome = .success(response)
                failure = .status(response.statusCode, retryAfter: retryAfter(response.headers["Retry-After"]))
            } catch let thrown as MSALFailure {
                if thrown.isThrottlingCacheHit { throw thrown }
                if let code = thrown.httpStatusCode {
                    failure = .status(
                        code, retryAfter: retryAfter(thrown.httpHeaders?.first { $0.key.lowercased() == "retry-after" }?.value))
                } else {
                    failure = thrown.internalCode == .networkTimeout ? .timeout : .networkFailure
                }
                let retryable = schedule.isRetryable(failure)
                var described = thrown
                described.message =
                    "The managed identity source (\(source)) \(retryable ? "did not answer" : "could not be reached"): " + thrown.message
                if retryable, described.internalCode == .internalErrorUnhandledResponse {
                    described.internalCode = .managedIdentityRequestFailed
                }
                outcome = .failure(described)
            }
            guard !Task.isCancelled, case .retry(let delay) = schedule.next(after: failure) else { return try outcome.get() }
            let status: String
            if case .status(let code, _) = failure { status = "HTTP \(code)" } else { status = "timeout" }
            client.logger.info(
                "Managed identity (\(public: source.rawValue)): \(public: status); asking again in \(public: String(delay)) s",
                correlationID: correlationID)
            try await client.clock.sleep(seconds: delay)
        }
    }
}
