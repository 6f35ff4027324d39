import Foundation

/// An authority: the identity provider and tenant that sign users in.
///
/// `MSALAuthority(url:)` reads the kind from the URL (B2C, CIAM, ADFS or Microsoft Entra) and,
/// like MSAL for iOS's factory, returns the matching subclass: `MSALAuthority(url: b2cURL) as?
/// MSALB2CAuthority` succeeds. ``authority(url:options:)`` is the same factory as a method. Every authority is validated and canonicalized when created: `https` only
/// (plain `http` for a loopback host with ``MSALAuthorityOptions/allowInsecureLoopback``), no
/// userinfo, query, fragment, percent escapes, backslashes or dot segments.
///
/// Instances are immutable.
public class MSALAuthority: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked Sendable: every stored property is an immutable `let` of a Sendable type, and the
    // subclasses add only immutable Sendable `let`s; the class is non-final only to mirror MSAL's hierarchy.

    /// The canonical authority URL, such as `https://login.microsoftonline.com/common`.
    public let url: URL
    /// The kind of provider.
    public let kind: MSALAuthorityKind
    /// The opt-ins this authority was created with.
    public let options: MSALAuthorityOptions
    package let components: AuthorityComponents
    /// The hash of the kind and canonical URL, computed once: authorities key the hot paths' memos.
    private let hashOfIdentity: Int

    package init(components: AuthorityComponents, options: MSALAuthorityOptions) {
        self.components = components
        var hasher = Hasher()
        hasher.combine(components.kind)
        hasher.combine(components.canonical)
        self.hashOfIdentity = hasher.finalize()
        self.options = options
        self.kind = components.kind
        // The canonical string was built from checked ASCII parts, so it always parses.
        self.url = URL(string: components.canonical)!
    }

    /// Creates an authority as the subclass of its kind (``MSALAADAuthority``, ``MSALB2CAuthority``, …).
    public static func authority(url: URL, options: MSALAuthorityOptions = []) throws -> MSALAuthority {
        let components = try AuthorityComponents.parse(url.absoluteString, kind: nil, options: options)
        return make(components: components, options: options)
    }

    package static func make(components: AuthorityComponents, options: MSALAuthorityOptions) -> MSALAuthority {
        switch components.kind {
        case .aad: MSALAADAuthority(components: components, options: options)
        case .b2c: MSALB2CAuthority(components: components, options: options)
        case .ciam: MSALCIAMAuthority(components: components, options: options)
        case .adfs: MSALADFSAuthority(components: components, options: options)
        case .oidc: MSALOIDCAuthority(components: components, options: options)
        }
    }

    /// The tenant: `common`, `organizations`, `consumers`, a tenant id or domain, `adfs`, or empty for OpenID Connect.
    public var tenant: String { components.tenant }

    /// The lower-cased host.
    public var host: String { components.host }

    /// The canonical URL as text.
    public var description: String { components.canonical }

    /// Same kind and canonical URL (the tenant as written, which may differ in case, is not compared).
    public static func == (lhs: MSALAuthority, rhs: MSALAuthority) -> Bool {
        lhs.components.kind == rhs.components.kind && lhs.components.canonical == rhs.components.canonical
    }

    /// Hashes the kind and canonical URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashOfIdentity)
    }
}
