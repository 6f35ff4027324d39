import Foundation
import MSAL
import MSALURLSession
import Testing

#if canImport(MSALAsyncHTTPClient)
import AsyncHTTPClient
import MSALAsyncHTTPClient
import NIOPosix
import NIOSSL
#endif

/// ``MSALHTTPRequest/clientCertificate`` (mutual TLS) through each transport, against
/// `tls_front.py --echo` (Python's `ssl`, that is OpenSSL), which echoes the SHA-256 of the
/// certificate each connection presented and the connection's serial number. The server trusts the
/// test CA and the self-signed client certificate (`client-trust.pem` of `make_pki.sh`); the
/// clients trust only the test CA.
@Suite("Client certificates (mutual TLS) in the transports, against an OpenSSL server that checks them")
struct ClientCertificateTransportTests {
    static let limits = MSALHTTPLimits(connectTimeout: 10, totalTimeout: 20)

    /// libcurl's `CURLE_RECV_ERROR`: failure receiving network data.
    static let curlReceiveError = 56

    /// Makes a PKI, starts the echo server on it, runs `body`, stops the server.
    static func withEchoServer(
        requireClientCertificate: Bool = false, _ body: (TLSFront.PKI, TLSFront) async throws -> Void
    ) async throws {
        let pki = try await TLSFront.PKI.make()
        let front = try await TLSFront.start(pki: pki, mode: .echo, requireClientCertificate: requireClientCertificate)
        do {
            try await body(pki, front)
        } catch {
            await front.stop()
            throw error
        }
        await front.stop()
    }

    /// Sends `GET path`, presenting `certificate`, and decodes the echo (whose path must be `path`).
    static func echo(
        _ transport: any MSALHTTPTransport, _ front: TLSFront, _ path: String, presenting certificate: MSALClientCertificate?
    ) async throws -> TLSFront.Echo {
        var request = MSALHTTPRequest(method: .get, url: front.url(path))
        request.clientCertificate = certificate
        let echo = try TLSFront.Echo(try await transport.send(request, limits: limits))
        #expect(echo.method == "GET")
        #expect(echo.path == path)
        return echo
    }

    /// The failure of sending `GET path` presenting `certificate`; records an issue when it succeeds.
    static func failure(
        _ transport: any MSALHTTPTransport, _ url: URL, presenting certificate: MSALClientCertificate?
    ) async throws -> MSALFailure? {
        var request = MSALHTTPRequest(method: .get, url: url)
        request.clientCertificate = certificate
        do {
            let response = try await transport.send(request, limits: limits)
            Issue.record("expected a failure, got HTTP \(response.statusCode): \(String(decoding: response.body, as: UTF8.self))")
            return nil
        } catch let error as MSALFailure {
            return error
        }
    }

    /// Requests with and without certificates on one transport: each gets a connection with its own
    /// certificate, never one made with another (or with none); `presenting(nil)` must answer with no
    /// certificate. Returns the connections of the first cert-less request, of `a` and of `b`.
    static func checkIsolation(
        _ transport: any MSALHTTPTransport, _ front: TLSFront, _ pki: TLSFront.PKI
    ) async throws -> (none: Int, a: Int, b: Int) {
        let a = try pki.clientCertificate("client-a")
        let b = try pki.clientCertificate("client-b")
        #expect(a.sha256Thumbprint != b.sha256Thumbprint)

        let none = try await echo(transport, front, "/1-none", presenting: nil)
        #expect(none.clientCertificateSHA256 == nil)

        let withA = try await echo(transport, front, "/2-a", presenting: a)
        #expect(withA.clientCertificateSHA256 == a.sha256Thumbprint)
        #expect(withA.connection != none.connection)

        let noneAgain = try await echo(transport, front, "/3-none", presenting: nil)
        #expect(noneAgain.clientCertificateSHA256 == nil, "a request without a certificate went over client-a's connection")
        #expect(noneAgain.connection != withA.connection)
        #expect(noneAgain.connection == none.connection, "the connection without a certificate is reused")

        let withB = try await echo(transport, front, "/4-b", presenting: b)
        #expect(withB.clientCertificateSHA256 == b.sha256Thumbprint, "client-b's request went over another certificate's connection")
        #expect(![none.connection, withA.connection].contains(withB.connection))

        let aAgain = try await echo(transport, front, "/5-a", presenting: a)
        #expect(aAgain.clientCertificateSHA256 == a.sha256Thumbprint)
        #expect(aAgain.connection == withA.connection, "client-a's connection is reused for client-a")
        return (none.connection, withA.connection, withB.connection)
    }

    @Test(
        "MSALCurlTransport presents the request's certificate, issued by the CA or self-signed",
        arguments: ["client-a", "client-self"])
    func curlPresentsCertificate(name: String) async throws {
        try await Self.withEchoServer { pki, front in
            let certificate = try pki.clientCertificate(name)
            let transport = MSALCurlTransport(trustedCertificatesFile: pki.caCertificate)
            let echo = try await Self.echo(transport, front, "/token?name=\(name)", presenting: certificate)
            #expect(echo.clientCertificateSHA256 == certificate.sha256Thumbprint)
            // The server's SHA-256 of the DER, as base64url: the certificate's x5t#S256.
            let digest = try #require(echo.clientCertificateSHA256.flatMap { Self.bytes(hex: $0) })
            #expect(Self.base64URL(digest) == certificate.x5tS256)
        }
    }

    @Test("MSALCurlTransport never reuses a connection across client certificates, or between one and none")
    func curlIsolatesConnections() async throws {
        try await Self.withEchoServer { pki, front in
            let transport = MSALCurlTransport(trustedCertificatesFile: pki.caCertificate)
            let connections = try await Self.checkIsolation(transport, front, pki)
            // The same certificate read again (another object, same key and chain) shares a's connection.
            let reread = try pki.clientCertificate("client-a")
            let echo = try await Self.echo(transport, front, "/6-a-reread", presenting: reread)
            #expect(echo.clientCertificateSHA256 == reread.sha256Thumbprint)
            #expect(echo.connection == connections.a)
        }
    }

    @Test("MSALCurlTransport without a certificate, to a server that requires one: tlsFailure (a TLS 1.3 alert on the first read)")
    func curlRequiredCertificateMissing() async throws {
        try await Self.withEchoServer(requireClientCertificate: true) { pki, front in
            let transport = MSALCurlTransport(trustedCertificatesFile: pki.caCertificate)
            let error = try #require(try await Self.failure(transport, front.url("/required"), presenting: nil))
            // TLS 1.3: the client's handshake ends before the server checks the client's
            // certificate, so libcurl learns of the refusal (the `certificate_required` alert) on
            // its first read, as CURLE_RECV_ERROR, not as a handshake error; the transport reports
            // the alert as the TLS failure it is.
            #expect(error.internalCode == .tlsFailure, "\(error)")
            let underlying = try #require(error.underlyingError as? MSALSendableErrorDescription, "\(error)")
            #expect(underlying.domain == "libcurl")
            #expect(underlying.code == Self.curlReceiveError, "\(underlying)")
            #expect(error.message.contains("certificate required"), "\(error.message)")
            #expect(await front.logContains("PEER_DID_NOT_RETURN_A_CERTIFICATE"), "\(front.log)")

            // With one, the same server answers; the refused request never reached it.
            let a = try pki.clientCertificate("client-a")
            let echo = try await Self.echo(transport, front, "/required", presenting: a)
            #expect(echo.clientCertificateSHA256 == a.sha256Thumbprint)
            #expect(echo.request == 1)
        }
    }

    @Test(
        "MSALCurlTransport(trustedCertificatesFile:) refuses a server certificate from another CA: tlsFailure, nothing sent",
        arguments: [false, true])
    func curlUntrustedServer(presentsCertificate: Bool) async throws {
        let trusted = try await TLSFront.PKI.make()
        let other = try await TLSFront.PKI.make()
        let front = try await TLSFront.start(pki: other, mode: .echo)
        let transport = MSALCurlTransport(trustedCertificatesFile: trusted.caCertificate)
        let certificate = presentsCertificate ? try trusted.clientCertificate("client-a") : nil
        let error = try #require(try await Self.failure(transport, front.url("/untrusted"), presenting: certificate))
        #expect(error.internalCode == .tlsFailure, "\(error)")
        #expect(error.message.contains("127.0.0.1"))

        // The server answers a client that trusts its CA, and had answered nothing before.
        let echo = try await Self.echo(MSALCurlTransport(trustedCertificatesFile: other.caCertificate), front, "/after", presenting: nil)
        #expect(echo.request == 1)
        await front.stop()
    }

    @Test("MSALURLSessionTransport refuses a request with a client certificate: tlsFailure, and nothing reaches the server")
    func urlSessionRefuses() async throws {
        try await Self.withEchoServer { pki, front in
            let certificate = try pki.clientCertificate("client-a")
            let error = try #require(try await Self.failure(MSALURLSessionTransport(), front.url("/refused"), presenting: certificate))
            #expect(error.internalCode == .tlsFailure, "\(error)")
            #expect(error.message.contains("client certificate"), "\(error.message)")

            // The first connection and the first request the server sees are these.
            let echo = try await Self.echo(MSALCurlTransport(trustedCertificatesFile: pki.caCertificate), front, "/after", presenting: nil)
            #expect(echo.connection == 1)
            #expect(echo.request == 1)
        }
    }

    #if canImport(MSALAsyncHTTPClient)
    /// A transport with a client of its own, presenting certificates with the test CA as trust roots.
    static func asyncHTTPClientTransport(trusting file: String) -> MSALAsyncHTTPClientTransport {
        let transport = MSALAsyncHTTPClientTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        transport.clientCertificateTLSConfiguration.trustRoots = .file(file)
        return transport
    }

    @Test(
        "MSALAsyncHTTPClientTransport presents the request's certificate, issued by the CA or self-signed",
        arguments: ["client-a", "client-self"])
    func asyncHTTPClientPresentsCertificate(name: String) async throws {
        try await Self.withEchoServer { pki, front in
            let certificate = try pki.clientCertificate(name)
            let transport = Self.asyncHTTPClientTransport(trusting: pki.caCertificate)
            let echo = try await Self.echo(transport, front, "/token?name=\(name)", presenting: certificate)
            #expect(echo.clientCertificateSHA256 == certificate.sha256Thumbprint)
        }
    }

    @Test(
        "MSALAsyncHTTPClientTransport(eventLoopGroup:) keeps connections apart by certificate; a request without one uses the client's own TLS setup"
    )
    func asyncHTTPClientIsolatesConnections() async throws {
        try await Self.withEchoServer { pki, front in
            let transport = Self.asyncHTTPClientTransport(trusting: pki.caCertificate)
            let a = try pki.clientCertificate("client-a")
            let b = try pki.clientCertificate("client-b")
            let withA = try await Self.echo(transport, front, "/1-a", presenting: a)
            #expect(withA.clientCertificateSHA256 == a.sha256Thumbprint)

            // Without a certificate, the client's configuration (the system trust store, which
            // lacks the test CA) applies: had the request gone over client-a's connection, it
            // would have been answered.
            let error = try #require(try await Self.failure(transport, front.url("/2-none"), presenting: nil))
            #expect(error.internalCode == .tlsFailure, "\(error)")

            let withB = try await Self.echo(transport, front, "/3-b", presenting: b)
            #expect(withB.clientCertificateSHA256 == b.sha256Thumbprint)
            #expect(withB.connection != withA.connection)

            let aAgain = try await Self.echo(transport, front, "/4-a", presenting: a)
            #expect(aAgain.clientCertificateSHA256 == a.sha256Thumbprint)
            #expect(aAgain.connection == withA.connection, "client-a's connection is reused for client-a")
        }
    }

    @Test("MSALAsyncHTTPClientTransport over a client that trusts the CA: never a connection across certificates, or between one and none")
    func asyncHTTPClientOwnClientIsolatesConnections() async throws {
        try await Self.withEchoServer { pki, front in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(pki.caCertificate)
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
            configuration.httpVersion = .http1Only
            let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            do {
                let transport = try MSALAsyncHTTPClientTransport(client: client)
                transport.clientCertificateTLSConfiguration.trustRoots = .file(pki.caCertificate)
                _ = try await Self.checkIsolation(transport, front, pki)
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
    #endif

    /// The bytes of lowercase hex text, or `nil`.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// Base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
