import Foundation
import MSALSupport

/// The parameters of ``MSALConfidentialClientApplication/acquireTokenForClient(with:)``: an app
/// token for the application itself (the OAuth 2.0 client credentials grant).
///
/// ``MSALTokenParameters/scopes`` name one resource's `/.default` scope, such as
/// `["https://graph.microsoft.com/.default"]`: the token carries the application permissions an
/// administrator granted on that resource. ``MSALTokenParameters/account`` is not used.
public final class MSALClientCredentialParameters: MSALTokenParameters, @unchecked Sendable {
    // @unchecked Sendable: as MSALTokenParameters; the stored properties are an Atomic (read on
    // every cache hit, so a load rather than a lock) and a Mutex.
    private let refresh = Atomic(false)
    private let federation = Mutex(Federation())

    /// What a request adds to the client credentials grant, read once when it starts.
    package struct Federation: Sendable, Equatable {
        var fmiPath: String?
        var fmiPathForClientAssertion: String?
        var extraBodyParameters: [String: String]?
        var sendX5C: Bool?
    }

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

    /// The federated managed identity (FMI) path of the token: sent as `fmi_path` in the token
    /// request's body, as MSAL.NET's `WithFmiPath`, MSAL Go, Java and Python send it. An agent
    /// platform's blueprint app asks Microsoft Entra ID for a credential for one of its agent
    /// identities with it (usually for `api://AzureADTokenExchange/.default`).
    ///
    /// Tokens for different paths are cached apart, under the extended cache key the other MSALs
    /// share (`atext` entries), so a path's token is never answered for another path or for a
    /// request without one.
    ///
    /// At most 256 bytes (UTF-8) of path segments separated by `/`: no white space or control
    /// characters, no `\`, no empty, `.` or `..` segment; anything else fails the request with
    /// ``MSALInternalError/internalErrorInvalidParameter`` before anything is sent. Default `nil`.
    public var fmiPath: String? {
        get { federation.withLock { $0.fmiPath } }
        set { federation.withLock { $0.fmiPath = newValue } }
    }

    /// The FMI path the client assertion is for: given to the application's assertion provider
    /// as ``MSALClientAssertionRequest/clientAssertionFmiPath`` (MSAL.NET's
    /// `WithFmiPathForClientAssertion`), so that an agent identity's provider can ask its
    /// blueprint for the credential of the right path. Not sent, and not part of the cache key.
    /// Checked as ``fmiPath`` is. Default `nil`.
    public var fmiPathForClientAssertion: String? {
        get { federation.withLock { $0.fmiPathForClientAssertion } }
        set { federation.withLock { $0.fmiPathForClientAssertion = newValue } }
    }

    /// Extra fields for the token request's body (MSAL.NET's `WithExtraBodyParameters`), for
    /// parameters of the service this library does not name.
    ///
    /// They are part of the token's cache key, as in the other MSALs: a token asked for with other
    /// values (or without them) is cached apart. A field with an empty value is sent but does not
    /// change the key. A field of the protocol's own (`client_id`, `scope`, `claims`,
    /// `client_assertion`, `fmi_path`, …) cannot be given here; names are at most 64 bytes of
    /// letters, digits, `_`, `-` and `.`, values at most 4,096 bytes, at most 32 fields; anything
    /// else fails the request with ``MSALInternalError/internalErrorInvalidParameter`` before
    /// anything is sent. Default `nil`.
    public var extraBodyParameters: [String: String]? {
        get { federation.withLock { $0.extraBodyParameters } }
        set { federation.withLock { $0.extraBodyParameters = newValue } }
    }

    /// Whether this request's certificate assertion carries the certificate chain (`x5c`), for
    /// subject name and issuer authentication: overrides the credential's `sendX5C`
    /// (``MSALClientCredential/certificate(_:sendX5C:extraClaims:)``), as MSAL.NET's
    /// `WithSendX5C` does per request. `nil` (the default) keeps the credential's. Other
    /// credentials ignore it.
    public var sendX5C: Bool? {
        get { federation.withLock { $0.sendX5C } }
        set { federation.withLock { $0.sendX5C = newValue } }
    }

    /// One consistent copy of the federation values.
    package var federationSnapshot: Federation { federation.withLock { $0 } }
}
