import Synchronization

/// The tenant-specific authorities silent requests derive from `common` and an account's home
/// tenant, made once per URL so the cache-hit path does not parse a URL on every call.
package final class DerivedAuthorities: Sendable {
    private let authorities = Mutex<[String: MSALAuthority]>([:])
    private static let capacity = 1024

    package init() {}

    /// The Entra authority at `url`, or `nil` when it does not parse.
    package func authority(_ url: String, options: MSALAuthorityOptions) -> MSALAuthority? {
        if let known = authorities.withLock({ $0[url] }), known.options == options { return known }
        guard let components = try? AuthorityComponents.parse(url, kind: .aad, options: options) else { return nil }
        let authority = MSALAuthority.make(components: components, options: options)
        authorities.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[url] = authority
        }
        return authority
    }
}
