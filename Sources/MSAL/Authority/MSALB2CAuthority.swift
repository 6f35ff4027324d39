import Foundation

/// An Azure AD B2C authority: `https://<tenant>.b2clogin.com/<tenant>.onmicrosoft.com/<policy>`
/// (a leading `/tfp` segment is accepted and dropped).
public final class MSALB2CAuthority: MSALAuthority, @unchecked Sendable {
    /// The user-flow or custom policy, as written.
    public var policy: String { components.policy ?? "" }

    /// Creates a B2C authority.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/invalidAuthority``.
    public convenience init(url: URL) throws {
        try self.init(url: url, options: [])
    }

    /// Creates a B2C authority with opt-ins.
    public convenience init(url: URL, options: MSALAuthorityOptions) throws {
        self.init(components: try AuthorityComponents.parse(url.absoluteString, kind: .b2c, options: options), options: options)
    }
}
