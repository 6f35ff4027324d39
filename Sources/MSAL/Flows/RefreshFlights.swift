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

    private let flights = Mutex<[Key: Task<MSALResult, any Error>]>([:])

    package init() {}

    /// The result of the refresh in flight for `key`, or of a new one running `body`.
    package func run(_ key: Key, _ body: @escaping @Sendable () async throws -> MSALResult) async throws -> MSALResult {
        let task = flights.withLock { flights -> Task<MSALResult, any Error> in
            if let running = flights[key] { return running }
            let task = Task<MSALResult, any Error> { [weak self] in
                defer { self?.finish(key) }
                return try await body()
            }
            flights[key] = task
            return task
        }
        return try await task.value
    }

    private func finish(_ key: Key) {
        _ = flights.withLock { $0.removeValue(forKey: key) }
    }

    /// How many refreshes are in flight (for tests).
    package var count: Int { flights.withLock { $0.count } }
}
