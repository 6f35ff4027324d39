import Foundation
import Synchronization

/// Lets concurrent silent requests that need the same refresh share one token request: the first
/// starts it, the others wait for its result.
package final class RefreshFlights: Sendable {
    /// What makes two refreshes the same: account, cloud, tenant, scopes and claims.
    package struct Key: Hashable, Sendable {
        var home: String
        var environment: String
        var realm: String
        var scopes: [String]
        var claims: String?
    }

    private struct State {
        var flights: [Key: Task<MSALResult, any Error>] = [:]
        var joined = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// The result of the refresh in flight for `key`, or of a new one running `body`.
    package func run(_ key: Key, _ body: @escaping @Sendable () async throws -> MSALResult) async throws -> MSALResult {
        let task = state.withLock { state -> Task<MSALResult, any Error> in
            if let running = state.flights[key] {
                state.joined += 1
                return running
            }
            let task = Task<MSALResult, any Error> { [weak self] in
                defer { self?.finish(key) }
                return try await body()
            }
            state.flights[key] = task
            return task
        }
        return try await task.value
    }

    private func finish(_ key: Key) {
        _ = state.withLock { $0.flights.removeValue(forKey: key) }
    }

    /// How many refreshes are in flight (for tests).
    package var count: Int { state.withLock { $0.flights.count } }

    /// How many callers have joined a refresh already in flight instead of starting one (for
    /// tests: a test can hold the one token request until every concurrent caller has joined).
    package var joinedCount: Int { state.withLock { $0.joined } }
}
