/// Microsoft Entra's mTLS proof of possession for app tokens: the token is bound to the
/// confidential client's certificate, which authenticates the client in the TLS handshake of
/// the token request instead of a signed client assertion. A swift-msal addition, as MSAL.NET's
/// `WithMtlsProofOfPossession()`: MSAL for iOS has no confidential client.
///
/// Only ``MSALConfidentialClientApplication/acquireTokenForClient(with:)`` accepts it, with a
/// certificate credential (``MSALClientCredential/certificate(_:sendX5C:extraClaims:)`` or
/// ``MSALClientCredential/tlsClientCertificate(_:)``) and a Microsoft Entra authority naming a
/// tenant. The token request goes to the cloud's mTLS host (`mtlsauth.microsoft.com`, or
/// `<region>.mtlsauth.microsoft.com` when a region applies) with `token_type=mtls_pop`, and the
/// answer must name `mtls_pop`.
///
/// The result's ``MSALResult/authorizationHeader`` is `mtls_pop <access token>`; the resource
/// takes it only over a TLS connection made with the same certificate (`cnf` `x5t#S256`). The
/// token is cached apart from bearer tokens under MSAL.NET's key (`…-mtls_pop`) with the
/// certificate's `x5t#S256` as its `kid`, and found only for that certificate: a new certificate
/// never gets a token bound to the old one (its own token then replaces it in the cache).
public final class MSALAuthenticationSchemeMutualTLSPop: MSALAuthenticationSchemeProtocol {
    /// ``MSALAuthScheme/pop``: a proof-of-possession scheme (``MSALAuthScheme`` keeps MSAL for
    /// iOS's two cases); ``authenticationScheme`` tells the schemes apart.
    public var scheme: MSALAuthScheme { .pop }
    /// `mtls_pop`.
    public var authenticationScheme: String { "mtls_pop" }

    /// The mTLS proof-of-possession scheme.
    public init() {}
}
