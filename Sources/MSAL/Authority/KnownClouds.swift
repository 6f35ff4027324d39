/// The Microsoft Entra hosts trusted without an instance-discovery answer, and their alias groups.
///
/// The alias groups are the ones every public instance-discovery answer lists
/// (see `Fixtures/Conformance/Authority`), and the sovereign clouds' single-host groups as the
/// other MSALs hard-code them; they are used when validation is off or the authority is a known
/// authority, so cache keys stay the same with and without discovery.
package enum KnownClouds {
    /// One cloud's hosts.
    package struct Group: Sendable, Hashable {
        package var preferredNetwork: String
        package var preferredCache: String
        package var aliases: [String]
    }

    /// Hosts swift-msal trusts as Microsoft Entra authorities.
    package static let trustedHosts: Set<String> = [
        "login.microsoftonline.com", "login.microsoft.com", "login.windows.net", "sts.windows.net",
        "login.chinacloudapi.cn", "login.partner.microsoftonline.cn", "login.microsoftonline.de",
        "login-us.microsoftonline.com", "login.microsoftonline.us", "login.usgovcloudapi.net",
        "login.sovcloud-identity.fr", "login.sovcloud-identity.de", "login.sovcloud-identity.sg",
    ]

    /// The built-in alias groups.
    package static let groups: [Group] = [
        Group(
            preferredNetwork: "login.microsoftonline.com", preferredCache: "login.windows.net",
            aliases: ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"]),
        Group(
            preferredNetwork: "login.partner.microsoftonline.cn", preferredCache: "login.partner.microsoftonline.cn",
            aliases: ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"]),
        Group(
            preferredNetwork: "login.microsoftonline.de", preferredCache: "login.microsoftonline.de", aliases: ["login.microsoftonline.de"]),
        Group(
            preferredNetwork: "login.microsoftonline.us", preferredCache: "login.microsoftonline.us",
            aliases: ["login.microsoftonline.us", "login.usgovcloudapi.net"]),
        Group(
            preferredNetwork: "login-us.microsoftonline.com", preferredCache: "login-us.microsoftonline.com",
            aliases: ["login-us.microsoftonline.com"]),
        // The sovereign clouds of 2025–2026 (Bleu in France, Delos in Germany, GovSG in
        // Singapore): one host each, as MSAL.NET 4.82, MSAL Go 1.9 and MSAL Java list them.
        Group(
            preferredNetwork: "login.sovcloud-identity.fr", preferredCache: "login.sovcloud-identity.fr",
            aliases: ["login.sovcloud-identity.fr"]),
        Group(
            preferredNetwork: "login.sovcloud-identity.de", preferredCache: "login.sovcloud-identity.de",
            aliases: ["login.sovcloud-identity.de"]),
        Group(
            preferredNetwork: "login.sovcloud-identity.sg", preferredCache: "login.sovcloud-identity.sg",
            aliases: ["login.sovcloud-identity.sg"]),
    ]

    /// The built-in group containing `host`.
    package static func group(containing host: String) -> Group? {
        groups.first { $0.aliases.contains(host) }
    }

    /// Where instance discovery for an untrusted host is asked.
    package static let defaultDiscoveryHost = "login.microsoftonline.com"

    /// The tenants that stand for several organizations, whose metadata carries the `{tenantid}` issuer template.
    package static let multiTenantAliases: Set<String> = ["common", "organizations", "consumers"]
}
