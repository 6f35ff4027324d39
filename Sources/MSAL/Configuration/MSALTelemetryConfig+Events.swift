import Foundation

/// One public token call being reported to ``MSALTelemetryConfig/telemetryCallback``: made when the
/// call starts (only when telemetry is on), it turns the call's outcome into MSAL's aggregated
/// `api_event` when the call ends.
///
/// Everything an event says is read here, once: the parameters' authority, account and correlation
/// id at the start; the result's or the error's fields at the end. Nothing secret is read: no token,
/// code, claims or error description.
package struct TelemetryAPICall: Sendable {
    /// The calls reported, with their `msal.api_id`.
    package enum API: String, Sendable {
        /// ``MSALPublicClientApplication/acquireToken(with:)``: MSAL for iOS's id for
        /// `acquireTokenWithParameters:` (`MSALTelemetryApiIdAcquireWithTokenParameters`).
        case acquireToken = "167"
        /// ``MSALPublicClientApplication/acquireTokenSilent(with:)``: MSAL for iOS's id for
        /// `acquireTokenSilentWithParameters:` (`MSALTelemetryApiIdAcquireSilentWithTokenParameters`).
        case acquireTokenSilent = "34"
        /// ``MSALPublicClientApplication/acquireTokenWithDeviceCode(with:deviceCodeCallback:)``:
        /// swift-msal's own id (MSAL for iOS has no device code call), above MSAL's range.
        case acquireTokenWithDeviceCode = "1001"
    }

    /// The event's keys: MSAL's names with its `msal.` prefix.
    package enum Key {
        package static let eventName = "msal.event_name"
        package static let apiID = "msal.api_id"
        package static let correlationID = "msal.correlation_id"
        package static let clientID = "msal.client_id"
        package static let authorityType = "msal.authority_type"
        package static let extendedExpiresOnSetting = "msal.extended_expires_on_setting"
        package static let promptBehavior = "msal.prompt_behavior"
        package static let startTime = "msal.start_time"
        package static let stopTime = "msal.stop_time"
        package static let responseTime = "msal.response_time"
        package static let isSuccessful = "msal.is_successfull"
        package static let apiErrorCode = "msal.api_error_code"
        package static let errorDomain = "msal.error_domain"
        package static let errorProtocolCode = "msal.error_protocol_code"
        package static let serverErrorCode = "msal.server_error_code"
        package static let serverSubErrorCode = "msal.server_sub_error_code"
        package static let tenantID = "msal.tenant_id"
        package static let userID = "msal.user_id"
    }

    /// MSAL's `event_name` of the aggregated event.
    package static let apiEventName = "api_event"

    private let api: API
    private let config: MSALTelemetryConfig
    private let clientID: String
    private let authorityKind: MSALAuthorityKind
    private let extendedLifetimeEnabled: Bool
    private let promptBehavior: String?
    private let correlationID: UUID?
    private let account: MSALAccount?
    private let startDate: Date
    private let startInstant: ContinuousClock.Instant

    /// Starts reporting a call of `api` with `parameters`, or returns `nil` when telemetry is off
    /// (no callback set). Reads the clock, the parameters and `promptBehavior` only when it is on.
    ///
    /// - Parameters:
    ///   - promptBehavior: For interactive calls, the `prompt` value sent (`""` for none).
    package static func start(
        _ api: API, client: TokenClient, parameters: MSALTokenParameters, promptBehavior: @autoclosure () -> String? = nil,
        config: MSALTelemetryConfig = MSALGlobalConfig.telemetryConfig
    ) -> TelemetryAPICall? {
        guard config.isEnabled else { return nil }
        return TelemetryAPICall(api, client: client, parameters: parameters, promptBehavior: promptBehavior(), config: config)
    }

    private init(_ api: API, client: TokenClient, parameters: MSALTokenParameters, promptBehavior: String?, config: MSALTelemetryConfig) {
        let requested = parameters.withValues { values in (values.authority?.kind, values.correlationId, values.account) }
        self.api = api
        self.config = config
        self.clientID = client.clientID
        self.authorityKind = requested.0 ?? client.defaultAuthority.kind
        self.extendedLifetimeEnabled = client.extendedLifetimeEnabled
        self.promptBehavior = promptBehavior
        self.correlationID = requested.1
        self.account = requested.2
        self.startDate = Date()
        self.startInstant = ContinuousClock.now
    }

    /// Reports the call as succeeded with `result` (unless only failures are reported).
    package func succeeded(_ result: MSALResult) {
        let stop = (date: Date(), instant: ContinuousClock.now)
        guard let delivery = config.delivery(failed: false) else { return }
        var event = common(stop: stop, succeeded: true, correlationID: result.correlationId, authorityKind: result.authority.kind)
        if delivery.piiEnabled {
            event[Key.tenantID] = result.tenantProfile.tenantId
            event[Key.userID] = result.account.identifier
        }
        config.dispatch(event, to: delivery.callback)
    }

    /// Reports the call as failed with `error`.
    package func failed(_ error: any Error) {
        let stop = (date: Date(), instant: ContinuousClock.now)
        guard let delivery = config.delivery(failed: true) else { return }
        let failure = error as? MSALFailure
        let correlationID = failure?.correlationID ?? correlationID
        var event = common(stop: stop, succeeded: false, correlationID: correlationID, authorityKind: authorityKind)
        let nsError = error as NSError
        event[Key.apiErrorCode] = String(nsError.code)
        event[Key.errorDomain] = nsError.domain
        if let failure {
            event[Key.errorProtocolCode] = Self.nonEmpty(failure.oauthError)
            event[Key.serverErrorCode] = failure.stsErrorCodes?.first.map { String($0) }
            event[Key.serverSubErrorCode] = Self.nonEmpty(failure.oauthSubError)
        }
        if delivery.piiEnabled {
            let homeAccountID = failure?.homeAccountID ?? account?.identifier
            event[Key.userID] = homeAccountID
            event[Key.tenantID] = homeAccountID.flatMap { MSALAccountId(identifier: $0).tenantId }
        }
        config.dispatch(event, to: delivery.callback)
    }

    /// The keys every event has.
    private func common(
        stop: (date: Date, instant: ContinuousClock.Instant), succeeded: Bool, correlationID: UUID?, authorityKind: MSALAuthorityKind
    ) -> [String: String] {
        var event: [String: String] = [
            Key.eventName: Self.apiEventName,
            Key.apiID: api.rawValue,
            Key.clientID: clientID,
            Key.authorityType: authorityKind.rawValue,
            Key.extendedExpiresOnSetting: extendedLifetimeEnabled ? "yes" : "no",
            Key.startTime: Self.timestamp(startDate),
            Key.stopTime: Self.timestamp(stop.date),
            Key.responseTime: String(Self.milliseconds(stop.instant - startInstant)),
            Key.isSuccessful: succeeded ? "yes" : "no",
        ]
        event[Key.correlationID] = correlationID?.uuidString.lowercased()
        event[Key.promptBehavior] = promptBehavior
        return event
    }

    /// `date` as seconds since 1970 with three decimals, as text (`1717171717.123`).
    package static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let digits = String(abs(fraction))
        return "\(seconds).\(String(repeating: "0", count: 3 - digits.count))\(digits)"
    }

    /// `duration` in whole milliseconds, never negative.
    package static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
