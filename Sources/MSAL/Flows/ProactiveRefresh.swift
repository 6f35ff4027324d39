import Foundation

/// The rule the app-token flows (client credentials, on-behalf-of, managed identity) share for a
/// cached token whose token response carried `refresh_in`, kept as its `refresh_on`.
///
/// Before `refresh_on` the cached token is the answer. From `refresh_on` on, a new token is asked
/// for; if that fails, the cached token, still valid until it expires, is the answer and the
/// failure is logged as a warning (MSAL for Python and .NET behave the same way). A caller that
/// waited in a request shared with others takes a token stored meanwhile only while it is before
/// its own `refresh_on` (``isFresh(_:now:)``).
struct ProactiveRefresh: Sendable {
    /// The flow's name at the start of its log messages, such as "App token request".
    let label: String
    let logger: MSALLogger

    /// Whether a cached token needs no refresh yet: it has no `refresh_on`, or that is still ahead.
    static func isFresh(_ refreshOn: Date?, now: Date) -> Bool {
        refreshOn.map { $0 > now } ?? true
    }

    /// Whether a cached token needs no refresh yet, with `refresh_on` and `now` in seconds since 1970.
    static func isFresh(_ refreshOn: Int64?, now: Int64) -> Bool {
        refreshOn.map { $0 > now } ?? true
    }

    /// The answer for `cached`, found in the cache for a request that did not skip it: `cached`
    /// itself while it is fresh, else what `fetch` returns, or `cached` when `fetch` fails.
    func answer(
        cached: MSALResult, now: Date, correlationID: UUID, fetch: () async throws -> MSALResult
    ) async -> MSALResult {
        guard !Self.isFresh(cached.refreshOn, now: now) else {
            logger.verbose("\(public: label): cache hit", correlationID: correlationID)
            return cached
        }
        logger.info("\(public: label): cached token past refresh_on; getting a new one", correlationID: correlationID)
        do {
            return try await fetch()
        } catch {
            logger.warning(
                "\(public: label): getting a new token failed (\(error: error)); returning the still-valid cached token",
                correlationID: correlationID)
            return cached
        }
    }

    /// Logs why a request goes to the network: it skipped the cache, or found no usable token.
    func logMiss(skippedCache: Bool, detail: String = "", correlationID: UUID) {
        logger.info(
            "\(public: label)\(public: detail): \(public: skippedCache ? "cache skipped (force refresh or claims)" : "no usable cached token"); asking the identity provider",
            correlationID: correlationID)
    }
}
