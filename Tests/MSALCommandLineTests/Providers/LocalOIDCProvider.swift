import Foundation
import MSAL
import MSALSupport
import Testing

/// A real third-party OpenID provider that nobody here wrote, started for one test on a free port
/// of 127.0.0.1 by its launcher in `Tests/Interop/providers/<name>/server.py` and stopped after.
///
/// The launcher prints one JSON line when the provider is ready (its README has the contract) and
/// serves until SIGTERM or until its standard input closes (`--watch-stdin`), so a provider never
/// outlives a test process that crashed. Its test-only endpoints count the requests that reached
/// it (`/test/stats`) and change its behaviour (`/test/settings`).
///
/// The launchers run with the interpreter of `.build/oidc-venv`, which `scripts/setup.sh`
/// installs; a missing interpreter or provider is a test failure, never a skip.
final class LocalOIDCProvider: @unchecked Sendable {
    // @unchecked Sendable: `summary` ([String: Any]) is not Sendable; it is set in `init` and only
    // read after. The launcher process is used by `stop()` alone.

    /// Which provider.
    enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Django OAuth Toolkit (PyPI), with its OpenID Connect support on, SQLite.
        case djangoOAuthToolkit = "dot"
        /// glewlwyd (Debian), its OpenID Connect plugin, SQLite.
        case glewlwyd

        var description: String {
            switch self {
            case .djangoOAuthToolkit: "Django OAuth Toolkit"
            case .glewlwyd: "glewlwyd"
            }
        }

        var directory: URL { LocalOIDCProvider.providersDirectory.appendingPathComponent(rawValue) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let packageRoot = CommandRunner.packageRoot
    static let providersDirectory = packageRoot.appendingPathComponent("Tests/Interop/providers")
    /// The interpreter of the providers' virtual environment.
    static let python = packageRoot.appendingPathComponent(".build/oidc-venv/bin/python")

    let kind: Kind
    /// The whole JSON line the launcher printed.
    let summary: [String: Any]
    /// The issuer, exactly as discovery states it: the authority URL.
    let issuer: String
    /// The public client for the authorization code flow with PKCE.
    let clientID: String
    /// User name → password.
    let users: [String: String]
    let stateDirectory: URL
    private let process: ChildProcess

    private init(kind: Kind, summary: [String: Any], stateDirectory: URL, process: ChildProcess) throws {
        self.kind = kind
        self.summary = summary
        self.stateDirectory = stateDirectory
        self.process = process
        guard let issuer = summary["issuer"] as? String, let clientID = summary["client_id"] as? String,
            let users = summary["users"] as? [String: String]
        else { throw Failure("\(kind): the launcher's JSON line lacks issuer, client_id or users: \(summary)") }
        self.issuer = issuer
        self.clientID = clientID
        self.users = users
    }

    /// Starts `kind` with the launcher's extra `arguments`.
    static func start(_ kind: Kind, _ arguments: [String] = []) async throws -> LocalOIDCProvider {
        try await CommandRunner.offCooperativePool { try startBlocking(kind, arguments) }
    }

    private static func startBlocking(_ kind: Kind, _ arguments: [String]) throws -> LocalOIDCProvider {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Failure(
                "\(kind) cannot start: no interpreter at \(python.path). Run `bash scripts/setup.sh` (CI runs it first); "
                    + "the provider tests fail rather than skip without it.")
        }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("msal-\(kind.rawValue)-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Each launcher stops when its standard input closes, so it never outlives this process:
        // the input is kept open until `stop()`. (`ChildProcess`, not Foundation's `Process`, which
        // crashed a full test run with many descriptors open.)
        let watch = kind == .glewlwyd ? "--exit-on-stdin-eof" : "--watch-stdin"
        let errorLog = state.appendingPathComponent("launcher-stderr.log")
        let process = try ChildProcess.start(
            python.path, [kind.directory.appendingPathComponent("server.py").path, "--state-dir", state.path, watch] + arguments,
            keepInputOpen: true, standardError: .file(errorLog.path))
        // Kill it if it has not printed its line within a minute.
        let watchdog = DispatchWorkItem { process.kill() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        _ = process.readOutput { $0.contains(UInt8(ascii: "\n")) }
        watchdog.cancel()
        let buffer = process.standardOutputSoFar
        let line = buffer.prefix { $0 != UInt8(ascii: "\n") }
        guard let summary = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            process.kill()
            _ = process.finish()
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            throw Failure(
                "\(kind) did not start: it printed \(String(decoding: buffer, as: UTF8.self).prefix(500)); its stderr:\n\(log.suffix(4000))"
            )
        }
        return try LocalOIDCProvider(kind: kind, summary: summary, stateDirectory: state, process: process)
    }

    /// Runs `body` with `kind` started (with the launcher's extra `arguments`) and a private
    /// temporary directory, then stops the provider and removes the directory, whether `body`
    /// returned or threw.
    static func with(
        _ kind: Kind, _ arguments: [String] = [], _ body: (LocalOIDCProvider, URL) async throws -> Void
    ) async throws {
        let provider = try await start(kind, arguments)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-oidc-\(UUID().uuidString.lowercased())")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try await body(provider, directory)
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
    }

    /// Stops the provider (standard input closed and SIGTERM; SIGKILL after 10 s) and removes its state.
    func stop() async {
        _ = try? await CommandRunner.offCooperativePool {
            self.process.closeInput()
            self.process.kill(SIGTERM)
            var waited = 0
            while self.process.isRunning && waited < 200 {
                usleep(50_000)
                waited += 1
            }
            if self.process.isRunning { self.process.kill() }
            _ = self.process.finish()
            try? FileManager.default.removeItem(at: self.stateDirectory)
        }
    }

    /// The password of `user`.
    func password(_ user: String) throws -> String {
        guard let password = users[user] else { throw Failure("\(kind) has no user \(user); it has \(users.keys.sorted())") }
        return password
    }

    // MARK: Test endpoints

    /// The origin of the provider's test endpoints.
    var origin: String {
        (summary["origin"] as? String) ?? URL(string: issuer).map { "\($0.scheme ?? "http")://\($0.host ?? "127.0.0.1"):\($0.port ?? 80)" }
            ?? issuer
    }

    private func call(_ method: MSALHTTPRequest.Method, _ path: String, json: String? = nil) async throws -> [String: Any] {
        guard let url = URL(string: origin + path) else { throw Failure("bad test endpoint \(path)") }
        var request = MSALHTTPRequest(method: method, url: url, body: json.map { Array($0.utf8) })
        if json != nil { request.headers.add(name: "Content-Type", value: "application/json") }
        let response = try await MSALCurlTransport().send(request, limits: .default)
        guard response.statusCode == 200, let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw Failure(
                "\(kind) \(method) \(path): HTTP \(response.statusCode) \(String(decoding: response.body, as: UTF8.self).prefix(300))")
        }
        return object
    }

    /// `GET /test/stats`.
    func stats() async throws -> [String: Any] { try await call(.get, "/test/stats") }

    /// `POST /test/stats/reset`.
    func resetStats() async throws { _ = try await call(.post, "/test/stats/reset") }

    /// `POST /test/settings` with `json` (Django OAuth Toolkit's launcher).
    func configure(_ json: String) async throws { _ = try await call(.post, "/test/settings", json: json) }

    /// Every request that reached the provider since the last reset (test endpoints excluded).
    func requestCount() async throws -> Int {
        let stats = try await stats()
        guard let total = stats["total"] as? Int else { throw Failure("\(kind): /test/stats has no total: \(stats)") }
        return total
    }

    /// The token endpoint POSTs since the last reset.
    func tokenRequestCount() async throws -> Int {
        let stats = try await stats()
        // glewlwyd's counting proxy reports token_endpoint_posts; Django OAuth Toolkit's layer, endpoints.token.
        if let count = stats["token_endpoint_posts"] as? Int ?? (stats["endpoints"] as? [String: Int])?["token"] { return count }
        throw Failure("\(kind): /test/stats counts no token requests: \(stats)")
    }

    /// Registers `uri` as a redirect URI and a post-logout redirect URI of the public client (or of
    /// `clientID`), for a
    /// provider that compares redirect URIs exactly (glewlwyd).
    func registerRedirectURI(_ uri: String, clientID: String? = nil) async throws {
        let path = kind == .glewlwyd ? "/test/redirect_uris" : "/test/redirect-uris"
        let client = clientID ?? self.clientID
        _ = try await call(
            .post, path, json: #"{"client_id": "\#(client)", "redirect_uri": "\#(uri)", "post_logout_redirect_uri": "\#(uri)"}"#)
    }

    /// The provider's `end_session_endpoint`, from its discovery document.
    func endSessionEndpoint() async throws -> String {
        let url = URL(string: issuer + "/.well-known/openid-configuration")!
        let response = try await MSALCurlTransport().send(MSALHTTPRequest(method: .get, url: url), limits: .default)
        guard let document = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let endpoint = document["end_session_endpoint"] as? String
        else { throw Failure("\(kind): no end_session_endpoint in discovery") }
        return endpoint
    }
}
