import Dispatch
import MSALSupport

/// Receives one telemetry event: a summary of one finished token call, as text keys and values
/// (see ``MSALTelemetryConfig`` for the keys).
public typealias MSALTelemetryCallback = @Sendable ([String: String]) -> Void

/// Whether swift-msal reports its token calls to the app, and what those reports may contain.
///
/// Use the one shared instance, ``MSALGlobalConfig/telemetryConfig``; changes apply to every
/// ``MSALPublicClientApplication`` in the process, from any thread, for calls that end afterwards.
/// swift-msal never sends telemetry anywhere itself: events go only to ``telemetryCallback``.
///
/// ```swift
/// MSALGlobalConfig.telemetryConfig.notifyOnFailureOnly = true
/// MSALGlobalConfig.telemetryConfig.telemetryCallback = { event in
///     metrics.record(event["msal.api_id"], event["msal.api_error_code"], event["msal.response_time"])
/// }
/// ```
///
/// Every call of ``MSALPublicClientApplication/acquireToken(with:)``,
/// ``MSALPublicClientApplication/acquireTokenSilent(with:)`` and
/// ``MSALPublicClientApplication/acquireTokenWithDeviceCode(with:deviceCodeCallback:)`` (and of
/// their completion-block forms) makes one event when it ends, as MSAL for iOS's aggregated
/// telemetry does. Its keys carry MSAL's `msal.` prefix, and its values are text:
///
/// - `msal.event_name`: `api_event`.
/// - `msal.api_id`: which call. `167` for `acquireToken(with:)` and `34` for
///   `acquireTokenSilent(with:)`, MSAL for iOS's ids for its calls taking token parameters; `1001`
///   for `acquireTokenWithDeviceCode(with:deviceCodeCallback:)`, swift-msal's own id, as MSAL for
///   iOS has no such call.
/// - `msal.correlation_id`: the call's correlation id, in lower case; absent only when a call was
///   refused before it had one (the parameters named none and the error carries none).
/// - `msal.client_id`: the application's client id.
/// - `msal.authority_type`: the kind of authority asked, `aad`, `b2c`, `adfs`, `ciam` or `oidc`
///   (``MSALAuthorityKind``'s raw values; MSAL for iOS spells its own in lower case too).
/// - `msal.extended_expires_on_setting`: `yes` or `no`, the application's
///   ``MSALPublicClientApplicationConfig/extendedLifetimeEnabled``.
/// - `msal.prompt_behavior`: interactive calls only: the `prompt` value sent, such as
///   `select_account`; empty for ``MSALPromptType/promptIfNecessary``, which sends none.
/// - `msal.start_time`, `msal.stop_time`: when the call began and ended, in seconds since 1970
///   with three decimals (`1717171717.123`).
/// - `msal.response_time`: how long the call took, in whole milliseconds, by a monotonic clock.
/// - `msal.is_successfull`: `yes` or `no` (the key is spelled as MSAL spells it).
///
/// A failed call's event adds:
///
/// - `msal.api_error_code`: the error's `NSError` code, such as `-50002` for
///   ``MSALError/interactionRequired``.
/// - `msal.error_domain`: the error's `NSError` domain, ``MSALErrorDomain`` for swift-msal's errors.
/// - `msal.error_protocol_code`: the server's OAuth `error`, such as `invalid_grant`, when it sent one.
/// - `msal.server_error_code`: the server's first AADSTS code, such as `70000`, when it sent one.
/// - `msal.server_sub_error_code`: the server's OAuth `suberror`, such as `bad_token`, when it sent one.
///
/// Only with ``piiEnabled``, an event adds the user's identifiers:
///
/// - `msal.tenant_id`: the tenant that issued the token; on a failure, the account's home tenant.
/// - `msal.user_id`: the account's home account id (``MSALAccount/identifier``), when known.
///
/// An event never holds tokens, codes, secrets, claims or error descriptions. MSAL for iOS's
/// `msal.cache_event_count` and `msal.http_event_count` are not reported: swift-msal does not count
/// cache and HTTP events per call.
public final class MSALTelemetryConfig: Sendable {
    private struct State {
        var piiEnabled = false
        var notifyOnFailureOnly = false
        var callback: MSALTelemetryCallback?
    }

    /// What an ending call needs to report: where to send the event and whether it may name the user.
    package struct Delivery: Sendable {
        package var callback: MSALTelemetryCallback
        package var piiEnabled: Bool
    }

    private let state = Mutex(State())

    /// Whether a callback is set: the only thing a token call reads when telemetry is off, with one
    /// relaxed load. Written under the lock, with the callback.
    private let enabled = Atomic<Bool>(false)

    /// Where events are handed to the callback: one serial queue, so the callback runs on a
    /// swift-msal thread (never the caller's, never under a lock), one event at a time, in the
    /// order the calls ended.
    private let queue = DispatchQueue(label: "com.microsoft.identity.msal.telemetry")

    /// Creates a configuration with telemetry off. Apps use ``MSALGlobalConfig/telemetryConfig``.
    package init() {}

    /// Whether events may name the user (`msal.tenant_id` and `msal.user_id`). Default `false`.
    ///
    /// Turn it on only when the app's own telemetry is allowed to hold personal data.
    public var piiEnabled: Bool {
        get { state.withLock { $0.piiEnabled } }
        set { state.withLock { $0.piiEnabled = newValue } }
    }

    /// Whether only failed calls are reported. Default `false`: every call is.
    public var notifyOnFailureOnly: Bool {
        get { state.withLock { $0.notifyOnFailureOnly } }
        set { state.withLock { $0.notifyOnFailureOnly = newValue } }
    }

    /// The block that receives the events; `nil` (the default) turns telemetry off.
    ///
    /// It is called once per reported call, on a swift-msal thread, one event at a time, never
    /// while swift-msal holds a lock; keep it short, as later events wait for it.
    public var telemetryCallback: MSALTelemetryCallback? {
        get { state.withLock { $0.callback } }
        set {
            state.withLock { state in
                state.callback = newValue
                enabled.store(newValue != nil, ordering: .relaxed)
            }
        }
    }

    /// Whether a callback is set: one relaxed atomic load, what a token call checks before doing
    /// anything for telemetry.
    package var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Where an event of a call that `failed` (or not) goes now, or `nil` when it goes nowhere: no
    /// callback, or a success while ``notifyOnFailureOnly`` is on.
    package func delivery(failed: Bool) -> Delivery? {
        state.withLock { state -> Delivery? in
            guard let callback = state.callback, failed || !state.notifyOnFailureOnly else { return nil }
            return Delivery(callback: callback, piiEnabled: state.piiEnabled)
        }
    }

    /// Hands `event` to `callback` on the telemetry queue.
    package func dispatch(_ event: [String: String], to callback: @escaping MSALTelemetryCallback) {
        queue.async { callback(event) }
    }
}
