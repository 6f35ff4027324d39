import Foundation
import MSALJOSE
import MSALSupport

/// The access tokens an ``MSALAccessTokenValidator`` has validated, so that a caller who sends the
/// same token with every request (for the hour it lives) has its signature checked once, not per
/// request (Envoy's `jwt_authn` keeps such a cache too).
///
/// Only a token equal byte for byte to one that passed every check is answered from here, only
/// while `now` is inside its validity (`nbf` … `exp`, with the skew), and only while the key that
/// verified it is still in the validator's key set, the same fetch of it (the validator checks
/// that; a set fetched again means each token is checked again once). A failed validation is never
/// kept. At most `capacity` tokens: beyond that, expired ones go first, then about half of the rest.
///
/// Looked up on the token's bytes (a request's header, without making a string of it first), by
/// a hash of its length and its last 64 bytes (``bucket(_:)``): every lookup then compares the whole
/// token with the one kept, so the hash only decides where a token is kept, never whether it is
/// accepted.
final class ValidatedTokenCache: Sendable {
    /// A validated token and the key that verified it.
    struct Remembered: Sendable {
        let token: AccessToken
        let key: JSONWebKey
    }

    private struct Entry {
        /// The token's text, compared with every lookup's bytes.
        let text: String
        let remembered: Remembered
        /// Seconds since 1970: valid from `notBefore` (inclusive) to `expiresAt` (exclusive), skew included.
        let notBefore: Double
        let expiresAt: Double
    }

    let capacity: Int
    /// By ``bucket(_:)``: one token per bucket; a token whose bucket is taken replaces the one there.
    private let entries = Mutex<[Int: Entry]>([:])
    /// Answers given from memory (for the tests).
    private let hitCount = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// How many tokens are kept.
    var count: Int { entries.withLock { $0.count } }
    /// How many answers came from memory.
    var hits: Int { hitCount.load(ordering: .relaxed) }

    /// Where `token` is kept: Swift's seeded hash (a new seed per process, so nobody outside can
    /// aim two tokens at one bucket) of its length and its last 64 bytes. Those are the signature's
    /// (342 characters for RS256, 86 for ES256), which differs between any two tokens the provider
    /// signed; only tokens that passed the signature check are ever kept. Hashing the whole token
    /// (about 1 KB) cost more than the rest of a remembered token's answer.
    static func bucket(_ token: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(token.count)
        hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: token[(token.count - min(token.count, 64))...])))
        return hasher.finalize()
    }

    /// The validated token equal to `token`, if it is kept and still valid at `now`.
    func remembered(_ token: String, now: Date) -> Remembered? {
        guard capacity > 0 else { return nil }
        var token = token
        return token.withUTF8 { remembered($0, now: now) }
    }

    /// The validated token whose text is `token`'s bytes, if it is kept and still valid at `now`.
    func remembered(_ token: UnsafeBufferPointer<UInt8>, now: Date) -> Remembered? {
        guard capacity > 0 else { return nil }
        let bucket = Self.bucket(token)
        let time = now.timeIntervalSince1970
        return entries.withLock { entries in
            guard let entry = entries[bucket], Self.equal(entry.text, token) else { return nil }
            guard entry.notBefore <= time, time < entry.expiresAt else {
                entries[bucket] = nil
                return nil
            }
            return entry.remembered
        }
    }

    /// Whether `text` is `bytes`, byte for byte.
    private static func equal(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.utf8.count == bytes.count else { return false }
        return text.utf8.withContiguousStorageIfAvailable { stored in
            bytes.count == 0 || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        } ?? text.utf8.elementsEqual(bytes)
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
        var text = token
        let bucket = text.withUTF8 { Self.bucket($0) }
        let entry = Entry(
            text: text, remembered: Remembered(token: validated, key: key), notBefore: notBefore, expiresAt: expiry + skew)
        let time = now.timeIntervalSince1970
        let capacity = capacity
        entries.withLock { entries in
            if entries.count >= capacity, entries[bucket] == nil {
                entries = entries.filter { $0.value.expiresAt > time }
                if entries.count >= capacity {
                    // Dictionary order is as good as random: drop about half.
                    for key in Array(entries.keys.prefix(entries.count - capacity / 2)) { entries[key] = nil }
                }
            }
            entries[bucket] = entry
        }
    }
}
