import Foundation
import Glibc
import MSALSupport
import PostgresNIO

/// A real PostgreSQL server for one test: a cluster made by `initdb` in a temporary directory and
/// run by `pg_ctl` on a free port of 127.0.0.1 (and a socket in that directory only), with trust
/// authentication for the superuser `msal`. Run as the `postgres` user when the tests run as root
/// (PostgreSQL refuses to run as root). Debian's `postgresql` package provides the programs
/// (`scripts/setup.sh` installs it).
final class PostgresServer: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let directory: String
    let port: Int
    let binaries: String

    /// The newest PostgreSQL's programs, `/usr/lib/postgresql/<version>/bin`.
    static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        guard let newest = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/pg_ctl") else {
            throw Failure(description: "PostgreSQL is not installed (no \(root)/<version>/bin/pg_ctl); bash scripts/setup.sh installs it")
        }
        return "\(root)/\(newest)/bin"
    }

    private init(directory: String, port: Int, binaries: String) {
        self.directory = directory
        self.port = port
        self.binaries = binaries
    }

    /// A new cluster, started.
    static func start() async throws -> PostgresServer {
        let binaries = try binaries()
        var template = Array("/tmp/msal-postgres-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed: errno \(errno)") }
        let directory = String(cString: made)
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else {
                throw Failure(description: "running as root, and there is no postgres user to run PostgreSQL as")
            }
            guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw Failure(description: "chown \(directory) failed: errno \(errno)")
            }
        }
        let server = PostgresServer(directory: directory, port: try freePort(), binaries: binaries)
        try await server.run(
            "initdb", ["-D", server.data, "-U", "msal", "--auth=trust", "--encoding=UTF8", "--no-instructions", "--no-sync"])
        try await server.startServer()
        return server
    }

    var data: String { directory + "/data" }

    /// Starts the cluster (again), waiting until it accepts connections.
    func startServer() async throws {
        // fsync off: the tests stop the server cleanly or not at all; nothing must survive a crash.
        let options = "-p \(port) -h 127.0.0.1 -k \(directory) -F -c max_connections=100"
        try await run("pg_ctl", ["-D", data, "-l", directory + "/server.log", "-w", "-t", "60", "-o", options, "start"])
    }

    /// Stops the cluster: `fast` closes every connection; `immediate` is a crash.
    func stopServer(_ mode: String = "fast") async throws {
        try await run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"])
    }

    /// Stops the cluster if it runs and removes its directory.
    func remove() async {
        try? await stopServer("immediate")
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A client of the cluster (the caller runs it).
    func client(maximumConnections: Int = 8) -> PostgresClient {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: port, username: "msal", password: nil, database: "postgres", tls: .disable)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(2)
        return PostgresClient(configuration: configuration)
    }

    /// `body` with a running client of the cluster.
    func withClient<T: Sendable>(maximumConnections: Int = 8, _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = client(maximumConnections: maximumConnections)
        let running = Task { await client.run() }
        defer { running.cancel() }
        return try await body(client)
    }

    /// The server's log, for a failure's message.
    var log: String { (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "" }

    /// Runs one of PostgreSQL's programs, as the postgres user when this process is root.
    private func run(_ program: String, _ arguments: [String]) async throws {
        var executable = binaries + "/" + program
        var all = arguments
        if getuid() == 0 {
            all = ["-u", "postgres", "--", executable] + arguments
            executable = "/usr/sbin/runuser"
        }
        let command = executable
        let commandArguments = all
        let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ChildProcess.Outcome, any Error>) in
            // ChildProcess blocks its thread until the program exits: a Dispatch thread, not the pool.
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try ChildProcess.run(command, commandArguments, environment: ["LC_ALL": "C"], timeout: 120) })
            }
        }
        guard outcome.status == 0 else {
            throw Failure(
                description:
                    "\(program) \(arguments.joined(separator: " ")) failed (\(outcome.status)): \(String(decoding: outcome.standardError + outcome.standardOutput, as: UTF8.self)) \(log)"
            )
        }
    }

    /// A free port on 127.0.0.1 below Linux's ephemeral range (as the provider tests choose theirs).
    static func freePort() throws -> Int {
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<32_000)
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
            }
            if bound == 0 { return port }
        }
        throw Failure(description: "no free port between 20000 and 32000 after 100 tries")
    }
}
