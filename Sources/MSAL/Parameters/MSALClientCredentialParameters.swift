import Foundation
import MSALSupport

/// The parameters of ``MSALConfidentialClientApplication/acquireTokenForClient(with:)``: an app
/// token for the application itself (the OAuth 2.0 client credentials grant).
///
/// ``MSALTokenParameters/scopes`` name one resource's `/.default` scope, such as
/// `["https://graph.microsoft.com/.default"]`: the token carries the application permissions an
/// administrator granted on that resource. ``MSALTokenParameters/account`` is not used.
public final class MSALClientCredentialParameters: MSALTokenParameters, @unchecked Sendable {
    // @unchecked Sendable: as MSALTokenParameters; the one stored property is an Atomic (read
    // on every cache hit, so a load rather than a lock).
    private let refresh = Atomic(false)

    /// Creates parameters for `scopes`.
    public override init(scopes: [String]) {
        super.init(scopes: scopes)
    }

    /// Ignore a cached app token and always ask the token endpoint. Default `false`.
    ///
    /// A request with ``MSALTokenParameters/claimsRequest`` (a claims challenge from a resource
    /// under continuous access evaluation) skips the cache too.
    public var forceRefresh: Bool {
        get { refresh.load(ordering: .acquiring) }
        set { refresh.store(newValue, ordering: .releasing) }
    }
}
