import Synchronization

/// The tenant-specific authorities silent requests derive from `common` and an account's home
/// tenant, made once per URL so the cache-hit path does not parse a URL on every call.
package final class DerivedAuthorities: Sendable {
    private struct Key: Hashable {
        var origin: String
        var tenant: String
    }

    private let authorities = Mutex<[Key: MSALAuthority]>([:])
    private static let capacity = 1024

    package init() {}

    /// The Entra authority `origin/tenant`, or `nil` when it does not parse.
    package func authority(origin: String, tenant: String, options: MSALAuthorityOptions) -> MSALAuthority? {
        let key = Key(origin: origin, tenant: tenant)
        if let known = authorities.withLock({ $0[key] }), known.options == options { return known }
        guard let components = try? AuthorityComponents.parse(origin + "/" + tenant, kind: .aad, options: options) else { return nil }
        let authority = MSALAuthority.make(components: components, options: options)
        authorities.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[key] = authority
        }
        return authority
    }
}
