import Foundation
import MSALJOSE
import MSALSupport

/// The access tokens an ``MSALAccessTokenValidator`` has validated, so that a caller who sends the
/// same token with every request (for the hour it lives) has its signature checked once, not per
/// request (Envoy's `jwt_authn` keeps such a cache too).
///
/// Keyed by the whole token: only a token equal byte for byte to one that passed every check is
/// answered from here, only while `now` is inside its validity (`nbf` … `exp`, with the skew), and
/// only while the key that verified it is still in the validator's key set, the same fetch of it
/// (the validator checks that; a set fetched again means each token is checked again once). A
/// failed validation is never kept. At most `capacity` tokens: beyond that, expired ones go first,
/// then about half of the rest.
final class ValidatedTokenCache: Sendable {
    /// A token's key: the token, with its hash computed before the lock is taken.
    private struct Key: Hashable {
        let token: String
        let hash: Int

        init(_ token: String) {
            self.token = token
            self.hash = token.hashValue
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (lhs: Key, rhs: Key) -> Bool { lhs.hash == rhs.hash && lhs.token == rhs.token }
    }

    /// A validated token and the key that verified it.
    struct Remembered: Sendable {
        let token: AccessToken
        let key: JSONWebKey
    }

    private struct Entry {
        let remembered: Remembered
        /// Seconds since 1970: valid from `notBefore` (inclusive) to `expiresAt` (exclusive), skew included.
        let notBefore: Double
        let expiresAt: Double
    }

    let capacity: Int
    private let entries = Mutex<[Key: Entry]>([:])
    /// Answers given from memory (for the tests).
    private let hitCount = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// How many tokens are kept.
    var count: Int { entries.withLock { $0.count } }
    /// How many answers came from memory.
    var hits: Int { hitCount.load(ordering: .relaxed) }

    /// The validated token equal to `token`, if it is kept and still valid at `now`.
    func remembered(_ token: String, now: Date) -> Remembered? {
        guard capacity > 0 else { return nil }
        let key = Key(token)
        let time = now.timeIntervalSince1970
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.notBefore <= time, time < entry.expiresAt else {
                entries[key] = nil
                return nil
            }
            return entry.remembered
        }
    }

    /// Counts an answer given from memory.
    func countHit() {
        hitCount.add(1, ordering: .relaxed)
    }

    /// Keeps `validated`, which `key` verified and which passed every check at `now` with `skew`
    /// seconds of tolerance.
    func keep(_ validated: AccessToken, key: JSONWebKey, token: String, skew: Double, now: Date) {
        guard capacity > 0, let expiry = validated.jwt.numberClaim("exp") else { return }
        let notBefore = validated.jwt.numberClaim("nbf").map { $0 - skew } ?? -Double.infinity
        let entry = Entry(remembered: Remembered(token: validated, key: key), notBefore: notBefore, expiresAt: expiry + skew)
        let tokenKey = Key(token)
        let time = now.timeIntervalSince1970
        let capacity = capacity
        entries.withLock { entries in
            if entries.count >= capacity, entries[tokenKey] == nil {
                entries = entries.filter { $0.value.expiresAt > time }
                if entries.count >= capacity {
                    // Dictionary order is as good as random: drop about half.
                    for key in Array(entries.keys.prefix(entries.count - capacity / 2)) { entries[key] = nil }
                }
            }
            entries[tokenKey] = entry
        }
    }
}
