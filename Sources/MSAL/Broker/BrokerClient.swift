import Foundation
import MSALDBus
import MSALJSON
import MSALSupport

/// Calls Microsoft's Linux identity broker (`com.microsoft.identity.broker1` on the D-Bus session
/// bus) as Microsoft's own runtime does (`docs/broker.md`): each method with the protocol version,
/// the correlation id and a JSON request, each answer a JSON object or the broker's error object.
///
/// Every call has a deadline and runs on a thread of its own (an interactive call waits for the
/// user in the broker's window), never on Swift's cooperative pool or Dispatch's global queues. Failures are ``MSALFailure``s:
/// no broker on the bus is ``MSALInternalError/internalBrokerNotAvailable`` (the caller may fall
/// back to the browser), no answer in time ``MSALInternalError/internalErrorBrokerResponseNotReceived``,
/// an answer that is not what the method returns ``MSALInternalError/internalErrorBrokerCorruptedResponse``,
/// and the broker's own errors by their status (``BrokerStatus``).
package struct BrokerClient: Sendable {
    /// A broker method, by its D-Bus name.
    package enum Method: String, Sendable {
        case acquireTokenInteractively, acquireTokenSilently, getAccounts, removeAccount, getLinuxBrokerVersion
    }

    package static let busName = "com.microsoft.identity.broker1"
    package static let objectPath = "/com/microsoft/identity/broker1"
    package static let interface = "com.microsoft.identity.Broker1"
    /// The protocol version Microsoft's runtime sends.
    package static let protocolVersion = "0.0"
    /// The largest answer read, in bytes (a token answer is a few kilobytes).
    package static let maximumAnswerBytes = 1 << 20

    /// The bus address; `nil`: the session bus of `DBUS_SESSION_BUS_ADDRESS`.
    package var busAddress: String?

    package init(busAddress: String? = nil) {
        self.busAddress = busAddress
    }

    /// Calls `method` with `request` and returns the answer's JSON object; throws the broker's
    /// error (``BrokerStatus``) when the answer is one. The call waits on a thread of its own.
    package func call(_ method: Method, request: JSON, correlationID: UUID, timeout: Duration) async throws(MSALFailure) -> JSONDocument {
        // A thread of its own: an interactive call waits minutes for the user (`DedicatedThread`).
        let outcome = await DedicatedThread.run(name: "swift-msal broker \(method.rawValue)") { () -> Result<JSONDocument, MSALFailure> in
            Result { () throws(MSALFailure) -> JSONDocument in
                try callBlocking(method, request: request, correlationID: correlationID, timeout: timeout)
            }
        }
        return try outcome.get()
    }

    /// ``call(_:request:correlationID:timeout:)`` on the calling thread, which waits for the answer
    /// (at most `timeout`): for the synchronous APIs (``MSALPublicClientApplication/allAccounts()``).
    package func callBlocking(_ method: Method, request: JSON, correlationID: UUID, timeout: Duration) throws(MSALFailure) -> JSONDocument {
        let text = String(decoding: JSONWriter.write(request), as: UTF8.self)
        let correlation = correlationID.uuidString.lowercased()
        let strings: [String]
        // One deadline for the whole call: connecting to the bus (its authentication and Hello)
        // and the broker's answer.
        let deadline = ContinuousClock.now + timeout
        do throws(DBusFailure) {
            let connection = try DBusConnection(address: busAddress, timeout: timeout)
            strings = try connection.call(
                destination: Self.busName, path: Self.objectPath, interface: Self.interface, method: method.rawValue,
                arguments: [Self.protocolVersion, correlation, text], timeout: max(deadline - ContinuousClock.now, .milliseconds(1)))
        } catch {
            throw Self.failure(error, method: method, correlationID: correlationID)
        }
        guard strings.count == 1, strings[0].utf8.count <= Self.maximumAnswerBytes,
            let document = try? JSONDocument(parsing: Array(strings[0].utf8), limits: .document), document.root.kind == .object
        else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorBrokerCorruptedResponse,
                message: "The identity broker's answer to \(method.rawValue) is not a JSON object", correlationID: correlationID)
        }
        if let error = document.root["error"], error.kind == .object {
            throw BrokerStatus.failure(error, method: method, correlationID: correlationID)
        }
        return document
    }

    /// The D-Bus errors of a service that has no such method, interface or object: a broker older
    /// than the protocol swift-msal speaks (or another program owning the name).
    static let missingMethodErrors: Set<String> = [
        "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
        "org.freedesktop.DBus.Error.UnknownObject",
    ]

    /// The ``MSALFailure`` for a D-Bus failure of `method`.
    static func failure(_ failure: DBusFailure, method: Method, correlationID: UUID) -> MSALFailure {
        let (internalCode, message): (MSALInternalError, String) =
            switch failure.kind {
            case .libraryUnavailable, .noBus, .connectionFailed, .serviceUnknown:
                (.internalBrokerNotAvailable, "No identity broker answers on the D-Bus session bus (\(failure.message))")
            case .noReply, .disconnected:
                (
                    .internalErrorBrokerResponseNotReceived,
                    "The identity broker did not answer \(method.rawValue) in time (\(failure.message))"
                )
            case .malformedReply:
                (.internalErrorBrokerCorruptedResponse, "The identity broker's answer to \(method.rawValue) is not one string")
            case .invalidArgument:
                (.internalErrorInvalidParameter, "The request to the identity broker cannot be sent over D-Bus (\(failure.message))")
            case .remoteError where (failure.name ?? "").hasPrefix("org.freedesktop.DBus.Error.Spawn."):
                (
                    .internalBrokerNotAvailable,
                    "The D-Bus bus could not start the identity broker (\(failure.name ?? "error"): \(failure.message))"
                )
            case .remoteError where Self.missingMethodErrors.contains(failure.name ?? ""):
                (
                    .internalBrokerNotAvailable,
                    "The identity broker on the bus does not offer \(method.rawValue) as swift-msal calls it (an older or another broker: \(failure.name ?? "error"): \(failure.message))"
                )
            case .remoteError, .nameTaken:
                (
                    .internalErrorBrokerUnknown,
                    "The identity broker refused \(method.rawValue): \(failure.name ?? "error"): \(failure.message)"
                )
            }
        return MSALFailure(.internal, internalCode: internalCode, message: message, correlationID: correlationID, underlyingError: failure)
    }
}
