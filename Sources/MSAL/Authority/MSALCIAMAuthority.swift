import Foundation

/// A Microsoft Entra External ID (CIAM) authority: `https://<tenant>.ciamlogin.com[/<tenant>]`.
/// Without a path the tenant is `<tenant>.onmicrosoft.com`.
public final class MSALCIAMAuthority: MSALAuthority, @unchecked Sendable {
    package override init(components: AuthorityComponents, options: MSALAuthorityOptions) {
        super.init(components: components, options: options)
    }

    /// Creates a CIAM authority.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/invalidAuthority``.
    public convenience init(url: URL) throws {
        try self.init(url: url, options: [])
    }

    /// Creates a CIAM authority with opt-ins.
    public convenience init(url: URL, options: MSALAuthorityOptions) throws {
        self.init(components: try AuthorityComponents.parse(url.absoluteString, kind: .ciam, options: options), options: options)
    }
}
