#if canImport(MSALAsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import MSALAsyncHTTPClient
import NIOPosix
import Testing

@testable import MSAL

/// What only `MSALAsyncHTTPClientTransport` has: a service's own `HTTPClient` underneath. The
/// transport suites (`HTTPTransportTests`, `MalformedResponseTests`, `TLSVerificationTests`,
/// `TransportResendTests`) run it with a client of its own as `TransportKind.asyncHTTPClient`.
@Suite("MSALAsyncHTTPClientTransport over a service's own HTTPClient", .serialized)
struct AsyncHTTPClientTransportTests {
    /// Runs `body` with a client of `configuration` on NIO's shared event loops, then shuts it down.
    static func withClient(
        _ configuration: HTTPClient.Configuration, _ body: (HTTPClient) async throws -> Void
    ) async throws {
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        do {
            try await body(client)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test(
        "A client that follows redirects is refused (the default, a custom follow, HTTPClient.shared); one that disallows them is used",
        arguments: ["default configuration", "follow(max: 3)", "disallow"])
    func redirectPolicyChecked(name: String) async throws {
        let configuration: HTTPClient.Configuration =
            switch name {
            case "follow(max: 3)": HTTPClient.Configuration(redirectConfiguration: .follow(max: 3, allowCycles: false))
            case "disallow": HTTPClient.Configuration(redirectConfiguration: .disallow)
            default: HTTPClient.Configuration()
            }
        let accepted = name == "disallow"
        try await Self.withClient(configuration) { client in
            do {
                let transport = try MSALAsyncHTTPClientTransport(client: client)
                #expect(accepted, "\(name): accepted")
                #expect(transport.client === client)
            } catch let error as MSALFailure {
                #expect(!accepted, "\(name): refused")
                #expect(error.code == .internal)
                #expect(error.internalCode == .internalErrorInvalidParameter)
                #expect(error.message.contains("redirectConfiguration: .disallow"))
            }
        }
        #expect(throws: MSALFailure.self) { try MSALAsyncHTTPClientTransport(client: .shared) }
    }

    @Test("Through the service's client: the request arrives once, a 302 comes back as it is, the target is never asked")
    func sharedClient() async throws {
        try await HTTPTransportTests.withServer([
            "/token": { _, _ in .json(#"{"ok":true}"#) },
            "/redirect": { _, _ in .redirect(to: "/target") },
            "/target": { _, _ in .text("followed") },
        ]) { server in
            try await Self.withClient(HTTPClient.Configuration(redirectConfiguration: .disallow)) { client in
                let transport = try MSALAsyncHTTPClientTransport(client: client)
                let response = try await transport.send(
                    .form(url: server.url("/token"), parameters: [("grant_type", "client_credentials")]), limits: HTTPTransportTests.limits)
                #expect(response.statusCode == 200)
                #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":true}"#)
                let seen = try #require(server.requests(to: "/token").first)
                #expect(String(decoding: seen.body, as: UTF8.self) == "grant_type=client_credentials")
                #expect(seen.headers["Content-Type"] == "application/x-www-form-urlencoded")

                let redirect = try await transport.send(
                    MSALHTTPRequest(method: .get, url: server.url("/redirect")), limits: HTTPTransportTests.limits)
                #expect(redirect.statusCode == 302)
                #expect(server.requests(to: "/target").isEmpty)
                #expect(server.requests(to: "/token").count == 1)
            }
        }
    }

    @Test("Transports of their own are created and released many times, each shutting its client down")
    func ownClientLifecycle() async throws {
        try await HTTPTransportTests.withServer(["/quick": { _, _ in .text("quick") }]) { server in
            for _ in 0..<20 {
                let transport = MSALAsyncHTTPClientTransport()
                let response = try await transport.send(
                    MSALHTTPRequest(method: .get, url: server.url("/quick")), limits: HTTPTransportTests.limits)
                #expect(String(decoding: response.body, as: UTF8.self) == "quick")
            }
        }
    }
}
#endif
