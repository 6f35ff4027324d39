import Foundation
import MSALJSON

extension BrokerClient {
    /// The accounts signed in through the broker that `clientID` may use.
    package func accounts(clientID: String, correlationID: UUID, timeout: Duration) async throws(MSALFailure) -> [BrokerAccount] {
        let request = JSON.object([
            JSONMember(name: "clientId", value: .string(clientID)), JSONMember(name: "redirectUri", value: .string(clientID)),
        ])
        let answer = try await call(.getAccounts, request: request, correlationID: correlationID, timeout: timeout)
        guard let accounts = answer.root["accounts"], accounts.kind == .array else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorBrokerCorruptedResponse,
                message: "The identity broker's answer to getAccounts has no accounts array", correlationID: correlationID)
        }
        // An entry the broker could not describe is left out rather than failing the list.
        return accounts.elements.compactMap { BrokerAccount($0) }
    }

    /// A token from the broker: silently, or showing the broker's own sign-in window.
    package func token(
        _ parameters: BrokerAuthParameters, interactive: Bool, correlationID: UUID, timeout: Duration
    ) async throws(MSALFailure) -> BrokerToken {
        let answer = try await call(
            interactive ? .acquireTokenInteractively : .acquireTokenSilently, request: parameters.request(interactive: interactive),
            correlationID: correlationID, timeout: timeout)
        return try BrokerToken(answer, clientID: parameters.clientID, expectedAccount: parameters.account, correlationID: correlationID)
    }

    /// Signs `account` out of the broker for `clientID`.
    package func removeAccount(_ account: BrokerAccount, clientID: String, correlationID: UUID, timeout: Duration) async throws(MSALFailure)
    {
        let request = JSON.object([
            JSONMember(name: "clientId", value: .string(clientID)), JSONMember(name: "account", value: account.json),
        ])
        _ = try await call(.removeAccount, request: request, correlationID: correlationID, timeout: timeout)
    }

    /// The broker's version (`getLinuxBrokerVersion`).
    package func version(correlationID: UUID, timeout: Duration) async throws(MSALFailure) -> String {
        let request = JSON.object([JSONMember(name: "msalCppVersion", value: .string(MSALVersion))])
        let answer = try await call(.getLinuxBrokerVersion, request: request, correlationID: correlationID, timeout: timeout)
        guard let version = answer.root["linuxBrokerVersion"]?.string, !version.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorBrokerCorruptedResponse,
                message: "The identity broker's answer to getLinuxBrokerVersion has no version", correlationID: correlationID)
        }
        return version
    }
}
