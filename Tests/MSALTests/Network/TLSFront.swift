import Foundation
import MSAL
import MSALSupport

/// `Tests/Interop/tls/tls_front.py` running as a child process: an HTTPS server on 127.0.0.1 (Python's
/// `ssl`, that is OpenSSL) that asks for, or requires, a TLS client certificate, and either echoes
/// each request as JSON or forwards it to a plain-HTTP server with the certificate in a header.
///
/// ```swift
/// let pki = try await TLSFront.PKI.make()
/// let front = try await TLSFront.start(pki: pki, mode: .echo)
/// let transport = MSALCurlTransport(trustedCertificatesFile: pki.caCertificate)
/// var request = MSALHTTPRequest(method: .get, url: front.url("/anything"))
/// request.clientCertificate = try pki.clientCertificate("client-a")
/// let echo = try TLSFront.Echo(try await transport.send(request, limits: .default))
/// // echo.clientCertificateSHA256 == request.clientCertificate?.sha256Thumbprint
/// await front.stop()
/// ```
///
/// A missing `python3` or `openssl` throws ``Failure`` (naming `scripts/setup.sh`): the tests
/// that use this fail, never skip. The server exits when ``stop()`` is called, when this object is
/// released, or when the test process ends (its standard input, a pipe from here, closes).
final class TLSFront: Sendable {
    /// Why the PKI or the server could not be made.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// What the server does with a request.
    enum Mode: Sendable {
        /// Answers 200 with a JSON description of the request (``Echo``).
        case echo
        /// Forwards to `http://127.0.0.1:port` with `forwardHeader: <base64 of the client
        /// certificate's DER>` (the header removed from the request when the connection has no
        /// client certificate).
        case upstream(port: Int, forwardHeader: String)
    }

    /// The JSON the server answers in ``Mode/echo``.
    struct Echo: Decodable, Sendable, Equatable {
        /// The request's method.
        var method: String
        /// The request's path and query.
        var path: String
        /// Lowercase hex SHA-256 of the DER of the certificate the client presented, or `nil`.
        var clientCertificateSHA256: String?
        /// The serial number of the TCP connection that carried the request (from 1, every
        /// accepted connection counted, failed handshakes too).
        var connection: Int
        /// The serial number of the request (from 1, over all connections).
        var request: Int

        enum CodingKeys: String, CodingKey {
            case method, path, connection, request
            case clientCertificateSHA256 = "client_certificate_sha256"
        }

        /// Decodes the body of a 200 response; throws when the status or body is something else.
        init(_ response: MSALHTTPResponse) throws {
            guard response.statusCode == 200 else {
                throw Failure("the echo server answered HTTP \(response.statusCode): \(String(decoding: response.body, as: UTF8.self))")
            }
            self = try JSONDecoder().decode(Echo.self, from: Data(response.body))
        }
    }

    /// A throwaway PKI made by `Tests/Interop/tls/make_pki.sh` in a temporary directory, removed
    /// when this object is released. Keys are PKCS#8 PEM, RSA-2048; certificates valid for 2 days.
    final class PKI: Sendable {
        /// The directory holding the files.
        let directory: URL

        private init(directory: URL) {
            self.directory = directory
        }

        /// Runs `make_pki.sh` into a new temporary directory.
        static func make() async throws -> PKI {
            let bash = try TLSFront.executable("bash")
            _ = try TLSFront.executable("openssl")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-tls-front-\(UUID().uuidString)")
            let pki = PKI(directory: directory)
            let script = TLSFront.toolsDirectory.appendingPathComponent("make_pki.sh").path
            let outcome = try await TLSFront.blocking {
                try ChildProcess.run(bash, [script, directory.path], standardInput: [], timeout: 120)
            }
            guard outcome.exitCode == 0 else {
                throw Failure(
                    "make_pki.sh exited with status \(outcome.status)\(outcome.timedOut ? " (timed out)" : ""): "
                        + String(decoding: outcome.standardError, as: UTF8.self))
            }
            return pki
        }

        /// The path of `name` in ``directory``.
        func path(_ name: String) -> String {
            directory.appendingPathComponent(name).path
        }

        /// `ca.pem`: the test certificate authority, issuer of the server's and of client-a's and
        /// client-b's certificates (what a client trusts).
        var caCertificate: String { path("ca.pem") }
        /// `server.pem`: for 127.0.0.1, localhost, mtlsauth.microsoft.com and *.mtlsauth.microsoft.com.
        var serverCertificate: String { path("server.pem") }
        /// `server.key`.
        var serverKey: String { path("server.key") }
        /// `client-trust.pem`: the CA and the self-signed client certificate (what the server trusts).
        var clientTrust: String { path("client-trust.pem") }

        /// The client certificate `name` (`client-a`, `client-b` or `client-self`) with its key.
        func clientCertificate(_ name: String) throws -> MSALClientCertificate {
            try MSALClientCertificate(privateKeyFile: path("\(name).key"), certificateFile: path("\(name).pem"))
        }

        deinit {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The port the server listens on, on 127.0.0.1.
    let port: Int
    /// The PKI whose server certificate the server presents (kept while the server runs).
    let pki: PKI
    private let process: ChildProcess
    private let logFile: String
    private let stopping = Once()

    private init(port: Int, pki: PKI, process: ChildProcess, logFile: String) {
        self.port = port
        self.pki = pki
        self.process = process
        self.logFile = logFile
    }

    /// Starts `tls_front.py` with `pki`'s server certificate and waits (at most `startTimeout`
    /// seconds) for its port.
    ///
    /// - Parameters:
    ///   - asksForClientCertificate: whether the server asks for a client certificate (trusting
    ///     `clientCA`); without, connections never carry one.
    ///   - clientCA: the PEM file of the certificates trusted for client authentication; by default
    ///     `pki.clientTrust` (the CA and the self-signed client certificate).
    ///   - requireClientCertificate: refuse connections without a client certificate.
    static func start(
        pki: PKI, mode: Mode, asksForClientCertificate: Bool = true, clientCA: String? = nil, requireClientCertificate: Bool = false,
        startTimeout: Double = 20
    ) async throws -> TLSFront {
        let python = try executable("python3")
        var arguments = [
            toolsDirectory.appendingPathComponent("tls_front.py").path, "--cert", pki.serverCertificate, "--key", pki.serverKey,
        ]
        if asksForClientCertificate {
            arguments += ["--client-ca", clientCA ?? pki.clientTrust]
        }
        if requireClientCertificate { arguments.append("--require-client-cert") }
        switch mode {
        case .echo: arguments.append("--echo")
        case .upstream(let port, let header): arguments += ["--upstream", "http://127.0.0.1:\(port)", "--forward-header", header]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let logFile = pki.path("tls_front-\(UUID().uuidString).log")
        let childArguments = arguments
        let childEnvironment = environment
        let started = try await blocking { () throws -> (ChildProcess, Bool) in
            // Standard input stays open: the server exits when it closes (this process ended).
            let child = try ChildProcess.start(
                python, childArguments, environment: childEnvironment, keepInputOpen: true, standardError: .file(logFile))
            // The start timeout: kill the child so that the blocked read below ends.
            let waiting = Once()
            DispatchQueue.global().asyncAfter(deadline: .now() + startTimeout) { [weak child] in
                if waiting.claim() { child?.kill() }
            }
            let found = child.readOutput { $0.contains(UInt8(ascii: "\n")) }
            return (child, waiting.claim() && found)
        }
        let (child, found) = started
        let line = String(decoding: child.standardOutputSoFar, as: UTF8.self)
        struct PortLine: Decodable { var port: Int }
        guard found, let port = try? JSONDecoder().decode(PortLine.self, from: Data(line.utf8)).port else {
            child.kill()
            _ = await blocking { child.finish() }
            let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            throw Failure(
                "tls_front.py did not print its port within \(startTimeout) s (stdout: \(line.debugDescription)); stderr:\n\(log)")
        }
        return TLSFront(port: port, pki: pki, process: child, logFile: logFile)
    }

    /// `https://host:port/path` (`path` with its leading slash, and any query).
    func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!
    }

    /// What the server wrote to standard error so far: one line per failed handshake or
    /// unreachable upstream, such as `connection 3: TLS handshake failed: [SSL:
    /// PEER_DID_NOT_RETURN_A_CERTIFICATE] …`.
    var log: String {
        (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
    }

    /// Whether ``log`` contains `text` within `seconds`: the server writes a line after the
    /// client may already have seen the failure it reports.
    func logContains(_ text: String, within seconds: Double = 10) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !log.contains(text) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Stops the server (SIGTERM, SIGKILL after 5 s) and waits for it, on a thread of its own.
    /// Calls after the first do nothing. Without it, releasing this object kills the server
    /// (SIGKILL) and reaps it.
    func stop() async {
        guard stopping.claim() else { return }
        let process = process
        await Self.blocking {
            process.kill(SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + 5) { [weak process] in process?.kill(SIGKILL) }
            // Once only: a second wait could wait for another child given the same pid.
            _ = process.finish()
        }
    }

    /// A flag claimed once: by the port line or the start timeout, whichever comes first; by the
    /// first ``stop()``.
    private final class Once: Sendable {
        private let available = Mutex(true)

        /// True for the first caller only.
        func claim() -> Bool {
            available.withLock { available in
                defer { available = false }
                return available
            }
        }
    }

    /// `Tests/Interop/tls/`, found from this file's path (`Tests/MSALTests/Network/TLSFront.swift`).
    static let toolsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Network
        .deletingLastPathComponent()  // MSALTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Interop/tls")

    /// The path of `name` found on `PATH`; throws a ``Failure`` saying how to install it.
    static func executable(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure(
            "\(name) is not installed (not found on PATH=\(path)); `bash scripts/setup.sh` installs it. "
                + "The TLS client-certificate tests fail rather than skip without it.")
    }

    /// Runs `body`, which blocks on a child process, on a Dispatch thread rather than the
    /// cooperative pool.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        // The continuation's type named, so that ThreadSanitizer builds take MSALSupport's.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// ``blocking(_:)`` for a body that cannot throw.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: body()) }
        }
    }
}
