import Foundation

/// A generic OpenID Connect authority: any issuer that serves
/// `<issuer>/.well-known/openid-configuration` (OpenID Connect Discovery 1.0).
///
/// The URL is the issuer exactly as the provider's metadata states it; the document's `issuer`
/// must equal it byte for byte. Beyond MSAL for iOS; MSAL for Python and .NET have it.
public final class MSALOIDCAuthority: MSALAuthority, @unchecked Sendable {
    /// The issuer identifier.
    public var issuer: String { components.canonical }

    /// Creates an OpenID Connect authority from its issuer URL.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/invalidAuthority``.
    public convenience init(url: URL) throws {
        try self.init(url: url, options: [])
    }

    /// Creates an OpenID Connect authority with opt-ins.
    public convenience init(url: URL, options: MSALAuthorityOptions) throws {
        self.init(components: try AuthorityComponents.parse(url.absoluteString, kind: .oidc, options: options), options: options)
    }
}
