/// The scheme a token is asked for and presented with (``MSALTokenParameters/authenticationScheme``):
/// ``MSALAuthenticationSchemeBearer`` (the default), ``MSALAuthenticationSchemePop`` or
/// ``MSALAuthenticationSchemeDPoP``.
///
/// swift-msal knows these three; a parameter naming another conforming type is refused with
/// ``MSALInternalError/internalErrorInvalidParameter``.
public protocol MSALAuthenticationSchemeProtocol: AnyObject, Sendable {
    /// The scheme.
    var scheme: MSALAuthScheme { get }
    /// Its name: `Bearer`, `Pop` or `DPoP`, as ``MSALResult/authenticationScheme`` reports it.
    var authenticationScheme: String { get }
}
