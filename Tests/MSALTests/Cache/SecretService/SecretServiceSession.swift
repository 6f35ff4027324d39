import Foundation
import Glibc
import MSALSupport

/// A private desktop session for one test: a D-Bus session bus of its own (no service activation, so
/// nothing starts behind the test's back) and, when asked, a real `gnome-keyring-daemon` on it whose
/// login keyring is created and unlocked with a test password, all under a fresh `$HOME`.
///
/// Processes the test starts get ``environment``; the test process itself never talks to this bus
/// (GLib keeps one session-bus connection per process, so each session's clients are processes).
/// Missing programs are a failure, never a skip: `scripts/setup.sh` installs them.
final class SecretServiceSession: @unchecked Sendable {
    // @unchecked: the daemons are started, killed and stopped only by the test that owns the
    // session, one step at a time.
    static let password = "swift-msal test keyring password"

    /// The session's root directory (removed by ``stop()``).
    let root: URL
    /// `$HOME`.
    let home: URL
    /// The working directory for the session's processes.
    let workingDirectory: URL
    /// The bus address.
    private(set) var busAddress = ""
    private var bus: ChildProcess?
    private var keyring: ChildProcess?

    /// Why the session could not start; the description says what to do.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts a bus, and the keyring daemon unless `keyring` is false (no Secret Service on the bus).
    init(keyring: Bool = true) async throws {
        for program in ["/usr/bin/dbus-daemon", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool"] {
            guard FileManager.default.isExecutableFile(atPath: program) else {
                throw Failure(
                    description: "\(program) is missing: run `bash scripts/setup.sh` (it installs dbus, gnome-keyring and libsecret-tools)")
            }
        }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("msal-keyring-\(UUID().uuidString.lowercased())")
        home = root.appendingPathComponent("home")
        workingDirectory = root.appendingPathComponent("work")
        for directory in [home, workingDirectory, root.appendingPathComponent("runtime")] {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let socket = root.appendingPathComponent("bus").path
        let config = root.appendingPathComponent("bus.conf")
        try Data(
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.utf8
        ).write(to: config)
        // `ChildProcess`: the daemons hold none of the test process's descriptors (one that held
        // those Foundation's `Process` uses to notice other children's exits kept other tests'
        // processes "running" and hung a full run), and the test reaps them.
        let bus = try ChildProcess.start(
            "/usr/bin/dbus-daemon", ["--config-file=\(config.path)", "--nofork", "--print-address=1"],
            environment: ["PATH": "/usr/bin:/bin"], standardError: .discard)
        self.bus = bus
        busAddress = await StressWorker.offCooperativePool {
            _ = bus.readOutput { $0.contains(UInt8(ascii: "\n")) }
            return String(decoding: bus.standardOutputSoFar.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard busAddress.hasPrefix("unix:") else {
            stop()
            throw Failure(description: "dbus-daemon printed no address")
        }
        if keyring {
            try await startKeyring()
        }
    }

    /// The environment for the session's processes: the test process's, with this session's home,
    /// XDG directories and bus, and no display (nothing may prompt).
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent(".cache").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent(".local/share").path
        environment["XDG_RUNTIME_DIR"] = root.appendingPathComponent("runtime").path
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        return environment
    }

    /// Starts `gnome-keyring-daemon` (secrets component) and, when `unlock`, unlocks (or creates)
    /// the login keyring with ``password``; returns once it owns `org.freedesktop.secrets`.
    func startKeyring(unlock: Bool = true) async throws {
        // The password on standard input, which then ends (no password: an empty input).
        keyring = try ChildProcess.start(
            "/usr/bin/gnome-keyring-daemon", (unlock ? ["--unlock"] : []) + ["--components=secrets", "--foreground"],
            environment: environment, standardInput: unlock ? Array(Self.password.utf8) : [], standardOutput: .discard,
            standardError: .discard)
        for _ in 0..<200 {
            if try await run(
                "/usr/bin/dbus-send",
                [
                    "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner",
                    "string:org.freedesktop.secrets",
                ]
            ).output.contains("boolean true") {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "gnome-keyring-daemon did not appear on the bus within 10 s")
    }

    /// Kills the keyring daemon (SIGKILL) and returns once the bus has dropped its name (the bus
    /// sees the connection close at once; waiting for the process to be reaped is `Process`'s business).
    func killKeyring() async throws {
        guard let keyring else { return }
        self.keyring = nil
        await StressWorker.offCooperativePool { Self.end(keyring) }
        for _ in 0..<200 {
            if try await !secretsOwned() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "the killed gnome-keyring-daemon still owns org.freedesktop.secrets after 10 s")
    }

    /// Stops (`SIGSTOP`) or continues (`SIGCONT`) the bus daemon: a stopped bus still accepts
    /// connections (the kernel queues them) but never answers, not even the authentication handshake.
    func pauseBus(_ paused: Bool) {
        bus?.kill(paused ? SIGSTOP : SIGCONT)
    }

    /// Stops (`SIGSTOP`) or continues (`SIGCONT`) the keyring daemon: the bus then takes every call to
    /// the Secret Service and no answer ever comes.
    func pauseKeyring(_ paused: Bool) {
        keyring?.kill(paused ? SIGSTOP : SIGCONT)
    }

    /// Kills the bus daemon (SIGKILL) and reaps it: every connection to the bus closes.
    func killBus() async {
        guard let bus else { return }
        self.bus = nil
        await StressWorker.offCooperativePool { Self.end(bus) }
    }

    /// Whether somebody owns `org.freedesktop.secrets` on the bus.
    func secretsOwned() async throws -> Bool {
        try await run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                "string:org.freedesktop.secrets",
            ]
        ).output.contains("boolean true")
    }

    /// Runs `program arguments…` in the session (its environment and working directory), standard input
    /// `input`, at most `timeout` seconds.
    func run(
        _ program: String, _ arguments: [String], input: Data? = nil, environment extra: [String: String] = [:], timeout: Double = 120
    ) async throws -> (status: Int32, output: String, errors: String) {
        let childEnvironment = environment.merging(extra) { _, new in new }
        let directory = workingDirectory.path
        let outcome = try await StressWorker.offCooperativePool { () -> Result<ChildProcess.Outcome, any Error> in
            Result {
                try ChildProcess.run(
                    program, arguments, environment: childEnvironment, currentDirectory: directory, standardInput: Array(input ?? Data()),
                    timeout: timeout)
            }
        }.get()
        return (
            outcome.status, String(decoding: outcome.standardOutput, as: UTF8.self), String(decoding: outcome.standardError, as: UTF8.self)
        )
    }

    /// The text of the item with `schema` (and no other attributes required), through `secret-tool`;
    /// `nil` when there is none.
    func lookup(schema: String) async throws -> String? {
        let result = try await run("/usr/bin/secret-tool", ["lookup", "xdg:schema", schema])
        return result.status == 0 ? result.output : nil
    }

    /// Stores `text` as the item with `schema`, through `secret-tool`.
    func store(schema: String, text: String) async throws {
        let result = try await run("/usr/bin/secret-tool", ["store", "--label=test", "xdg:schema", schema], input: Data(text.utf8))
        guard result.status == 0 else { throw Failure(description: "secret-tool store failed: \(result.errors)") }
    }

    /// Every regular file under the home directory, the working directory and the runtime directory
    /// whose bytes contain one of `secrets`, as paths.
    func filesContaining(_ secrets: [String]) throws -> [String] {
        var found: [String] = []
        let needles = secrets.filter { !$0.isEmpty }.map { Data($0.utf8) }
        for directory in [home, workingDirectory, root.appendingPathComponent("runtime")] {
            guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else {
                continue
            }
            for case let url as URL in walker {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                    let data = try? Data(contentsOf: url)
                else { continue }
                if needles.contains(where: { data.range(of: $0) != nil }) { found.append(url.path) }
            }
        }
        return found
    }

    /// Kills the daemons (SIGKILL, then `waitpid`, which returns at once for a killed process) and
    /// removes the session's files.
    func stop() {
        if let keyring { Self.end(keyring) }
        if let bus { Self.end(bus) }
        keyring = nil
        bus = nil
        try? FileManager.default.removeItem(at: root)
    }

    deinit {
        stop()
    }

    /// Kills `daemon` (SIGKILL) and reaps it: it dies at once, the wait is short.
    private static func end(_ daemon: ChildProcess) {
        daemon.kill()
        _ = daemon.finish()
    }
}
