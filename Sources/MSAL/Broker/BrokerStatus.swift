import Foundation
import MSALJSON

/// The identity broker's error answer (`{"error": {"context", "errorCode", "status", "tag"}}`) as
/// an ``MSALFailure``, by its `status` (the numbers Microsoft's runtime reads, `docs/broker.md`).
package enum BrokerStatus {
    /// The runtime's name for each `status` number, 0 to 21; above that, `Unexpected`.
    package static let names = [
        "Unexpected", "Reserved", "InteractionRequired", "NoNetwork", "NetworkTemporarilyUnavailable",
        "ServerTemporarilyUnavailable", "ApiContractViolation", "UserCanceled", "ApplicationCanceled", "IncorrectConfiguration",
        "InsufficientBuffer", "AuthorityUntrusted", "UserSwitch", "AccountUnusable", "UserDataRemovalRequired", "TransientError",
        "AccountSwitch", "DeviceNotRegistered", "KeyNotFound", "AccountNotFound", "RequiredBrokerMissing", "FallbackToNativeMsal",
    ]

    /// The name of `status`.
    package static func name(_ status: Int64) -> String {
        status >= 0 && status < names.count ? names[Int(status)] : names[0]
    }

    /// The failure for the broker's `error` object.
    ///
    /// - The user must act: InteractionRequired, AccountUnusable, AccountSwitch, AccountNotFound,
    ///   UserSwitch, KeyNotFound → ``MSALError/interactionRequired`` (a silent call's cue to sign in).
    /// - UserCanceled, ApplicationCanceled → ``MSALError/userCanceled``.
    /// - DeviceNotRegistered → ``MSALError/workplaceJoinRequired`` (the device must be registered,
    ///   as MSAL for iOS's broker reports it).
    /// - NoNetwork, NetworkTemporarilyUnavailable → ``MSALInternalError/networkFailure``;
    ///   ServerTemporarilyUnavailable, TransientError → ``MSALError/serverError``.
    /// - IncorrectConfiguration, AuthorityUntrusted, ApiContractViolation →
    ///   ``MSALInternalError/internalErrorInvalidParameter``.
    /// - Anything else → ``MSALInternalError/internalErrorBrokerUnknown``.
    ///
    /// The message carries the status name and the broker's context.
    package static func failure(_ error: JSONValue, method: BrokerClient.Method, correlationID: UUID) -> MSALFailure {
        let status = error["status"]?.int64 ?? 0
        let name = name(status)
        let context = error["context"]?.string ?? ""
        let message =
            "The identity broker answered \(method.rawValue) with \(name) (status \(status))\(context.isEmpty ? "" : ": \(context)")"
        switch name {
        case "InteractionRequired", "AccountUnusable", "AccountSwitch", "AccountNotFound", "UserSwitch", "KeyNotFound":
            return MSALFailure(.interactionRequired, message: message, correlationID: correlationID)
        case "UserCanceled", "ApplicationCanceled":
            return MSALFailure(.userCanceled, message: message, correlationID: correlationID)
        case "DeviceNotRegistered":
            return MSALFailure(.workplaceJoinRequired, message: message, correlationID: correlationID)
        case "NoNetwork", "NetworkTemporarilyUnavailable":
            return MSALFailure(.internal, internalCode: .networkFailure, message: message, correlationID: correlationID)
        case "ServerTemporarilyUnavailable", "TransientError":
            return MSALFailure(.serverError, message: message, correlationID: correlationID)
        case "IncorrectConfiguration", "AuthorityUntrusted", "ApiContractViolation":
            return MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: message, correlationID: correlationID)
        default:
            return MSALFailure(.internal, internalCode: .internalErrorBrokerUnknown, message: message, correlationID: correlationID)
        }
    }
}
