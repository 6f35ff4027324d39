import Foundation

/// A Microsoft Entra External ID (CIAM) authority: `https://<tenant>.ciamlogin.com[/<tenant>]`.
/// Without a path the tenant is `<tenant>.onmicrosoft.com`.
public final class MSALCIAMAuthority: MSALAuthority, @unchecked Sendable {
    /// Creates a CIAM authority.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/invalidAuthority``.
    public convenience init(url: URL) throws {
        try self.init(url: url, options: [])
    }

    /// Creates a CIAM authority, as MSAL for iOS's `init(url:validateFormat:)`: with
    /// `validateFormat` the host must be `<tenant>.ciamlogin.com`; without it a custom domain that
    /// fronts an External ID tenant is accepted too (as `init(url:)` does).
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/invalidAuthority``.
    public convenience init(url: URL, validateFormat: Bool) throws {
        let components = try AuthorityComponents.parse(url.absoluteString, kind: .ciam, options: [])
        if validateFormat, !components.host.hasSuffix(".ciamlogin.com") {
            throw MSALFailure(
                .internal, internalCode: .invalidAuthority,
                message: "A CIAM authority whose format is validated must be on <tenant>.ciamlogin.com")
        }
        self.init(components: components, options: [])
    }

    /// Creates a CIAM authority with opt-ins.
    public convenience init(url: URL, options: MSALAuthorityOptions) throws {
        self.init(components: try AuthorityComponents.parse(url.absoluteString, kind: .ciam, options: options), options: options)
    }
}
