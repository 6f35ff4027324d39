import Foundation
import MSALSupport

// How the application's requests reach Microsoft's Linux identity broker when the configuration
// opts in (``MSALPublicClientApplicationConfig/linuxBroker``): which requests go there, the
// fallback to the browser, and the broker's accounts listed with the cache's.
extension MSALPublicClientApplication {
    /// An interactive sign-in: through the broker for an Entra ID authority when one is configured,
    /// in the browser when none answers (and the options allow it) or none is configured.
    func signIn(_ parameters: MSALInteractiveTokenParameters) async throws -> MSALResult {
        try await throughBroker(
            parameters.snapshot, instead: "the user signs in in the browser", { try await $0.acquireToken(parameters) },
            otherwise: { try await InteractiveFlow(client: self.client).run(parameters) })
    }

    /// A silent request for an account the broker knows: through the broker; when no broker answers,
    /// the application's own cache and refresh token, as for any account (which answers
    /// ``MSALError/interactionRequired`` when it has none, so that the app's interactive call then
    /// signs in in the browser), unless the options refuse the fallback.
    func silentThroughBroker(_ parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        try await throughBroker(
            parameters.snapshot, instead: "the application's cache answers", { try await $0.acquireTokenSilent(parameters) },
            otherwise: {
                let flow = SilentFlow(client: self.client)
                return try await flow.run(try flow.request(parameters))
            })
    }

    /// `request`'s result when the broker serves the authority of `values`; `otherwise`'s when it
    /// does not, or when no broker answers and the options allow it (`instead` says what happens
    /// then, in the log). Any other broker error is thrown.
    private func throughBroker(
        _ values: MSALTokenParameters.Values, instead: String, _ request: (BrokerFlow) async throws -> MSALResult,
        otherwise: () async throws -> MSALResult
    ) async throws -> MSALResult {
        guard let broker, broker.serves(values) else { return try await otherwise() }
        do {
            return try await request(broker)
        } catch let failure as MSALFailure
            where failure.internalCode == .internalBrokerNotAvailable && broker.options.fallsBackToBrowser
        {
            client.logger.info("No identity broker answers, so \(public: instead): \(error: failure)", correlationID: failure.correlationID)
            return try await otherwise()
        }
    }

    /// The broker's accounts, marked as known to it; none (logged) when no broker is configured or
    /// it does not answer. Waits on the calling thread (for the synchronous account APIs).
    func brokerAccountsBlocking() -> [MSALAccount] {
        guard let broker else { return [] }
        let correlationID = client.correlationIDs.make()
        do {
            return try broker.accountsBlocking(correlationID: correlationID)
        } catch {
            // Verbose when no broker is there (a machine without one would otherwise warn on every
            // account list), a warning for a broker that failed.
            if error.internalCode == .internalBrokerNotAvailable {
                client.logger.verbose(
                    "No identity broker answers; the cache's accounts are listed: \(error: error)", correlationID: correlationID)
            } else {
                client.logger.warning("The identity broker's accounts are not listed: \(error: error)", correlationID: correlationID)
            }
            return []
        }
    }

    /// ``brokerAccountsBlocking()`` for the async APIs, waiting on a thread of its own.
    func brokerAccounts() async -> [MSALAccount] {
        guard broker != nil else { return [] }
        return await DedicatedThread.run(name: "swift-msal broker accounts") { self.brokerAccountsBlocking() }
    }

    /// Signs `account` out of the broker when the broker knows it (marked, or among the broker's
    /// accounts), waiting on the calling thread. No broker on the bus is nothing to sign out of
    /// (logged); the broker's other errors are thrown.
    func removeFromBrokerBlocking(_ account: MSALAccount, correlationID: UUID? = nil) throws {
        guard let broker, account.identifier.map(BrokerAccount.isHomeAccountID) == true else { return }
        let correlationID = correlationID ?? client.correlationIDs.make()
        do throws(MSALFailure) {
            let listed = account.isKnownToBroker ? [] : try broker.accountsBlocking(correlationID: correlationID)
            guard broker.knows(account, listed: listed) else { return }
            client.logger.info("Signing \(oii: account.identifier) out of the identity broker", correlationID: correlationID)
            try broker.removeBlocking(account, correlationID: correlationID)
        } catch {
            guard error.internalCode == .internalBrokerNotAvailable else { throw error }
            client.logger.info("No identity broker answers, so none signs the account out: \(error: error)", correlationID: correlationID)
        }
    }

    /// ``removeFromBrokerBlocking(_:correlationID:)`` for the async APIs (sign-out), waiting on a
    /// thread of its own.
    func removeFromBroker(_ account: MSALAccount, correlationID: UUID?) async throws {
        guard broker != nil, account.identifier.map(BrokerAccount.isHomeAccountID) == true else { return }
        try await DedicatedThread.run(name: "swift-msal broker sign-out") {
            try self.removeFromBrokerBlocking(account, correlationID: correlationID)
        }
    }
}
