// OpenID Provider Metadata and instance-discovery parsing, and the checks between an authority and
// the metadata it serves (`@_spi(Fuzzing)` entry points of MSAL).
//
// Input: one document, read both as an instance-discovery answer and as an OpenID configuration;
// or `<instance discovery>\0<OpenID configuration>`, the first part giving the cloud's aliases.
//
// Invariants:
// - A discovery answer that parses has lower-case, non-empty hosts, no repeated alias, and finds
//   each of its groups by each alias.
// - Metadata that validates for an authority has only https endpoints (http only for an opted-in
//   loopback authority, on that loopback host), all on hosts the authority trusts (its own, its
//   cloud's aliases, its known authorities, a CIAM issuer's *.ciamlogin.com host), without
//   userinfo or fragment; its issuer keeps no `{tenant}` placeholder.
// - Anything else ends in an MSALFailure with one of the metadata internal codes.

import Foundation
import FuzzCheck
@_spi(Fuzzing) import MSAL

/// The authorities every input is validated for, with the kind forced where detection would not find it.
let authorities: [(text: String, kind: MSALAuthorityKind?, loopback: Bool, known: [String])] = [
    ("https://login.microsoftonline.com/common", nil, false, []),
    ("https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47", nil, false, []),
    ("https://login.microsoftonline.com/contoso.onmicrosoft.com", nil, false, ["https://login.contoso.com/contoso.onmicrosoft.com"]),
    ("https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", nil, false, []),
    ("https://contoso.ciamlogin.com/", nil, false, []),
    ("https://fs.contoso.com/adfs", nil, false, []),
    ("https://issuer.example.com/tenant/v2.0", .oidc, false, []),
    ("http://127.0.0.1:8443/common", nil, true, []),
]

/// The public cloud's aliases, as the built-in table and every real discovery answer list them.
let publicCloud = MSALFuzzingSupport.DiscoveryGroup(
    preferredNetwork: "login.microsoftonline.com", preferredCache: "login.windows.net",
    aliases: ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"])

let metadataCodes: Set<MSALInternalError> = [.invalidAuthorityMetadata, .authorityIssuerMismatch, .insecureEndpoint]

/// libFuzzer's entry point: reads the input as an instance-discovery answer and as an OpenID
/// configuration, validates the configuration for each of `authorities`, and returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthorityMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let discoveryBytes: [UInt8]
    let configurationBytes: [UInt8]
    if let (first, second) = fuzzSplit(bytes, at: 0) {
        (discoveryBytes, configurationBytes) = (first, second)
    } else {
        (discoveryBytes, configurationBytes) = (bytes, bytes)
    }
    let groups = checkDiscovery(discoveryBytes)
    for authority in authorities {
        let authorityHost = hostAndPort(URL(string: authority.text)!)
        let group =
            groups.first { $0.aliases.contains(authorityHost) }
            ?? (authorityHost.hasPrefix("login.microsoftonline.com") ? publicCloud : nil)
        checkConfiguration(configurationBytes, authority: authority, group: group)
    }
    return 0
}

/// Parses `bytes` as instance discovery; returns its groups.
func checkDiscovery(_ bytes: [UInt8]) -> [MSALFuzzingSupport.DiscoveryGroup] {
    let parsed: (tenantDiscoveryEndpoint: String?, groups: [MSALFuzzingSupport.DiscoveryGroup])
    do throws(MSALFailure) {
        parsed = try MSALFuzzingSupport.parseInstanceDiscovery(bytes)
    } catch {
        fuzzCheck(
            error.internalCode == .invalidAuthorityMetadata, "instance discovery failed with \(String(describing: error.internalCode))")
        return []
    }
    for group in parsed.groups {
        for host in group.aliases + [group.preferredNetwork, group.preferredCache] {
            fuzzCheck(!host.isEmpty && host == host.lowercased(), "discovery host \(host) is empty or not lower-case")
        }
        fuzzCheck(Set(group.aliases).count == group.aliases.count, "discovery group repeats an alias")
    }
    return parsed.groups
}

/// Validates `bytes` as the OpenID configuration of `authority`.
func checkConfiguration(
    _ bytes: [UInt8], authority: (text: String, kind: MSALAuthorityKind?, loopback: Bool, known: [String]),
    group: MSALFuzzingSupport.DiscoveryGroup?
) {
    let metadata: MSALAuthorityMetadata
    do throws(MSALFailure) {
        metadata = try MSALFuzzingSupport.validateOpenIDConfiguration(
            bytes, authority: authority.text, kind: authority.kind, allowInsecureLoopback: authority.loopback, group: group,
            knownAuthorities: authority.known)
    } catch {
        fuzzCheck(
            error.internalCode.map(metadataCodes.contains) ?? false,
            "metadata for \(authority.text) failed with \(String(describing: error.internalCode)): \(error.message)")
        return
    }
    let own = hostAndPort(URL(string: authority.text)!)
    var trusted: Set<String> = [own]
    if let group { trusted.formUnion(group.aliases + [group.preferredNetwork]) }
    if own == "login.microsoftonline.com" { trusted.formUnion(publicCloud.aliases) }
    for known in authority.known { trusted.insert(hostAndPort(URL(string: known)!)) }

    let endpoints: [(String, URL?)] = [
        ("authorization_endpoint", metadata.authorizationEndpoint), ("token_endpoint", metadata.tokenEndpoint),
        ("jwks_uri", metadata.jwksURI), ("device_authorization_endpoint", metadata.deviceCodeEndpoint),
        ("end_session_endpoint", metadata.endSessionEndpoint),
    ]
    for (name, endpoint) in endpoints {
        guard let endpoint else { continue }
        let scheme = endpoint.scheme?.lowercased()
        fuzzCheck(
            scheme == "https" || (scheme == "http" && authority.loopback),
            "\(name) \(endpoint.absoluteString) of \(authority.text) is not https")
        fuzzCheck(endpoint.user == nil && endpoint.password == nil, "\(name) \(endpoint.absoluteString) carries userinfo")
        fuzzCheck(endpoint.fragment == nil, "\(name) \(endpoint.absoluteString) has a fragment")
        let host = hostAndPort(endpoint)
        let ciamIssuerHost = metadata.kind == .ciam && host.hasSuffix(".ciamlogin.com") && !host.contains(":")
        fuzzCheck(
            trusted.contains(host) || ciamIssuerHost, "\(name) \(endpoint.absoluteString) of \(authority.text) is on untrusted host \(host)"
        )
    }
    fuzzCheck(!metadata.issuer.contains("{tenant}"), "issuer \(metadata.issuer) keeps the {tenant} placeholder")
}

/// `host[:port]` of `url` as written, lower-cased, without the scheme's default port.
func hostAndPort(_ url: URL) -> String {
    let host = (url.host(percentEncoded: true) ?? "").lowercased()
    guard let port = url.port, !(url.scheme?.lowercased() == "https" && port == 443), !(url.scheme?.lowercased() == "http" && port == 80)
    else {
        return host
    }
    return "\(host):\(port)"
}
