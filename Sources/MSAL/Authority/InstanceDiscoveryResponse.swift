import Foundation
import MSALJSON

/// An instance-discovery answer (`/common/discovery/instance?api-version=1.1`).
package struct InstanceDiscoveryResponse: Sendable, Hashable {
    /// `tenant_discovery_endpoint`, when present.
    package var tenantDiscoveryEndpoint: String?
    /// The `metadata` alias groups, hosts lower-cased.
    package var groups: [KnownClouds.Group]

    /// Parses a 200 body; anything malformed is ``MSALInternalError/invalidAuthorityMetadata``.
    package static func parse(_ body: [UInt8], correlationID: UUID?) throws(MSALFailure) -> InstanceDiscoveryResponse {
        let reader = AuthorityDocument(name: "instance discovery response", correlationID: correlationID)
        func fail(_ reason: String) -> MSALFailure { reader.fail(reason) }
        let root = try reader.root(body)
        var response = InstanceDiscoveryResponse(tenantDiscoveryEndpoint: nil, groups: [])
        if let endpoint = root["tenant_discovery_endpoint"] {
            guard let text = endpoint.string else { throw fail("tenant_discovery_endpoint is not a string") }
            response.tenantDiscoveryEndpoint = text
        }
        guard let metadata = root["metadata"] else { throw fail("metadata is missing") }
        guard metadata.kind == .array else { throw fail("metadata is not an array") }
        for entry in metadata.elements {
            guard entry.kind == .object else { throw fail("a metadata entry is not an object") }
            guard let network = entry["preferred_network"]?.string, isHost(network) else {
                throw fail("a metadata entry has no valid preferred_network")
            }
            guard let cache = entry["preferred_cache"]?.string, isHost(cache) else {
                throw fail("a metadata entry has no valid preferred_cache")
            }
            guard let aliases = entry["aliases"], aliases.kind == .array else { throw fail("a metadata entry has no aliases array") }
            var hosts: [String] = []
            for alias in aliases.elements {
                guard let text = alias.string, isHost(text) else { throw fail("an alias is not a host name") }
                let host = text.lowercased()
                if !hosts.contains(host) { hosts.append(host) }
            }
            let group = KnownClouds.Group(preferredNetwork: network.lowercased(), preferredCache: cache.lowercased(), aliases: hosts)
            response.groups.append(group)
        }
        return response
    }

    /// The group that lists `host`.
    package func group(containing host: String) -> KnownClouds.Group? {
        groups.first { $0.aliases.contains(host) }
    }

    /// A DNS host name (letters, digits, hyphens, dots), at most 253 bytes, optionally with a
    /// `:port` (a local identity provider names itself `127.0.0.1:<port>`).
    private static func isHost(_ text: String) -> Bool {
        var host = Substring(text)
        if let colon = text.firstIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(port),
                (1...65535).contains(value)
            else { return false }
            host = text[..<colon]
        }
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        return host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default: false
            }
        }
    }
}
