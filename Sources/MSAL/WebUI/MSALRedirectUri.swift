import Foundation

/// A redirect URI and what it allows (MSAL for iOS's `MSALRedirectUri`).
///
/// MSAL for iOS makes these from the app's registered URL schemes. On Linux the redirect URI is a
/// loopback `http://localhost` (or the configuration's own): ``url`` is that URI, and it is never
/// a broker's.
public final class MSALRedirectUri: Sendable {
    /// The redirect URI.
    public let url: URL

    /// Whether the URI has the form MSAL for iOS's broker answers to (`msauth.<bundle id>://auth`).
    /// Always `false` on Linux, which has no broker.
    @available(*, deprecated, message: "No broker on Linux: always false")
    public var brokerCapable: Bool { false }

    /// A redirect URI.
    package init(url: URL) {
        self.url = url
    }

    /// The same redirect URI (the type is immutable, so the copy is the instance itself), as
    /// MSAL for iOS's `copy()`.
    public func copy() -> MSALRedirectUri { self }
}
