import Foundation

/// A validated, canonical authority URL split into the parts swift-msal uses.
///
/// Parsing works on the URL's text, byte by byte, rather than trusting a URL parser's
/// normalization: anything a parser could read two ways (userinfo, backslashes, percent
/// escapes, dot segments, IDN hosts) is rejected, not repaired.
package struct AuthorityComponents: Sendable, Hashable {
    package var kind: MSALAuthorityKind
    /// `https`, or `http` for an opted-in loopback authority.
    package var scheme: String
    /// Lower-cased host (an IPv6 literal keeps its brackets).
    package var host: String
    /// An explicit port other than the scheme's default.
    package var port: Int?
    /// The canonical tenant (AAD/CIAM/B2C lower-cased; `adfs` for ADFS; empty for OIDC).
    package var tenant: String
    /// The tenant segment as the app wrote it.
    package var rawTenant: String
    /// The B2C policy, as written.
    package var policy: String?
    /// Path segments of a generic OIDC issuer.
    package var issuerPath: [String]
    /// Whether the host is a loopback address.
    package var isLoopback: Bool
    /// The canonical authority URL.
    package var canonical: String

    /// `scheme://host[:port]`.
    package var origin: String {
        port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// `host[:port]`, the form used to compare endpoint hosts.
    package var hostAndPort: String {
        port.map { "\(host):\($0)" } ?? host
    }
}

/// The raw split of an authority URL before kind-specific rules.
package struct AuthorityURLParts: Sendable, Hashable {
    package var scheme: String
    package var host: String
    package var port: Int?
    package var segments: [String]
    package var isLoopback: Bool
    package var hadTrailingSlash: Bool

    package static let loopbackHosts: Set<String> = ["127.0.0.1", "localhost", "[::1]"]

    /// Splits and checks `text`.
    package static func parse(_ text: String, options: MSALAuthorityOptions) throws(MSALFailure) -> AuthorityURLParts {
        func fail(_ reason: String) -> MSALFailure {
            MSALFailure(
                .internal, internalCode: .invalidAuthority, message: "Invalid authority \(AuthorityURLParts.quoted(text)): \(reason).")
        }
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw fail("it is empty") }
        guard bytes.count <= 2048 else { throw fail("it is longer than 2048 bytes") }
        for byte in bytes {
            if byte <= 0x20 || byte >= 0x7F {
                throw fail("it contains a space, a control character or a non-ASCII byte (write IDN hosts in their xn-- form)")
            }
            if byte == UInt8(ascii: "\\") { throw fail("it contains a backslash") }
            if byte == UInt8(ascii: "?") { throw fail("it has a query; an authority is scheme, host and path only") }
            if byte == UInt8(ascii: "#") { throw fail("it has a fragment") }
            if byte == UInt8(ascii: "%") { throw fail("it contains a percent escape") }
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { throw fail("it is not an absolute https URL") }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "https" || scheme == "http" else { throw fail("the scheme must be https") }
        let rest = bytes[(colon + 3)...]
        let pathStart = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        let authority = rest[rest.startIndex..<pathStart]
        if authority.contains(UInt8(ascii: "@")) { throw fail("it contains userinfo (`@`)") }
        guard !authority.isEmpty else { throw fail("it has no host") }

        var hostBytes = authority[...]
        var port: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw fail("the IPv6 host is not closed") }
            hostBytes = authority[authority.startIndex...close]
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw fail("unexpected bytes after the host") }
                port = try parsePort(after.dropFirst(), fail: fail)
            }
        } else if let portColon = authority.firstIndex(of: UInt8(ascii: ":")) {
            hostBytes = authority[authority.startIndex..<portColon]
            port = try parsePort(authority[(portColon + 1)...], fail: fail)
        }
        let host = String(decoding: hostBytes, as: UTF8.self).lowercased()
        let isLoopback = loopbackHosts.contains(host)
        if !isLoopback || !host.hasPrefix("[") {
            try checkHostName(host, fail: fail)
        }
        if scheme == "http" {
            guard isLoopback else { throw fail("plain http is allowed only for a loopback host") }
            guard options.contains(.allowInsecureLoopback) else {
                throw fail("plain http needs the explicit opt-in MSALAuthorityOptions.allowInsecureLoopback")
            }
        }
        if port == 443 && scheme == "https" || port == 80 && scheme == "http" { port = nil }

        var segments: [String] = []
        var trailing = false
        if pathStart < rest.endIndex {
            let path = rest[(pathStart + 1)...]
            let parts = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                if part.isEmpty {
                    if index == parts.count - 1 { trailing = true; continue }
                    throw fail("the path has an empty segment")
                }
                if part.elementsEqual(".".utf8) || part.elementsEqual("..".utf8) { throw fail("the path has a dot segment") }
                for byte in part where !isSegmentByte(byte) {
                    throw fail("the path contains `\(Character(UnicodeScalar(byte)))`")
                }
                segments.append(String(decoding: part, as: UTF8.self))
            }
        }
        return AuthorityURLParts(
            scheme: scheme, host: host, port: port, segments: segments, isLoopback: isLoopback, hadTrailingSlash: trailing)
    }

    private static func parsePort(_ bytes: ArraySlice<UInt8>, fail: (String) -> MSALFailure) throws(MSALFailure) -> Int {
        guard !bytes.isEmpty, bytes.count <= 5, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int(String(decoding: bytes, as: UTF8.self)), value >= 1, value <= 65535
        else { throw fail("the port is invalid") }
        return value
    }

    /// A DNS name of letters, digits and hyphens (already lower-cased), or a dotted IPv4 address.
    private static func checkHostName(_ host: String, fail: (String) -> MSALFailure) throws(MSALFailure) {
        guard host.utf8.count <= 253 else { throw fail("the host is too long") }
        let labels = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty, label.count <= 63 else { throw fail("the host has an empty or overlong label") }
            guard label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else {
                throw fail("a host label starts or ends with a hyphen")
            }
            for byte in label {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): continue
                default: throw fail("the host contains `\(Character(UnicodeScalar(byte)))`")
                }
            }
        }
    }

    /// Unreserved bytes plus a few sub-delimiters that tenants, policies and issuer paths use.
    private static func isSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The text, shortened for an error message.
    package static func quoted(_ text: String) -> String {
        let limited = text.utf8.count > 200 ? String(decoding: text.utf8.prefix(200), as: UTF8.self) + "…" : text
        return "`"
            + limited.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }
            .joined() + "`"
    }
}
