import Foundation
import MSALSupport

/// The app tokens `acquireTokenForClient` found in the cache last, per authority and requested
/// scopes, so that asking again for the same token costs a dictionary probe instead of a cache
/// lookup, and the result's parts are not built again.
///
/// A remembered answer is used only while the cache's contents are the ones it was found in (the
/// same ``TokenCacheContents/lineage`` and ``TokenCacheContents/revision``: any store, removal or
/// reload of the cache forgets every answer) and while the token is usable: more than the client's
/// expiry buffer before it expires, and before its `refresh_on`. So a memo answer is always the
/// answer the cache lookup would give at that moment. It is read inside
/// ``TokenCache/readIfInMemory(_:)``, which for a file-backed cache first checks that the file has
/// not changed since this process last read it.
///
/// At most ``capacity`` answers are kept; when it is full, all are forgotten.
package final class AppTokenMemo: Sendable {
    /// The most answers kept at once.
    package static let capacity = 1024

    /// A request as the memo tells requests apart: the authority (its kind and canonical URL, as
    /// ``MSALAuthority`` compares them; the canonical tenant is the one the lookup reads) and the
    /// scopes exactly as the parameters gave them.
    package struct Key: Hashable, Sendable {
        let authority: MSALAuthority
        let scopes: [String]

        package init(authority: MSALAuthority, scopes: [String]) {
            self.authority = authority
            self.scopes = scopes
        }

        package static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.scopes == rhs.scopes else { return false }
            return lhs.authority === rhs.authority || lhs.authority == rhs.authority
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(authority)
            hasher.combine(scopes)
        }
    }

    private struct Answer {
        /// The result the cache lookup built; reissued with each request's authority and correlation id.
        let result: MSALResult
        /// The first second (since 1970) the answer may no longer be given.
        let usableUntil: Int64
    }

    private struct State {
        /// The contents the answers were found in.
        var lineage: TokenCacheContents.Lineage?
        var revision = 0
        var answers: [Key: Answer] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// The remembered result for `key`, when `contents` are still the contents it was found in
    /// and it is still usable at `now` (seconds since 1970).
    package func result(for key: Key, contents: TokenCacheContents, now: Int64) -> MSALResult? {
        state.withLock { state in
            guard state.lineage === contents.lineage, state.revision == contents.revision else {
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

    /// Remembers `result`, which the cache lookup found for `key` in the contents of `lineage` at
    /// `revision`, as usable until `usableUntil` (exclusive, seconds since 1970).
    package func remember(
        _ result: MSALResult, for key: Key, lineage: TokenCacheContents.Lineage, revision: Int, usableUntil: Int64
    ) {
        state.withLock { state in
            if state.lineage !== lineage || state.revision != revision {
                // An answer from older contents than the ones remembered is not kept.
                if state.lineage === lineage && revision < state.revision { return }
                state.lineage = lineage
                state.revision = revision
                state.answers.removeAll()
            }
            if state.answers.count >= Self.capacity, state.answers[key] == nil { state.answers.removeAll() }
            state.answers[key] = Answer(result: result, usableUntil: usableUntil)
        }
    }

    /// The number of answers remembered (for tests).
    package var count: Int { state.withLock { $0.answers.count } }
}
