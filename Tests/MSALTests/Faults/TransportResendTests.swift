import Foundation
import Testing

@testable import MSAL

/// A keep-alive connection the server closes just as the client reuses it (the classic stale
/// connection): libcurl resends the request on a new connection by itself. No transport may let it
/// resend a body — a code redemption goes out once — or stall. `MSALCurlTransport` sends such a request
/// on a new connection to begin with; `MSALURLSessionTransport` refuses libcurl's resend.
@Suite("Fault injection: a reused connection closed before any answer")
struct TransportResendTests {
    @Test(
        "A POST on a reused connection closed before any answer: networkFailure at once (not a stall until the idle timeout); the body went out once",
        arguments: TransportKind.allCases)
    func postNotResent(kind: TransportKind) async throws {
        let server = try await LocalHTTPServer.start([
            "/warm": { _, _ in .text("warm") },
            "/token": { _, _ in ServerReply(steps: [.close]) },
        ])
        defer { Task { try? await server.shutdown() } }
        let transport = kind.make()
        // 60 s limits: the old behaviour (the resend waiting for a body that never came) would end in
        // networkTimeout after a minute; the fix fails at once with networkFailure.
        let limits = MSALHTTPLimits(connectTimeout: 60, totalTimeout: 60)
        _ = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/warm")), limits: limits)
        let redemption = MSALHTTPRequest.form(
            url: server.url("/token"), parameters: [("grant_type", "authorization_code"), ("code", "single-use")])
        do {
            let response = try await transport.send(redemption, limits: limits)
            Issue.record("expected networkFailure, got HTTP \(response.statusCode)")
        } catch let error as MSALFailure {
            #expect(error.internalCode == .networkFailure, "\(error)")
            #expect(error.message.contains("not sent again"), "\(error.message)")
        }
        #expect(server.requests(to: "/token").count == 1, "the server received the redemption once")
        #expect(server.requests(to: "/token").allSatisfy { String(decoding: $0.body, as: UTF8.self).contains("code=single-use") })
    }

    @Test(
        "A GET on a reused connection closed before any answer is resent once by libcurl and answered; AsyncHTTPClient fails it at once",
        arguments: TransportKind.allCases)
    func getResent(kind: TransportKind) async throws {
        let server = try await LocalHTTPServer.start([
            "/warm": { _, _ in .text("warm") },
            "/keys": { _, index in index == 0 ? ServerReply(steps: [.close]) : .json(#"{"keys":[]}"#) },
        ])
        defer { Task { try? await server.shutdown() } }
        let transport = kind.make()
        let limits = MSALHTTPLimits(connectTimeout: 60, totalTimeout: 60)
        _ = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/warm")), limits: limits)
        guard kind.resendsBodilessRequestsOnStaleConnections else {
            // No resend below the SDK: a typed failure at once (HTTPPipeline retries an idempotent
            // request once after a network failure).
            do {
                let response = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/keys")), limits: limits)
                Issue.record("expected networkFailure, got HTTP \(response.statusCode)")
            } catch let error as MSALFailure {
                #expect(error.internalCode == .networkFailure, "\(error)")
                #expect(error.message.contains("not sent again"), "\(error.message)")
            }
            #expect(server.requests(to: "/keys").count == 1)
            return
        }
        let response = try await transport.send(MSALHTTPRequest(method: .get, url: server.url("/keys")), limits: limits)
        #expect(response.statusCode == 200)
        #expect(server.requests(to: "/keys").count == 2)
    }
}
