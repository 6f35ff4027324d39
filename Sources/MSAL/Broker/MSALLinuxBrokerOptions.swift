import Foundation

/// How an ``MSALPublicClientApplication`` uses Microsoft's Linux identity broker
/// (`microsoft-identity-broker`, on the D-Bus session bus of an Intune-enrolled machine), set as
/// ``MSALPublicClientApplicationConfig/linuxBroker``; `nil` there (the default) never uses it,
/// as MSAL for Python's `enable_broker_on_linux` defaults to off.
///
/// With a broker, interactive and silent requests to a Microsoft Entra ID authority go to the
/// broker, which holds the device's primary refresh token: its tokens meet Conditional Access
/// policies that require a compliant device, and a user signed in once is signed in for every app
/// that uses it. The broker keeps its own tokens: nothing it answers is written to the
/// application's token cache. ``MSALPublicClientApplication/allAccounts()`` lists the broker's
/// accounts with the cache's, and such an account's silent requests go to the broker.
///
/// When no broker answers on the bus (none installed, no session bus, an older broker without the
/// protocol's methods), an interactive request signs in in the browser as without a broker, unless
/// ``fallsBackToBrowser`` is `false`: then it fails with ``MSALInternalError/internalBrokerNotAvailable``.
/// Other broker errors are never hidden by the browser (`docs/broker.md` lists them).
public struct MSALLinuxBrokerOptions: Sendable, Hashable {
    /// The D-Bus address of the bus the broker is on; `nil` (the default) is the session bus of
    /// `DBUS_SESSION_BUS_ADDRESS`. Tests give a private bus here.
    public var busAddress: String?
    /// The longest wait, in seconds, for the broker's answer to a call that shows nothing (a silent
    /// token, the accounts, a sign-out, the version). Default 30.
    public var silentTimeout: TimeInterval = 30
    /// The longest wait, in seconds, for an interactive sign-in in the broker's window. Default 600.
    public var interactiveTimeout: TimeInterval = 600
    /// Whether an interactive request signs in in the browser when no broker answers. Default `true`.
    public var fallsBackToBrowser = true

    /// Options with the defaults: the session bus, 30 s and 600 s, falling back to the browser.
    public init() {}

    /// Options with a bus address (`nil`: the session bus) and the other defaults.
    public init(busAddress: String?) {
        self.busAddress = busAddress
    }

    /// A timeout in seconds as a `Duration`: at least 1 ms; not-a-number and negative values are
    /// the default.
    static func duration(_ seconds: TimeInterval, default fallback: TimeInterval) -> Duration {
        let value = seconds.isFinite && seconds > 0 ? seconds : fallback
        return .milliseconds(max(1, Int64(min(value, 86_400) * 1000)))
    }

    var silentDuration: Duration { Self.duration(silentTimeout, default: 30) }
    var interactiveDuration: Duration { Self.duration(interactiveTimeout, default: 600) }
}
