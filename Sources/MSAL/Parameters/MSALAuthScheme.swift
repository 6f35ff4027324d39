/// How a token is presented to a resource, as MSAL for iOS names the schemes.
public enum MSALAuthScheme: UInt, Sendable, Hashable {
    /// A bearer token (the default): whoever holds it may use it.
    case bearer = 0
    /// A proof-of-possession token: bound to the application's key, presented as a signed HTTP
    /// request for one resource request (``MSALAuthenticationSchemePop``).
    case pop = 1
}
