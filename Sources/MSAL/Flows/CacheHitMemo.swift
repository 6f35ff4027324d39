import Foundation
import MSALSupport

/// The cache hits a flow answered last, per request, so that asking again for the same token costs
/// a dictionary probe instead of a cache lookup, and the result's parts are not built again.
/// `acquireTokenForClient` keys them by ``AppTokenHitKey``, `acquireTokenSilent` by ``SilentHitKey``.
///
/// A remembered answer is used only while the cache's contents are the ones it was found in (the
/// same ``TokenCacheContents/lineage`` and ``TokenCacheContents/revision``: any store, removal or
/// reload of the cache forgets every answer) and while the token is usable: more than the client's
/// expiry buffer before it expires, and before its `refresh_on`. So a memo answer is always the
/// answer the cache lookup would give at that moment. It is read inside
/// ``TokenCache/readIfInMemory(_:)``, which for a file-backed cache first checks that the file has
/// not changed since this process last read it.
///
/// At most ``CacheHitMemoLimits/capacity`` answers are kept; when it is full, all are forgotten.
package final class CacheHitMemo<Key: Hashable & Sendable>: Sendable {
    private struct Answer {
        /// The result the cache lookup built; reissued with each request's authority and correlation id.
        let result: MSALResult
        /// The first second (since 1970) the answer may no longer be given.
        let usableUntil: Int64
    }

    private struct State {
        /// The contents the answers were found in.
        var version: TokenCacheContents.Version?
        var answers: [Key: Answer] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// The remembered result for `key`, when `contents` are still the contents it was found in
    /// and it is still usable at `now` (seconds since 1970).
    package func result(for key: Key, contents: TokenCacheContents, now: Int64) -> MSALResult? {
        state.withLock { state in
            guard let version = state.version, version.matches(contents) else {
                // The cache changed: nothing remembered is known to be its answer any more.
                if !state.answers.isEmpty { state.answers.removeAll() }
                return nil
            }
            guard let answer = state.answers[key] else { return nil }
            guard now < answer.usableUntil else {
                state.answers[key] = nil
                return nil
            }
            return answer.result
        }
    }

    /// The remembered result for `key` when `cache` still holds, in memory, the contents it was
    /// found in (for a file, one `lstat` shows the file unchanged) and it is usable at `now`.
    package func result(for key: Key, in cache: TokenCache, now: Int64) -> MSALResult? {
        guard let found = try? cache.readIfInMemory({ result(for: key, contents: $0, now: now) }) else { return nil }
        return found
    }

    /// Remembers `result`, which the cache lookup found for `key` in the contents `seen`, for a
    /// token that expires at `expiresOn` and should be refreshed at `refreshOn` (seconds since
    /// 1970). It is usable while the lookup would still find it — more than `expiryBuffer` seconds
    /// before expiry — and needs no refresh yet; an answer already unusable at `now` is not kept.
    package func remember(
        _ result: MSALResult, for key: Key, seen: TokenCacheContents.Version, expiresOn: Int64, refreshOn: Int64?, expiryBuffer: Int64,
        now: Int64
    ) {
        // The lookup found the token usable (expiresOn - now > expiryBuffer), so this cannot overflow.
        let usableUntil = min(expiresOn - expiryBuffer, refreshOn ?? .max)
        guard usableUntil > now else { return }
        state.withLock { state in
            // An answer from older contents than the ones remembered is not kept.
            if let version = state.version, version.isNewer(than: seen) { return }
            if state.version != seen {
                state.version = seen
                state.answers.removeAll()
            }
            if state.answers.count >= CacheHitMemoLimits.capacity, state.answers[key] == nil { state.answers.removeAll() }
            state.answers[key] = Answer(result: result, usableUntil: usableUntil)
        }
    }

    /// Forgets every answer now (signing an account out: its tokens are not kept in memory until
    /// the next lookup would notice the change).
    package func forgetAll() {
        state.withLock { state in
            state.answers.removeAll()
            state.version = nil
        }
    }

    /// The number of answers remembered (for tests).
    package var count: Int { state.withLock { $0.answers.count } }
}

/// The bound of every ``CacheHitMemo``.
package enum CacheHitMemoLimits {
    /// The most answers one memo keeps at once.
    package static let capacity = 1024
}
