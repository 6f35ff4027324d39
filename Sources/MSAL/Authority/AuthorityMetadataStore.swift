import Foundation
import MSALSupport

/// Cached authority knowledge: instance-discovery answers per host (including `invalid_instance`),
/// resolved metadata per authority, and JWK sets per `jwks_uri`.
///
/// Concurrent first requests for the same key share one network request. An application keeps
/// one store for its lifetime; ``shared`` is the process-wide one that applications using the
/// default transport share, as MSAL caches discovery per process.
package final class AuthorityMetadataStore: Sendable {
    package struct InstanceKey: Hashable, Sendable {
        package var discoveryHost: String
        package var host: String
    }

    package struct MetadataKey: Hashable, Sendable {
        package var canonical: String
        package var kind: MSALAuthorityKind
        package var mode: AuthorityDiscoveryMode
        package var knownHosts: String
    }

    /// Seconds an instance-discovery answer or OpenID configuration is kept (MSAL for Python: 24 h).
    package static let metadataLifetime: Double = 24 * 3600
    /// Seconds an `invalid_instance` answer is kept.
    package static let negativeLifetime: Double = 3600
    /// Seconds a JWK set is kept.
    package static let keySetLifetime: Double = 24 * 3600
    /// Shortest time between two fetches of one JWK set triggered by an unknown `kid`.
    package static let keySetRefetchInterval: Double = 300

    package let instances: SingleFlightCache<InstanceKey, KnownClouds.Group, MSALFailure>
    package let metadata: SingleFlightCache<MetadataKey, MSALAuthorityMetadata, MSALFailure>
    package let keySets: SingleFlightCache<String, JSONWebKeySet, MSALFailure>
    package let clock: any MSALClock
    /// When an unknown `kid` last caused each JWK set (by `jwks_uri`) to be fetched again.
    private let keySetRefetches = Mutex<[String: Date]>([:])
    /// The JWK set read last through ``warmKeySet(_:now:)``, with ``keySets``' generation read
    /// before it was.
    private let lastKeySet = Mutex<LastKeySet?>(nil)

    private struct LastKeySet {
        let uri: String
        let keys: JSONWebKeySet
        let expires: Date
        let generation: Int
    }

    /// Creates an empty store timed by `clock`.
    package init(clock: any MSALClock = MSALSystemClock()) {
        self.clock = clock
        self.instances = SingleFlightCache(capacity: 64, clock: clock)
        self.metadata = SingleFlightCache(capacity: 256, clock: clock)
        self.keySets = SingleFlightCache(capacity: 64, clock: clock)
    }

    /// The process-wide store. It holds only what identity providers published (host aliases,
    /// endpoints, public keys), never tokens, and every entry expires.
    package static let shared = AuthorityMetadataStore()

    /// Records a refetch of the JWK set at `uri` triggered by an unknown `kid`, unless one was recorded
    /// less than ``keySetRefetchInterval`` before `now`. Returns whether the refetch may run.
    package func claimKeySetRefetch(_ uri: String, now: Date, interval: Double = keySetRefetchInterval) -> Bool {
        keySetRefetches.withLock { marks in
            if let last = marks[uri], abs(now.timeIntervalSince(last)) < interval { return false }
            if marks.count >= 64 {
                marks = marks.filter { now.timeIntervalSince($0.value) < max(interval, Self.keySetRefetchInterval) }
                if marks.count >= 64, let oldest = marks.min(by: { $0.value < $1.value })?.key { marks[oldest] = nil }
            }
            marks[uri] = now
            return true
        }
    }

    /// The unexpired JWK set in memory for `uri`, without loading: the one read last if the cache
    /// has not changed since (``SingleFlightCache/generation``), else the cache's. An API that
    /// validates every request's token asks this each time; the generic cache lookup cost about
    /// a quarter of a remembered token's answer (docs/performance.md).
    package func warmKeySet(_ uri: String, now: Date) -> JSONWebKeySet? {
        let generation = keySets.generation
        if let last = lastKeySet.withLock({ $0 }), last.generation == generation, now < last.expires, last.uri == uri {
            return last.keys
        }
        guard let (result, expires) = keySets.cachedEntry(uri), case .success(let keys) = result else { return nil }
        lastKeySet.withLock { $0 = LastKeySet(uri: uri, keys: keys, expires: expires, generation: generation) }
        return keys
    }

    /// Forgets everything.
    package func removeAll() {
        instances.removeAll()
        metadata.removeAll()
        keySets.removeAll()
        keySetRefetches.withLock { $0.removeAll() }
    }
}
