/// The scheme a token is asked for and presented with (``MSALTokenParameters/authenticationScheme``):
/// ``MSALAuthenticationSchemeBearer`` (the default) or ``MSALAuthenticationSchemePop``.
///
/// swift-msal knows these two; a parameter naming another conforming type is refused with
/// ``MSALInternalError/internalErrorInvalidParameter``.
public protocol MSALAuthenticationSchemeProtocol: AnyObject, Sendable {
    /// The scheme.
    var scheme: MSALAuthScheme { get }
    /// Its name: `Bearer` or `Pop`, as ``MSALResult/authenticationScheme`` reports it.
    var authenticationScheme: String { get }
}
