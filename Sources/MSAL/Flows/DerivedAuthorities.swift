import MSALSupport

/// The tenant-specific authorities silent requests derive from the application's authority
/// (`common`, `organizations`) and an account's home tenant (and cloud), made once per tenant and
/// cloud so the cache-hit path neither parses a URL nor builds one on every call.
package final class DerivedAuthorities: Sendable {
    private struct Key: Hashable {
        /// The other cloud's origin, or `""` for the base authority's own.
        var cloud: String
        var tenant: String
    }

    private let authorities = Mutex<[Key: MSALAuthority]>([:])
    private static let capacity = 1024

    package init() {}

    /// The Entra authority for `tenant` at `base`'s origin, or at `otherCloud` (an origin such as
    /// `https://login.microsoftonline.us`) when given; `nil` when it does not parse.
    package func authority(base: MSALAuthority, otherCloud: String?, tenant: String) -> MSALAuthority? {
        let key = Key(cloud: otherCloud ?? "", tenant: tenant)
        if let known = authorities.withLock({ $0[key] }), known.options == base.options { return known }
        let origin = otherCloud ?? base.components.origin
        guard let components = try? AuthorityComponents.parse(origin + "/" + tenant, kind: .aad, options: base.options) else { return nil }
        let authority = MSALAuthority.make(components: components, options: base.options)
        authorities.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[key] = authority
        }
        return authority
    }
}
