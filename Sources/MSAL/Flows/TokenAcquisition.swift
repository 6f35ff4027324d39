import Foundation

/// The acquisition path every token flow shares (issue 44): the cache first, unless the request
/// skips it; a cached token past its `refresh_on` replaced, or kept while getting a new one
/// fails; on a miss, one request to the identity provider shared by every concurrent caller
/// that needs the same token (``RefreshFlightKey``), which looks at the cache once more before
/// it asks.
///
/// What differs between flows — where a token is looked up, what makes two requests the same,
/// how a token is obtained — is the flow's ``TokenRecipe``. The remembered-hit fast paths
/// (``CacheHitMemo``) stay in front of this driver, in the flows' static `memoizedResult`.
package struct TokenAcquisition<Recipe: TokenRecipe>: Sendable {
    package let recipe: Recipe
    /// Where concurrent requests for the same token meet.
    package let flights: RefreshFlights
    /// What `refresh_on` is compared with.
    package let clock: any MSALClock
    package let logger: MSALLogger

    package init(_ recipe: Recipe, flights: RefreshFlights, clock: any MSALClock, logger: MSALLogger) {
        self.recipe = recipe
        self.flights = flights
        self.clock = clock
        self.logger = logger
    }

    /// Whether a cached token needs no new token yet: it has no `refresh_on`, or that is still ahead.
    package static func isFresh(_ refreshOn: Date?, now: Date) -> Bool {
        refreshOn.map { $0 > now } ?? true
    }

    /// The token for `request`. Every ``MSALFailure`` it throws carries the request's correlation id.
    package func run(_ request: Recipe.Request) async throws -> MSALResult {
        do {
            return try await answer(request)
        } catch let error as MSALFailure {
            throw error.correlated(request.correlationID)
        }
    }

    private func answer(_ request: Recipe.Request) async throws -> MSALResult {
        let correlationID = request.correlationID
        let label = recipe.label
        if !request.skipsCache, let cached = try await recipe.cachedResult(request) {
            guard !Self.isFresh(cached.refreshOn, now: clock.now()) else {
                recipe.logHit(request, cached: cached, logger: logger)
                return cached
            }
            // Past refresh_in: a new token now, but the cached one stays valid if that fails.
            logger.info("\(public: label): cached token past refresh_on; getting a new one", correlationID: correlationID)
            do {
                return try await fetch(request, checkCacheFirst: false)
            } catch {
                logger.warning(
                    "\(public: label): getting a new token failed (\(error: error)); returning the still-valid cached token",
                    correlationID: correlationID)
                return cached
            }
        }
        recipe.logMiss(request, logger: logger)
        do {
            return try await fetch(request, checkCacheFirst: !request.skipsCache)
        } catch let error as MSALFailure {
            if let recovered = await recipe.recover(request, from: error, logger: logger) { return recovered }
            throw error
        }
    }

    /// Obtains the token in a flight shared with concurrent callers that need the same one; the
    /// caller that starts it looks at the cache first when `checkCacheFirst` (another request may
    /// have stored the token just before).
    private func fetch(_ request: Recipe.Request, checkCacheFirst: Bool) async throws -> MSALResult {
        let recipe = self.recipe
        let clock = self.clock
        let ticket = try await recipe.ticket(request)
        let shared = try await flights.run(recipe.flightKey(request)) {
            if checkCacheFirst, let cached = try await recipe.cachedResult(request), Self.isFresh(cached.refreshOn, now: clock.now()) {
                return cached
            }
            return try await recipe.redeem(request, ticket: ticket)
        }
        // Joiners report their own correlation id.
        return shared.correlated(request.correlationID)
    }
}

/// What every flow's request tells ``TokenAcquisition``.
package protocol TokenAcquisitionRequest: Sendable {
    /// The id every log line and error of the request carries.
    var correlationID: UUID { get }
    /// Whether the cache is not read first (a forced refresh, a claims challenge).
    var skipsCache: Bool { get }
    /// How the token is presented: the cache lookup, the flight key and the response check all use it.
    var scheme: TokenScheme { get }
}

/// One flow's part of ``TokenAcquisition``: where its tokens are cached, what makes two of its
/// requests the same, and how it obtains a token.
package protocol TokenRecipe: Sendable {
    associatedtype Request: TokenAcquisitionRequest
    /// What the caller reads before it joins a flight and the flight's starter redeems with
    /// (``SilentFlow``: the tokens as the caller found them); `Void` for most flows.
    associatedtype Ticket: Sendable = Void

    /// The flow's name at the start of its log messages, such as "App token request" (public text only).
    var label: String { get }

    /// The usable cached token for `request`, already a result; `nil` for none.
    func cachedResult(_ request: Request) async throws -> MSALResult?

    /// What makes two requests the same token request.
    func flightKey(_ request: Request) -> RefreshFlightKey

    /// See ``Ticket``.
    func ticket(_ request: Request) async throws -> Ticket

    /// Asks the identity provider for the token and caches it.
    func redeem(_ request: Request, ticket: Ticket) async throws -> MSALResult

    /// An answer after the provider could not be asked or refused (``SilentFlow``: a token within its
    /// extended lifetime while the service is down); `nil` lets `error` through.
    func recover(_ request: Request, from error: MSALFailure, logger: MSALLogger) async -> MSALResult?

    /// Logs a cache hit.
    func logHit(_ request: Request, cached: MSALResult, logger: MSALLogger)

    /// Logs why the request goes to the identity provider.
    func logMiss(_ request: Request, logger: MSALLogger)
}

extension TokenRecipe where Ticket == Void {
    package func ticket(_ request: Request) async throws {}
}

extension TokenRecipe {
    package func recover(_ request: Request, from error: MSALFailure, logger: MSALLogger) async -> MSALResult? { nil }

    package func logHit(_ request: Request, cached: MSALResult, logger: MSALLogger) {
        logger.verbose("\(public: label): cache hit", correlationID: request.correlationID)
    }

    package func logMiss(_ request: Request, logger: MSALLogger) {
        logger.info(
            "\(public: label): \(public: request.skipsCache ? "cache skipped (force refresh or claims)" : "no usable cached token"); asking the identity provider",
            correlationID: request.correlationID)
    }
}
