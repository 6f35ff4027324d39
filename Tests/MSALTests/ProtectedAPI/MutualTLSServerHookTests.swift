import Foundation
import MSALJOSE
import MSALJSON
import Testing

@testable import MSAL

#if canImport(MSALAsyncHTTPClient)
import MSALAsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The mutual-TLS hook of ``MSALAccessTokenValidator/validate(authorizationHeader:clientCertificate:correlationID:)``
/// in a real SwiftNIO server (the stack under Hummingbird and Vapor): a server with NIOSSL that asks
/// for client certificates takes each request's certificate exactly as the documentation says,
/// `channel.nioSSL_peerCertificate().get()?.toDERBytes()`, and hands it to the validator; libcurl
/// and AsyncHTTPClient clients present certificates as swift-msal's transports do. A server for
/// self-signed client certificates verifies them itself: BoringSSL refuses a self-signed
/// end-entity certificate even in the trust roots.
@Suite("Mutual TLS at the API: a SwiftNIO SSL server hands the connection's certificate to the validator")
struct MutualTLSServerHookTests {
    typealias Validation = AccessTokenValidatorTests

    /// A SwiftNIO HTTP/1.1 server with NIOSSL on 127.0.0.1, answering each request with what the
    /// validator said: `200` with the token's `x5t#S256`, or the challenge's status and header.
    final class Server: Sendable {
        let port: Int
        private let channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        private let serving: Task<Void, Never>

        private init(
            port: Int, channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>,
            serving: Task<Void, Never>
        ) {
            self.port = port
            self.channel = channel
            self.serving = serving
        }

        /// Which client certificates the server's TLS takes.
        enum Trust {
            /// Those NIOSSL's own verification takes with the test CA and the self-signed client
            /// certificate as trust roots (optional: a client without a certificate is let in, and
            /// the validator refuses a bound token from it).
            case certificateAuthority
            /// Any certificate, as for `self_signed_tls_client_auth`: the handshake proves the
            /// client holds its key, and the token's `cnf` names which certificate it must be.
            case anyPresented
        }

        static func start(pki: TLSFront.PKI, trust: Trust, validator: MSALAccessTokenValidator) async throws -> Server {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(pki.serverCertificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: pki.serverKey, format: .pem)))
            // Asks every client for a certificate, verifies one that is presented, accepts none. The
            // roots: the CA and the self-signed client certificate (as tls_front.py trusts them).
            tls.certificateVerification = .optionalVerification
            tls.trustRoots = .file(pki.clientTrust)
            let context = try NIOSSLContext(configuration: tls)
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "127.0.0.1", port: 0) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler =
                            switch trust {
                            case .certificateAuthority: NIOSSLServerHandler(context: context)
                            case .anyPresented:
                                NIOSSLServerHandler(context: context) { _, verified in verified.succeed(.certificateVerified) }
                            }
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                    }
                }
            guard let port = channel.channel.localAddress?.port else {
                try? await channel.channel.close()
                throw ChannelError.unknownLocalAddress
            }
            let serving = Task<Void, Never> {
                _ = try? await channel.executeThenClose { connections in
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await connection in connections {
                            group.addTask { try? await Self.serve(connection, validator: validator) }
                        }
                    }
                }
            }
            return Server(port: port, channel: channel, serving: serving)
        }

        /// Answers the requests of one connection.
        private static func serve(
            _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, validator: MSALAccessTokenValidator
        ) async throws {
            try await connection.executeThenClose { inbound, outbound in
                var authorization: String?
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        authorization = head.headers.first(name: "Authorization")
                    case .body:
                        break
                    case .end:
                        // The hook: the certificate NIOSSL verified in this connection's handshake.
                        let certificate = try await connection.channel.nioSSL_peerCertificate().get()?.toDERBytes()
                        var headers = HTTPHeaders()
                        let status: HTTPResponseStatus
                        let body: String
                        do {
                            let token = try await validator.validate(authorizationHeader: authorization, clientCertificate: certificate)
                            (status, body) = (.ok, token.certificateThumbprint ?? "unbound")
                        } catch {
                            let challenge = MSALBearerChallenge(for: error)
                            if let value = challenge.headerValue { headers.add(name: "WWW-Authenticate", value: value) }
                            (status, body) = (HTTPResponseStatus(statusCode: challenge.status), "")
                        }
                        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
                        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
                        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: body))))
                        try await outbound.write(.end(nil))
                    }
                }
            }
        }

        func stop() async {
            try? await channel.channel.close()
            serving.cancel()
            await serving.value
        }
    }

    /// Sends `GET /orders` with `Authorization: Bearer <token>`, presenting `certificate`.
    static func call(
        _ transport: any MSALHTTPTransport, port: Int, token: String, presenting certificate: MSALClientCertificate?
    ) async throws -> MSALHTTPResponse {
        var request = MSALHTTPRequest(method: .get, url: URL(string: "https://127.0.0.1:\(port)/orders")!)
        request.headers.add(name: "Authorization", value: "Bearer " + token)
        request.clientCertificate = certificate
        return try await transport.send(request, limits: MSALHTTPLimits(connectTimeout: 10, totalTimeout: 20))
    }

    /// The client transport `name` ("curl" or "asyncHTTPClient"), trusting the test CA.
    static func transport(_ name: String, trusting pki: TLSFront.PKI) -> any MSALHTTPTransport {
        guard name == "asyncHTTPClient" else { return MSALCurlTransport(trustedCertificatesFile: pki.caCertificate) }
        let transport = MSALAsyncHTTPClientTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        transport.clientCertificateTLSConfiguration.trustRoots = .file(pki.caCertificate)
        return transport
    }

    /// Runs `body` with a PKI, a validator and a server of `trust`, stopping the server after.
    static func with(
        _ trust: Server.Trust, _ body: (TLSFront.PKI, AccessTokenValidatorTests.Setup, Server) async throws -> Void
    ) async throws {
        let pki = try await TLSFront.PKI.make()
        let setup = try Validation.setup()
        let server = try await Server.start(pki: pki, trust: trust, validator: setup.validator)
        do {
            try await body(pki, setup, server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A token bound to `certificate` (`cnf` `x5t#S256`).
    static func token(_ setup: AccessTokenValidatorTests.Setup, boundTo certificate: MSALClientCertificate) throws -> String {
        try Validation.token(setup.clock) {
            $0["cnf"] = .object([JSONMember(name: "x5t#S256", value: .string(certificate.x5tS256))])
        }
    }

    /// Expects `response` to be the validator's 401 `invalid_token` answer.
    static func expectRefused(_ response: MSALHTTPResponse, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.statusCode == 401, comment, sourceLocation: sourceLocation)
        let challenge = response.headers["WWW-Authenticate"] ?? ""
        #expect(
            challenge.hasPrefix("Bearer") && challenge.contains("error=\"invalid_token\""), "\(challenge)", sourceLocation: sourceLocation)
    }

    @Test(
        "A server that verifies client certificates against its CA: a token bound to client-a's certificate is accepted over a connection with client-a's certificate (libcurl and AsyncHTTPClient) and refused with 401 invalid_token over one with client-b's or none; an unbound token is accepted; the self-signed certificate ends in the handshake",
        arguments: ["curl", "asyncHTTPClient"])
    func certificateAuthority(client: String) async throws {
        try await Self.with(.certificateAuthority) { pki, setup, server in
            let transport = Self.transport(client, trusting: pki)
            let a = try pki.clientCertificate("client-a")
            let bound = try Self.token(setup, boundTo: a)
            let accepted = try await Self.call(transport, port: server.port, token: bound, presenting: a)
            #expect(accepted.statusCode == 200)
            #expect(String(decoding: accepted.body, as: UTF8.self) == a.x5tS256)

            let b = try pki.clientCertificate("client-b")
            Self.expectRefused(try await Self.call(transport, port: server.port, token: bound, presenting: b), "client-b's certificate")
            // AsyncHTTPClient sends a request without a certificate with its client's own TLS
            // configuration (the system's trust store, which lacks the test CA).
            if client == "curl" {
                Self.expectRefused(try await Self.call(transport, port: server.port, token: bound, presenting: nil), "no certificate")
            }
            let unbound = try Validation.token(setup.clock)
            let plain = try await Self.call(transport, port: server.port, token: unbound, presenting: b)
            #expect(plain.statusCode == 200 && String(decoding: plain.body, as: UTF8.self) == "unbound")

            // BoringSSL (under NIOSSL) does not take a self-signed end-entity certificate as its
            // own trust anchor, though it is in the server's trust roots (OpenSSL does).
            await #expect {
                _ = try await Self.call(transport, port: server.port, token: unbound, presenting: try pki.clientCertificate("client-self"))
            } throws: { ($0 as? MSALFailure)?.internalCode == .tlsFailure }
        }
    }

    @Test(
        "A server that takes any certificate the client proves it holds (self_signed_tls_client_auth, RFC 8705 §2.2): a token bound to the self-signed certificate is accepted with it and refused with client-a's or none",
        arguments: ["curl", "asyncHTTPClient"])
    func anyPresentedCertificate(client: String) async throws {
        try await Self.with(.anyPresented) { pki, setup, server in
            let transport = Self.transport(client, trusting: pki)
            let selfSigned = try pki.clientCertificate("client-self")
            let bound = try Self.token(setup, boundTo: selfSigned)
            let accepted = try await Self.call(transport, port: server.port, token: bound, presenting: selfSigned)
            #expect(accepted.statusCode == 200)
            #expect(String(decoding: accepted.body, as: UTF8.self) == selfSigned.x5tS256)
            let a = try pki.clientCertificate("client-a")
            Self.expectRefused(try await Self.call(transport, port: server.port, token: bound, presenting: a), "client-a's certificate")
            if client == "curl" {
                Self.expectRefused(try await Self.call(transport, port: server.port, token: bound, presenting: nil), "no certificate")
            }
        }
    }
}
#endif
