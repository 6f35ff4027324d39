/// Bearer tokens (the default scheme): the result's ``MSALResult/authorizationHeader`` is
/// `Bearer <access token>`.
public final class MSALAuthenticationSchemeBearer: MSALAuthenticationSchemeProtocol {
    /// ``MSALAuthScheme/bearer``.
    public var scheme: MSALAuthScheme { .bearer }
    /// `Bearer`.
    public var authenticationScheme: String { "Bearer" }

    /// The bearer scheme.
    public init() {}

    /// The instance parameters report when none was set.
    package static let shared = MSALAuthenticationSchemeBearer()
}
