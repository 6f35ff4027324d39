/// How an application validates authorities: instance discovery on or off, and the hosts it trusts as given.
package struct AuthorityValidationPolicy: Sendable, Hashable {
    /// Whether unknown Microsoft Entra hosts are checked with instance discovery.
    package var validatesAuthority: Bool
    /// `host[:port]` of the configured `knownAuthorities`: no instance discovery, and endpoints on them are trusted.
    package var knownHosts: Set<String>

    package init(validatesAuthority: Bool = true, knownAuthorities: [MSALAuthority] = []) {
        self.validatesAuthority = validatesAuthority
        self.knownHosts = Set(knownAuthorities.map(\.components.hostAndPort))
    }

    /// How discovery runs for `components`.
    package func mode(for components: AuthorityComponents) -> AuthorityDiscoveryMode {
        guard components.kind == .aad else { return .notApplicable }
        if knownHosts.contains(components.hostAndPort) { return .knownAuthority }
        return validatesAuthority ? .validate : .validationOff
    }
}

/// Whether and why instance discovery runs for one authority.
package enum AuthorityDiscoveryMode: Sendable, Hashable {
    /// Microsoft Entra authority checked by instance discovery.
    case validate
    /// Microsoft Entra authority listed in `knownAuthorities`.
    case knownAuthority
    /// Microsoft Entra authority with validation turned off.
    case validationOff
    /// B2C, CIAM, ADFS and OpenID Connect authorities: no instance discovery.
    case notApplicable
}
