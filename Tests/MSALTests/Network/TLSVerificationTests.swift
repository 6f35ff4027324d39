import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// Each transport against a real TLS server (Python's `ssl` over OpenSSL) whose certificate is
/// self-signed: the handshake must fail as `tlsFailure` before any request reaches the server.
/// This proves certificate verification is on; the system trust store never holds this certificate.
@Suite("HTTP transports against a TLS server with an untrusted certificate", .serialized)
struct TLSVerificationTests {
    /// A Python HTTPS server on 127.0.0.1 with a fresh self-signed certificate for 127.0.0.1.
    final class UntrustedTLSServer: Sendable {
        let port: Int
        let directory: URL
        private let process: ChildProcess
        private let requestLog: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let key = directory.appendingPathComponent("key.pem").path
            let certificate = directory.appendingPathComponent("cert.pem").path
            requestLog = directory.appendingPathComponent("requests.log")
            let openssl = try ChildProcess.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1",
                    "-keyout", key, "-out", certificate,
                ], timeout: 60)
            guard openssl.exitCode == 0 else { throw Failure("openssl req exited with \(openssl.status)") }

            let script = """
                import http.server, ssl, sys
                log = open(sys.argv[3], "a")
                class Handler(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        log.write(self.path + "\\n"); log.flush()
                        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
                        self.wfile.write(b"ok")
                    def log_message(self, *args): pass
                server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(sys.argv[1], sys.argv[2])
                server.socket = context.wrap_socket(server.socket, server_side=True)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """
            let python = try ChildProcess.start("/usr/bin/python3", ["-c", script, certificate, key, requestLog.path])
            process = python
            let started = python.readOutput { $0.contains(UInt8(ascii: "\n")) }
            let line = String(decoding: python.standardOutputSoFar, as: UTF8.self)
            guard started, let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                python.kill()
                _ = python.finish()
                throw Failure("the TLS server did not start")
            }
            self.port = port
        }

        /// The paths the server answered.
        var requests: [String] {
            ((try? String(contentsOf: requestLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        deinit {
            process.kill()
            _ = process.finish()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test("A self-signed certificate: tlsFailure, and no request reaches the server", arguments: TransportKind.allCases)
    func untrusted(kind: TransportKind) async throws {
        // Started on a Dispatch thread: it waits for openssl(1) and for the server's first line.
        let server = try await StressWorker.offCooperativePool { Result { try UntrustedTLSServer() } }.get()
        let url = URL(string: "https://127.0.0.1:\(server.port)/openid-configuration")!
        let limits = MSALHTTPLimits(connectTimeout: 5, totalTimeout: 10)
        do {
            let response = try await kind.make().send(MSALHTTPRequest(method: .get, url: url), limits: limits)
            Issue.record("expected tlsFailure, got HTTP \(response.statusCode)")
        } catch let error as MSALFailure {
            #expect(error.internalCode == .tlsFailure, "\(error)")
            #expect(error.message.contains("127.0.0.1"))
        }
        #expect(server.requests.isEmpty)
    }
}
