import Foundation
import Testing

@testable import MSAL

@Suite("Loopback redirect URI parsing")
struct LoopbackRedirectURITests {
    @Test(
        "Accepted forms",
        arguments: [
            (nil, LoopbackRedirectURI.Host.localhost, nil, "/"),
            ("http://localhost", .localhost, nil, "/"),
            ("http://localhost/", .localhost, nil, "/"),
            ("HTTP://LocalHost:8400/cb", .localhost, 8400, "/cb"),
            ("http://127.0.0.1", .ipv4Loopback, nil, "/"),
            ("http://127.0.0.1:65535/a/b/", .ipv4Loopback, 65535, "/a/b/"),
            ("http://localhost:1/x%20y/~_.-!$&'()*+,;=:@", .localhost, 1, "/x%20y/~_.-!$&'()*+,;=:@"),
        ] as [(String?, LoopbackRedirectURI.Host, Int?, String)])
    func accepted(text: String?, host: LoopbackRedirectURI.Host, port: Int?, path: String) throws {
        let uri = try LoopbackRedirectURI(parsing: text)
        #expect(uri.host == host)
        #expect(uri.port == port)
        #expect(uri.path == path)
        #expect(uri.url(boundPort: 4321).absoluteString == "http://\(host.rawValue):4321\(path)")
    }

    @Test(
        "Rejected forms end in invalidRedirectURI",
        arguments: [
            "", "http://", "https://localhost/", "https://127.0.0.1:8400/", "ftp://localhost/", "localhost:8400",
            "http://example.com/", "http://localhost.example.com/", "http://127.0.0.2/", "http://0.0.0.0:8400/",
            "http://[::1]/", "http://[::1]:8400/", "http://localhost:0/", "http://localhost:65536/", "http://localhost:-1/",
            "http://localhost:/", "http://localhost:8400x/", "http://localhost:123456/", "http://localhost:+80/",
            "http://user@localhost/", "http://user:pw@localhost:8400/", "http://evil.example@localhost/",
            "http://localhost/?a=1", "http://localhost/cb?", "http://localhost/#frag", "http://localhost#x",
            "http://localhost/a b", "http://localhost/a\\b", "http://localhost\\@evil/", "http://localhost/%zz",
            "http://localhost/%4", "http://localhost/a/../b", "http://localhost/./a", "http://localhost/a/%2e%2E/b",
            "http://localhost/a/.%2e", "http://localhost/\u{e9}", "http://localhost/a\"b", "http://localhost/<x>",
        ])
    func rejected(text: String) {
        #expect {
            _ = try LoopbackRedirectURI(parsing: text)
        } throws: { error in
            let error = error as? MSALFailure
            return error?.code == .internal && error?.internalCode == .internalErrorInvalidRedirectURI
        }
    }

    @Test("Parts are validated when built directly")
    func parts() throws {
        #expect(throws: MSALFailure.self) { try LoopbackRedirectURI(port: 0) }
        #expect(throws: MSALFailure.self) { try LoopbackRedirectURI(port: 70000) }
        #expect(throws: MSALFailure.self) { try LoopbackRedirectURI(path: "cb") }
        #expect(throws: MSALFailure.self) { try LoopbackRedirectURI(path: "") }
        #expect(
            try LoopbackRedirectURI(host: .ipv4Loopback, port: 80, path: "/x").url(boundPort: 80).absoluteString
                == "http://127.0.0.1:80/x")
    }
}
