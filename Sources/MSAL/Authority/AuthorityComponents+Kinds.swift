extension AuthorityComponents {
    /// The kind an authority URL names, for `MSALAuthority(url:)`.
    package static func detectKind(_ parts: AuthorityURLParts) -> MSALAuthorityKind {
        if parts.host.hasSuffix(".b2clogin.com") { return .b2c }
        if let first = parts.segments.first?.lowercased() {
            if first == "tfp" { return .b2c }
            if first == "adfs" { return .adfs }
        }
        if parts.host.hasSuffix(".ciamlogin.com") { return .ciam }
        return .aad
    }

    /// Parses `text` as an authority of `kind` (`nil`: detect it).
    package static func parse(
        _ text: String, kind: MSALAuthorityKind?, options: MSALAuthorityOptions
    ) throws(MSALFailure) -> AuthorityComponents {
        let parts = try AuthorityURLParts.parse(text, options: options)
        do {
            return try make(kind ?? detectKind(parts), parts: parts, text: text)
        } catch {
            // A URL of another provider read as Microsoft Entra's: say how to name it.
            guard kind == nil, !KnownClouds.trustedHosts.contains(parts.host) else { throw error }
            var error = error
            error.message += " " + oidcHint
            throw error
        }
    }

    /// How to ask for a generic OpenID Connect authority, for messages about a URL that was read as
    /// a Microsoft one: a URL names no kind, so only the caller can say it is generic OpenID Connect.
    package static let oidcHint =
        "If this is a generic OpenID Connect provider, name it as one: MSALOIDCAuthority(url:) in the library, --authority-kind oidc in the msal command."

    /// Applies the rules of `kind` to parsed parts.
    package static func make(_ kind: MSALAuthorityKind, parts: AuthorityURLParts, text: String) throws(MSALFailure) -> AuthorityComponents {
        func fail(_ reason: String) -> MSALFailure {
            MSALFailure(
                .internal, internalCode: .invalidAuthority,
                message: "Invalid \(kind.displayName) authority \(AuthorityURLParts.quoted(text)): \(reason).")
        }
        let origin = parts.port.map { "\(parts.scheme)://\(parts.host):\($0)" } ?? "\(parts.scheme)://\(parts.host)"
        var components = AuthorityComponents(
            kind: kind, scheme: parts.scheme, host: parts.host, port: parts.port, tenant: "", rawTenant: "",
            policy: nil, issuerPath: [], isLoopback: parts.isLoopback, canonical: origin)
        switch kind {
        case .aad:
            guard parts.segments.count == 1 else {
                throw fail(
                    parts.segments.isEmpty
                        ? "it has no tenant (use /common, /organizations, /consumers, a tenant id or a domain)"
                        : "the path must be exactly one tenant segment")
            }
            let raw = parts.segments[0]
            guard raw.lowercased() != "adfs" else { throw fail("`adfs` is an ADFS authority; use MSALADFSAuthority") }
            components.rawTenant = raw
            components.tenant = raw.lowercased()
            components.canonical = origin + "/" + components.tenant
        case .b2c:
            var segments = parts.segments
            if segments.first?.lowercased() == "tfp" { segments.removeFirst() }
            guard segments.count == 2 else { throw fail("the path must be /<tenant>/<policy> (optionally after /tfp)") }
            components.rawTenant = segments[0]
            components.tenant = segments[0].lowercased()
            components.policy = segments[1]
            components.canonical = origin + "/" + components.tenant + "/" + segments[1]
        case .ciam:
            switch parts.segments.count {
            case 0:
                guard let label = parts.host.split(separator: ".").first, !parts.host.hasPrefix("[") else {
                    throw fail("a CIAM authority without a tenant needs a host name")
                }
                components.rawTenant = ""
                components.tenant = label + ".onmicrosoft.com"
            case 1:
                components.rawTenant = parts.segments[0]
                components.tenant = parts.segments[0].lowercased()
            default:
                throw fail("the path must be empty or one tenant segment")
            }
            components.canonical = origin + "/" + components.tenant
        case .adfs:
            guard parts.segments.count == 1, parts.segments[0].lowercased() == "adfs" else {
                throw fail("the path must be /adfs")
            }
            components.rawTenant = parts.segments[0]
            components.tenant = "adfs"
            components.canonical = origin + "/adfs"
        case .oidc:
            components.issuerPath = parts.segments
            components.canonical =
                origin + (parts.segments.isEmpty ? "" : "/" + parts.segments.joined(separator: "/"))
                + (parts.hadTrailingSlash ? "/" : "")
        }
        return components
    }
}

extension MSALAuthorityKind {
    /// A name for messages.
    package var displayName: String {
        switch self {
        case .aad: "Microsoft Entra"
        case .b2c: "B2C"
        case .ciam: "CIAM"
        case .adfs: "ADFS"
        case .oidc: "OpenID Connect"
        }
    }
}
