/// DPoP (RFC 9449) for OpenID providers that support it: every token request carries a proof
/// signed with the application's DPoP key (ES256), the authorization request names the key
/// (`dpop_jkt`), and the provider binds the access token — and a public client's refresh
/// token — to it. A swift-msal addition: MSAL for iOS has no DPoP.
///
/// The result's ``MSALResult/authorizationHeader`` is `DPoP <access token>`; each resource
/// request also needs its own proof in a `DPoP` header, which
/// ``MSALResult/dpopProof(httpMethod:requestUrl:nonce:)`` makes. A provider's `DPoP-Nonce`
/// (`use_dpop_nonce`) is answered by the library.
///
/// The public client's interactive, silent and device code requests, a web app's sign-in and
/// silent requests, and a confidential client's app-token and on-behalf-of requests accept it.
///
/// A provider that answers without binding the token (`token_type` `Bearer`, as Microsoft Entra
/// answers) is refused with ``MSALInternalError/internalErrorInvalidResponse``: a request for a
/// sender-constrained token never silently gets a bearer token. DPoP tokens are cached apart from
/// bearer tokens and found only for the same key, which is kept beside the cache
/// (`docs/proof-of-possession.md`).
public final class MSALAuthenticationSchemeDPoP: MSALAuthenticationSchemeProtocol {
    /// ``MSALAuthScheme/pop``: DPoP is a proof-of-possession scheme (``MSALAuthScheme`` keeps MSAL
    /// for iOS's two cases); ``authenticationScheme`` tells the two apart.
    public var scheme: MSALAuthScheme { .pop }
    /// `DPoP`.
    public var authenticationScheme: String { "DPoP" }

    /// The DPoP scheme.
    public init() {}
}
