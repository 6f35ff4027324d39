import Logging
import MSAL
import MSALSupport
import PostgresNIO

extension MSALPostgresTokenCache {
    /// PostgresNIO's own logging stays off: its messages may quote queries, whose values include
    /// the (sealed) partitions and their keys.
    static let silentLogger = Logger(label: "swift-msal.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    private struct TimedOut: Error {}

    /// `body` within ``Configuration/operationTimeout``; its errors as ``MSALFailure``. On a timeout
    /// the body's task is cancelled and not waited for (a lease waiting for a connection to a
    /// database that is down ends when the pool notices).
    func bounded<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = configuration.operationTimeout
        let outcome = OneShot<T>()
        let work = Task {
            do {
                outcome.deliver(.success(try await body()))
            } catch {
                outcome.deliver(.failure(error))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            outcome.deliver(.failure(TimedOut()))
        }
        defer { timer.cancel() }
        do {
            return try await outcome.value()
        } catch is TimedOut {
            work.cancel()
            throw MSALFailure(
                .internal, internalCode: .cacheStoreFailed,
                message: "PostgreSQL did not answer the token cache \(what) within \(timeout)")
        } catch let error as CancellationError {
            work.cancel()
            throw error
        } catch let error as MSALFailure {
            throw error
        } catch {
            throw Self.storeError(what, error)
        }
    }

    /// A PostgresNIO error as ``MSALFailure``: its code, the server's SQLSTATE and message, and the
    /// connection error beneath; never the query (PSQLError's debug text includes it).
    static func storeError(_ what: String, _ error: any Error) -> MSALFailure {
        var detail: String
        if let error = error as? PSQLError {
            detail = "PostgreSQL error \(error.code)"
            if let state = error.serverInfo?[.sqlState] { detail += ", SQLSTATE \(state)" }
            if let message = error.serverInfo?[.message] { detail += ": \(message)" }
            if let underlying = error.underlying { detail += " (\(underlying))" }
        } else {
            detail = "\(error)"
        }
        return MSALFailure(
            .internal, internalCode: .cacheStoreFailed, message: "The token cache \(what) in PostgreSQL failed: \(detail)",
            underlyingError: MSALSendableErrorDescription(domain: "\(type(of: error))", code: 0, description: detail))
    }
}
