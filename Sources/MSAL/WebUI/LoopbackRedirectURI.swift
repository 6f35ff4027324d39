import Foundation
import MSALSupport

/// A loopback redirect URI (RFC 8252 §7.3): `http://localhost[:port][/path]` or `http://127.0.0.1[:port][/path]`.
///
/// Without a port the listener binds an ephemeral one (the identity provider accepts any port for a
/// loopback redirect URI); with one it binds exactly that port. The path is kept as given (`/` when empty)
/// and must be made of RFC 3986 path characters without `.` or `..` segments. Anything else, such as
/// `https`, another host, `[::1]`, userinfo, a query or a fragment, is rejected.
package struct LoopbackRedirectURI: Sendable, Hashable {
    /// The host name the redirect URI uses; the listener binds the loopback address in both cases.
    package enum Host: String, Sendable, Hashable {
        /// `localhost`: the default, what Microsoft Entra accepts with any port.
        case localhost
        /// `127.0.0.1`, the loopback IP literal RFC 8252 §8.3 recommends.
        case ipv4Loopback = "127.0.0.1"
    }

    /// The host name.
    package var host: Host
    /// The fixed port, or `nil` for an ephemeral one.
    package var port: Int?
    /// The path, starting with `/`.
    package var path: String

    /// Creates a redirect URI from its parts, validating `path` and `port`.
    package init(host: Host = .localhost, port: Int? = nil, path: String = "/") throws(MSALFailure) {
        if let port, !(1...65535).contains(port) {
            throw Self.invalid("the port \(port) is not between 1 and 65535")
        }
        guard Self.isValidPath(path) else {
            throw Self.invalid("the path must start with \"/\" and contain only URI path characters, without \".\" or \"..\" segments")
        }
        self.host = host
        self.port = port
        self.path = path
    }

    /// Parses an app's configured redirect URI; `nil` is `http://localhost` on an ephemeral port.
    ///
    /// - Throws: ``MSALInternalError/internalErrorInvalidRedirectURI`` for anything but a loopback `http` URI.
    package init(parsing text: String?) throws(MSALFailure) {
        guard let text else {
            try self.init()
            return
        }
        let scheme = "http://"
        guard text.count > scheme.count, text.prefix(scheme.count).lowercased() == scheme else {
            throw Self.invalid("only http://localhost or http://127.0.0.1 redirect URIs can be received on Linux")
        }
        let rest = text.dropFirst(scheme.count)
        if rest.contains("?") || rest.contains("#") {
            throw Self.invalid("a loopback redirect URI has no query or fragment")
        }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        if authority.contains("@") {
            throw Self.invalid("a loopback redirect URI has no user information")
        }
        var hostText = authority
        var port: Int?
        if let colon = authority.lastIndex(of: ":") {
            hostText = authority[..<colon]
            let portText = authority[authority.index(after: colon)...]
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(portText)
            else {
                throw Self.invalid("the port is not a number")
            }
            port = value
        }
        let host: Host
        switch hostText.lowercased() {
        case "localhost": host = .localhost
        case "127.0.0.1": host = .ipv4Loopback
        default:
            throw Self.invalid("the host must be localhost or 127.0.0.1")
        }
        try self.init(host: host, port: port, path: path.isEmpty ? "/" : String(path))
    }

    /// The redirect URI for the listener's bound `port`: `http://<host>:<port><path>`.
    package func url(boundPort: Int) -> URL {
        // Every part was validated (host from a fixed set, digits, RFC 3986 path characters), so this parses.
        URL(string: "http://\(host.rawValue):\(boundPort)\(path)")!
    }

    /// Whether `path` starts with `/`, has only RFC 3986 `pchar`s and `/`, valid `%XX` escapes and no dot segments.
    package static func isValidPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.count <= 2048 else { return false }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, Hex.isDigit(bytes[index + 1]), Hex.isDigit(bytes[index + 2]) else { return false }
                index += 3
                continue
            }
            guard byte == UInt8(ascii: "/") || byte.isURIPathCharacter else { return false }
            index += 1
        }
        // Browsers remove dot segments, also percent-encoded ones, before sending the request.
        return !path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            let decoded = segment.lowercased().replacingOccurrences(of: "%2e", with: ".")
            return decoded == "." || decoded == ".."
        }
    }

    private static func invalid(_ reason: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .internalErrorInvalidRedirectURI, message: "Invalid loopback redirect URI: \(reason).")
    }
}

extension UInt8 {
    /// An RFC 3986 `pchar` other than a percent escape: unreserved, sub-delims, `:` or `@`.
    fileprivate var isURIPathCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~!$&'()*+,;=:@".utf8).contains(self)
        }
    }
}

extension LoopbackRedirectURI {
    /// Whether `text` is a redirect URI the loopback listener can serve (`nil` means the default
    /// `http://localhost`).
    package static func isLoopback(_ text: String?) -> Bool {
        (try? LoopbackRedirectURI(parsing: text)) != nil
    }
}
