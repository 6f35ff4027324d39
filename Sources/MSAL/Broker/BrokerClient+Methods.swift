import Foundation
import MSALJSON

extension BrokerClient {
    /// The accounts signed in through the broker that `clientID` may use.
    package func accounts(clientID: String, correlationID: UUID, timeout: Duration) async throws(MSALFailure) -> [BrokerAccount] {
        let answer = try await call(.getAccounts, request: Self.accountsRequest(clientID), correlationID: correlationID, timeout: timeout)
        return try Self.accounts(in: answer, correlationID: correlationID)
    }

    /// ``accounts(clientID:correlationID:timeout:)``, waiting on the calling thread.
    package func accountsBlocking(clientID: String, correlationID: UUID, timeout: Duration) throws(MSALFailure) -> [BrokerAccount] {
        let answer = try callBlocking(.getAccounts, request: Self.accountsRequest(clientID), correlationID: correlationID, timeout: timeout)
        return try Self.accounts(in: answer, correlationID: correlationID)
    }

    private static func accountsRequest(_ clientID: String) -> JSON {
        .object([JSONMember(name: "clientId", value: .string(clientID)), JSONMember(name: "redirectUri", value: .string(clientID))])
    }

    private static func accounts(in answer: JSONDocument, correlationID: UUID) throws(MSALFailure) -> [BrokerAccount] {
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
        _ = try await call(
            .removeAccount, request: Self.removeRequest(account, clientID), correlationID: correlationID, timeout: timeout)
    }

    /// ``removeAccount(_:clientID:correlationID:timeout:)``, waiting on the calling thread.
    package func removeAccountBlocking(
        _ account: BrokerAccount, clientID: String, correlationID: UUID, timeout: Duration
    )
        throws(MSALFailure)
    {
        _ = try callBlocking(.removeAccount, request: Self.removeRequest(account, clientID), correlationID: correlationID, timeout: timeout)
    }

    private static func removeRequest(_ account: BrokerAccount, _ clientID: String) -> JSON {
        .object([JSONMember(name: "clientId", value: .string(clientID)), JSONMember(name: "account", value: account.json)])
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
