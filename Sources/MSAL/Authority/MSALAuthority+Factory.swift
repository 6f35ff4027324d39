import Foundation

/// The factory initializers of ``MSALAuthority``: `MSALAuthority(url:)` returns the subclass of
/// the URL's kind, as MSAL for iOS's `authorityWithURL:error:` does. Not for apps to adopt: only
/// ``MSALAuthority`` conforms.
///
/// A class's own initializer cannot return an instance of a subclass; an initializer in a
/// protocol extension can assign `self`, which is what makes the factory an initializer here.
public protocol _MSALAuthorityFactory {}

extension MSALAuthority: _MSALAuthorityFactory {}

extension _MSALAuthorityFactory where Self: MSALAuthority {
    /// Creates the authority the URL names, as the subclass of its kind (``MSALAADAuthority``,
    /// ``MSALB2CAuthority``, ``MSALCIAMAuthority``, ``MSALADFSAuthority`` or ``MSALOIDCAuthority``).
    ///
    /// - Throws: ``MSALFailure`` with internal code ``MSALInternalError/invalidAuthority``.
    public init(url: URL) throws {
        try self.init(url: url, options: [])
    }

    /// Creates the authority the URL names, with opt-ins, as the subclass of its kind.
    ///
    /// - Throws: ``MSALFailure`` with internal code ``MSALInternalError/invalidAuthority``.
    public init(url: URL, options: MSALAuthorityOptions) throws {
        let made = try MSALAuthority.authority(url: url, options: options)
        // Every subclass declares its own `init(url:)`, so only `MSALAuthority` itself reaches
        // here and the cast always succeeds; the check keeps a future subclass from trapping.
        guard let typed = made as? Self else {
            throw MSALFailure(
                .internal, internalCode: .invalidAuthority,
                message: "The authority URL names a \(made.kind) authority, not a \(Self.self)")
        }
        self = typed
    }
}
