import Foundation

/// The checks between an authority and the OpenID configuration it served: the issuer must be
/// the authority's, and every endpoint must be on one of its hosts over https.
package struct AuthorityMetadataValidator: Sendable {
    package var authority: MSALAuthority
    package var group: KnownClouds.Group
    package var policy: AuthorityValidationPolicy
    package var isValidated: Bool

    package init(authority: MSALAuthority, group: KnownClouds.Group, policy: AuthorityValidationPolicy, isValidated: Bool) {
        self.authority = authority
        self.group = group
        self.policy = policy
        self.isValidated = isValidated
    }

    private var components: AuthorityComponents { authority.components }

    /// Hosts (`host[:port]`) the authority may use: its own, its cloud's aliases and the known authorities.
    package var trustedHosts: Set<String> {
        var hosts = Set(group.aliases)
        hosts.insert(components.hostAndPort)
        hosts.insert(group.preferredNetwork)
        if components.kind != .oidc && components.kind != .adfs, let builtIn = KnownClouds.group(containing: components.host) {
            hosts.formUnion(builtIn.aliases)
        }
        hosts.formUnion(policy.knownHosts)
        return hosts
    }

    /// Validates `configuration` and builds the metadata.
    package func validate(_ configuration: OpenIDConfiguration, correlationID: UUID?) throws(MSALFailure) -> MSALAuthorityMetadata {
        let issuerHost = try checkIssuer(configuration.issuer, correlationID: correlationID)
        var hosts = trustedHosts
        hosts.insert(issuerHost)
        func endpoint(_ text: String, _ name: String) throws(MSALFailure) -> URL {
            try checkEndpoint(text, name: name, hosts: hosts, correlationID: correlationID)
        }
        let token = try endpoint(configuration.tokenEndpoint, "token_endpoint")
        var deviceCode: URL?
        if let device = configuration.deviceAuthorizationEndpoint {
            deviceCode = try endpoint(device, "device_authorization_endpoint")
        } else if components.kind != .adfs && components.kind != .oidc {
            deviceCode = Self.deviceCodeEndpoint(derivedFrom: token)
        }
        return MSALAuthorityMetadata(
            authority: authority.url, kind: authority.kind, tenant: components.tenant,
            cacheEnvironment: group.preferredCache, networkHost: group.preferredNetwork, aliases: group.aliases,
            isValidated: isValidated,
            authorizationEndpoint: try endpoint(configuration.authorizationEndpoint, "authorization_endpoint"),
            tokenEndpoint: token, deviceCodeEndpoint: deviceCode,
            endSessionEndpoint: try configuration.endSessionEndpoint.map { (text) throws(MSALFailure) in
                try endpoint(text, "end_session_endpoint")
            },
            jwksURI: try endpoint(configuration.jwksURI, "jwks_uri"),
            // checkIssuer accepts `{tenant}` as the multi-tenant template too; the ID-token validator fills only `{tenantid}`.
            issuer: configuration.issuer.replacingOccurrences(of: "{tenant}", with: "{tenantid}"),
            authorizationResponseIssuerSupported: configuration.authorizationResponseIssuerSupported,
            // Kept for a generic provider only, and only on a host it owns over https as every
            // endpoint is; otherwise ignored rather than failing discovery for clients that never
            // use mutual TLS (Microsoft Entra's mTLS hosts are named by the cloud, not its metadata).
            mtlsTokenEndpoint: components.kind == .oidc
                ? configuration.mtlsTokenEndpoint.flatMap { try? endpoint($0, "mtls_endpoint_aliases.token_endpoint") } : nil)
    }

    /// `…/token` → `…/devicecode`, keeping any query.
    package static func deviceCodeEndpoint(derivedFrom token: URL) -> URL? {
        guard var parts = URLComponents(url: token, resolvingAgainstBaseURL: false), parts.path.hasSuffix("/token") else { return nil }
        parts.path = String(parts.path.dropLast("token".count)) + "devicecode"
        return parts.url
    }

    // MARK: Issuer

    /// Checks the issuer and returns its `host[:port]`.
    private func checkIssuer(_ issuer: String, correlationID: UUID?) throws(MSALFailure) -> String {
        func mismatch(_ reason: String) -> MSALFailure {
            MSALFailure(
                .internal, internalCode: .authorityIssuerMismatch,
                message:
                    "The OpenID configuration of \(components.canonical) names the issuer \(AuthorityURLParts.quoted(issuer)): \(reason).",
                correlationID: correlationID)
        }
        switch components.kind {
        case .oidc:
            guard issuer == components.canonical else { throw mismatch("an OpenID Connect issuer must equal the authority exactly") }
            return components.hostAndPort
        case .adfs:
            guard issuer == components.canonical || issuer == components.canonical + "/" else {
                throw mismatch("an ADFS issuer must be \(components.canonical)")
            }
            return components.hostAndPort
        case .aad, .b2c, .ciam:
            break
        }
        // Entra kinds: https://<trusted host>/<X>[/v2.0][/], with the placeholder template kept intact.
        let scheme = components.scheme == "http" ? ["https://", "http://"] : ["https://"]
        guard let prefix = scheme.first(where: { issuer.hasPrefix($0) }) else { throw mismatch("it is not an https URL") }
        let rest = issuer.dropFirst(prefix.count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = rest[..<slash].lowercased()
        var segments = rest[slash...].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.first == "" { segments.removeFirst() }
        if segments.last == "" { segments.removeLast() }
        let hostAllowed =
            trustedHosts.contains(host) || (components.kind == .ciam && host.hasSuffix(".ciamlogin.com") && !host.contains(":"))
        guard hostAllowed else { throw mismatch("its host is not one of the authority's hosts") }
        guard segments.count == 1 || (segments.count == 2 && segments[1] == "v2.0") else {
            throw mismatch("its path is not /<tenant>/v2.0")
        }
        let issuerTenant = segments[0]
        let tenant = components.tenant
        let isMultiTenant = KnownClouds.multiTenantAliases.contains(tenant)
        if issuerTenant.lowercased() == tenant { return host }
        if issuerTenant == "{tenantid}" || issuerTenant == "{tenant}" {
            guard isMultiTenant else { throw mismatch("a template issuer is only valid for /common, /organizations and /consumers") }
            return host
        }
        if CacheText.isGUID(issuerTenant) {
            // A domain or a multi-tenant alias resolves to a tenant id; a tenant id must be the same one.
            guard !CacheText.isGUID(tenant) else { throw mismatch("it belongs to another tenant") }
            return host
        }
        throw mismatch("it belongs to another tenant")
    }

    // MARK: Endpoints

    private func checkEndpoint(_ raw: String, name: String, hosts: Set<String>, correlationID: UUID?) throws(MSALFailure) -> URL {
        func insecure(_ reason: String) -> MSALFailure {
            MSALFailure(
                .internal, internalCode: .insecureEndpoint,
                message: "The \(name) of \(components.canonical), \(AuthorityURLParts.quoted(raw)), \(reason).",
                correlationID: correlationID)
        }
        let text = raw.replacingOccurrences(of: "{tenantid}", with: components.tenant)
            .replacingOccurrences(of: "{tenant}", with: components.tenant)
        guard text.utf8.count <= 2048, !text.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\\") }),
            let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
            // The host as written: `parts.host` decodes percent escapes and turns xn-- labels into Unicode,
            // so it is neither what the request goes to nor comparable with the authority's host. The range
            // is one of `parts.string`, which can differ from `text` (a second `@` is percent-encoded).
            let written = parts.string, let hostRange = parts.rangeOfHost, case let rawHost = String(written[hostRange]),
            // The percent-encoded forms: the decoded `fragment`, `user` and `password` are nil when
            // their escapes do not decode to UTF-8 (`#%e3`), though the URL has one.
            !rawHost.isEmpty, parts.percentEncodedFragment == nil, let url = parts.url
        else {
            throw MSALFailure(
                .internal, internalCode: .invalidAuthorityMetadata,
                message: "The \(name) of \(components.canonical) is not an absolute URL: \(AuthorityURLParts.quoted(raw)).",
                correlationID: correlationID)
        }
        guard parts.percentEncodedUser == nil, parts.percentEncodedPassword == nil else { throw insecure("carries userinfo") }
        guard !rawHost.contains("%") else { throw insecure("has a percent-encoded host") }
        let host = rawHost.lowercased()
        let hostAndPort = parts.port.map { "\(host):\($0)" } ?? host
        switch scheme {
        case "https":
            break
        case "http":
            // Only an http loopback authority (which needed the opt-in) may use http endpoints.
            guard components.scheme == "http", components.isLoopback, AuthorityURLParts.loopbackHosts.contains(host) else {
                throw insecure("is not https")
            }
        default:
            throw insecure("is not https")
        }
        let normalized = scheme == "https" && parts.port == 443 ? host : hostAndPort
        guard hosts.contains(normalized) else { throw insecure("is on a host the authority does not own (\(hostAndPort))") }
        return url
    }
}
