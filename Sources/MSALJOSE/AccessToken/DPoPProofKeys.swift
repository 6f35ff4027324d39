import MSALSupport

/// The keys of the DPoP proofs a server checked lately, by the proof header's bytes: a client
/// signs every proof with one key under one header (`typ`, `alg`, `jwk`), so the key is read from
/// its JWK, checked and thumbprinted once rather than for every request.
///
/// An entry is made only from a header whose key passed every check, and is found only by the very
/// same bytes, so a hit is exactly what reading those bytes again would give. Bounded: when full,
/// the oldest entry is forgotten first.
package final class DPoPProofKeys: Sendable {
    /// A proof header's key and its RFC 7638 thumbprint.
    package struct Entry: Sendable {
        package var key: JSONWebKey
        package var thumbprint: String
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// The headers in the order they were remembered; entries before `head` are gone.
        var order: [String] = []
        var head = 0
    }

    /// The most keys remembered.
    package let capacity: Int
    /// The longest header remembered, in bytes (a larger one is checked every time).
    package static let maximumHeaderSize = 2048
    private let state = Mutex(State())

    /// A store of at most `capacity` keys.
    package init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
    }

    /// The key remembered for the proof header `segment` (its base64url text), if any.
    package func entry(forHeader segment: String) -> Entry? {
        state.withLock { $0.entries[segment] }
    }

    /// Remembers `entry` for the proof header `segment`.
    package func remember(_ entry: Entry, forHeader segment: String) {
        guard segment.utf8.count <= Self.maximumHeaderSize else { return }
        let capacity = capacity
        state.withLock { state in
            guard state.entries[segment] == nil else { return }
            while state.entries.count >= capacity, state.head < state.order.count {
                state.entries[state.order[state.head]] = nil
                state.head += 1
            }
            if state.head > capacity {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            state.entries[segment] = entry
            state.order.append(segment)
        }
    }

    /// How many keys are remembered.
    package var count: Int { state.withLock { $0.entries.count } }
}
