/// Matches a request's `redirect_uri` against a client's registered ones.
///
/// Loopback URIs (`http://localhost`, `http://127.0.0.1`, `http://[::1]`) match on scheme, host,
/// path and query with any port, as RFC 8252 §7.3 asks and Entra does; an empty path is `/`.
/// Every other URI must be byte-for-byte the registered one.
enum RedirectURIMatcher {
    static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    /// A redirect URI split into its parts.
    struct Parsed: Equatable {
        var raw: String
        var scheme: String
        var host: String
        var port: Int?
        var path: String
        var query: String?

        var isLoopback: Bool { scheme == "http" && RedirectURIMatcher.loopbackHosts.contains(host) }

        /// `nil` unless `text` is an absolute URI of printable ASCII with a host, no userinfo and no fragment.
        init?(_ text: String) {
            let bytes = Array(text.utf8)
            guard !bytes.isEmpty, bytes.count <= 2048, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !bytes.contains(UInt8(ascii: "#")),
                let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
                bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
            else { return nil }
            let schemeBytes = bytes[..<colon]
            guard
                schemeBytes.allSatisfy({
                    EmulatorText.isAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                })
            else { return nil }
            let rest = bytes[(colon + 3)...]
            let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
            let authority = rest[rest.startIndex..<authorityEnd]
            guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { return nil }
            var hostPart = authority[...]
            var port: Int?
            let portColon: Int?
            if authority.first == UInt8(ascii: "[") {
                guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
                hostPart = authority[authority.startIndex...close]
                portColon = close + 1 < authority.endIndex ? close + 1 : nil
                if let portColon, authority[portColon] != UInt8(ascii: ":") { return nil }
            } else {
                portColon = authority.firstIndex(of: UInt8(ascii: ":"))
                if let portColon { hostPart = authority[authority.startIndex..<portColon] }
            }
            if let portColon {
                let digits = authority[(portColon + 1)...]
                guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let value = Int(String(decoding: digits, as: UTF8.self)), (1...65535).contains(value)
                else { return nil }
                port = value
            }
            guard !hostPart.isEmpty else { return nil }
            let afterAuthority = rest[authorityEnd...]
            let queryStart = afterAuthority.firstIndex(of: UInt8(ascii: "?"))
            let pathBytes = afterAuthority[afterAuthority.startIndex..<(queryStart ?? afterAuthority.endIndex)]
            self.raw = text
            self.scheme = String(decoding: schemeBytes, as: UTF8.self).lowercased()
            self.host = String(decoding: hostPart, as: UTF8.self).lowercased()
            self.port = port
            self.path = pathBytes.isEmpty ? "/" : String(decoding: pathBytes, as: UTF8.self)
            self.query = queryStart.map { String(decoding: afterAuthority[($0 + 1)...], as: UTF8.self) }
        }
    }

    /// Whether `requested` matches one of `registered`.
    static func matches(_ requested: String, registered: [String]) -> Bool {
        guard let request = Parsed(requested) else { return false }
        for candidate in registered {
            guard let registration = Parsed(candidate) else { continue }
            if registration.isLoopback {
                if request.isLoopback, request.host == registration.host, request.path == registration.path,
                    request.query == registration.query
                {
                    return true
                }
            } else if requested == candidate {
                return true
            }
        }
        return false
    }

    /// `uri` with `parameters` added to its query.
    static func appending(_ parameters: [(String, String)], to uri: String) -> String {
        uri + (uri.contains("?") ? "&" : "?") + EmulatorText.formEncoded(parameters)
    }
}
