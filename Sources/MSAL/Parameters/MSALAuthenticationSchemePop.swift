import Foundation

/// MSAL's proof-of-possession scheme for Microsoft Entra: the token is bound to a key of the
/// application's (the token request names it in `req_cnf`, with `token_type=pop`), and each result
/// presents it as a signed HTTP request for one resource request — its method, URL and nonce —
/// made afresh for every call, cache hits included: ``MSALResult/authorizationHeader`` is
/// `PoP <signed HTTP request>` and ``MSALResult/accessToken`` the signed request, as in MSAL for iOS.
///
/// Bound tokens are cached apart from bearer tokens and found only for the same key. The key is
/// the application object's, made when first needed (`docs/proof-of-possession.md`).
public final class MSALAuthenticationSchemePop: MSALAuthenticationSchemeProtocol {
    /// ``MSALAuthScheme/pop``.
    public var scheme: MSALAuthScheme { .pop }
    /// `Pop`.
    public var authenticationScheme: String { "Pop" }

    /// The resource request's method.
    public let httpMethod: MSALHttpMethod
    /// The resource request's URL: its host (with a port other than the default) and path are signed.
    public let requestUrl: URL
    /// The resource's nonce; `nil` signs a random one.
    public let nonce: String?

    /// A proof-of-possession scheme for one resource request, as MSAL for iOS's
    /// `init(httpMethod:request:nonce:additionalParameters:)` (the Objective-C `requestUrl:` label
    /// imports as `request:`).
    ///
    /// - Parameters:
    ///   - httpMethod: The resource request's method.
    ///   - requestUrl: The resource request's URL.
    ///   - nonce: The resource's nonce, when it gave one.
    ///   - additionalParameters: Accepted for source compatibility; MSAL for iOS keeps them and
    ///     signs none, and so does swift-msal.
    public init(httpMethod: MSALHttpMethod, request requestUrl: URL, nonce: String?, additionalParameters: [AnyHashable: Any]?) {
        self.httpMethod = httpMethod
        self.requestUrl = requestUrl
        self.nonce = nonce
    }
}
