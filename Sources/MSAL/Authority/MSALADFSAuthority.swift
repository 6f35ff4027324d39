import Foundation

/// An Active Directory Federation Services authority: `https://<host>/adfs`.
public final class MSALADFSAuthority: MSALAuthority, @unchecked Sendable {
    /// Creates an ADFS authority.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/invalidAuthority``.
    public convenience init(url: URL) throws {
        try self.init(url: url, options: [])
    }

    /// Creates an ADFS authority with opt-ins.
    public convenience init(url: URL, options: MSALAuthorityOptions) throws {
        self.init(components: try AuthorityComponents.parse(url.absoluteString, kind: .adfs, options: options), options: options)
    }
}
