import MSALSupport

/// The DPoP proofs a protected API accepted and that are still within their lifetime, by key and
/// `jti`, so that none is accepted twice (RFC 9449 §11.1). Bounded: when full of live proofs, the
/// oldest is forgotten first.
final class DPoPReplayCache: Sendable {
    private struct State {
        /// When each remembered proof may be forgotten, by key and `jti`.
        var expiries: [String: Int64] = [:]
        /// The proofs in the order they were accepted; entries before `head` are gone.
        var order: [(id: String, expiresAt: Int64)] = []
        var head = 0
        /// When the whole store was last swept for expired proofs: at most once a second, so a
        /// flood of proofs into a full store costs one sweep a second, not one per proof.
        var sweptAt = Int64.min
    }

    /// The most proofs remembered.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Remembers the proof `id` until `expiresAt`; `false` when it is remembered already (a replay).
    func accept(_ id: String, expiresAt: Int64, now: Int64) -> Bool {
        let capacity = capacity
        return state.withLock { state in
            if let seen = state.expiries[id], seen > now { return false }
            // Forget what has expired at the front (the validator's expiries grow with its clock).
            while state.head < state.order.count, state.order[state.head].expiresAt <= now {
                let (oldest, expiry) = state.order[state.head]
                if state.expiries[oldest] == expiry { state.expiries[oldest] = nil }
                state.head += 1
            }
            if state.expiries.count >= capacity {
                // Full: first whatever has expired anywhere, then the oldest live proofs.
                if state.sweptAt != now {
                    state.sweptAt = now
                    state.expiries = state.expiries.filter { $0.value > now }
                    let expiries = state.expiries
                    state.order = state.order[state.head...].filter { expiries[$0.id] == $0.expiresAt }
                    state.head = 0
                }
                while state.expiries.count >= capacity, state.head < state.order.count {
                    state.expiries[state.order[state.head].id] = nil
                    state.head += 1
                }
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            state.expiries[id] = expiresAt
            state.order.append((id, expiresAt))
            return true
        }
    }

    /// How many proofs are remembered.
    var count: Int { state.withLock { $0.expiries.count } }
}
