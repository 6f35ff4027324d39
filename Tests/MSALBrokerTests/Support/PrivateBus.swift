import Foundation
import MSALDBus
import MSALSupport

/// A D-Bus bus of one test's own: `dbus-daemon` with a session-bus configuration listening on a
/// socket in a fresh directory (no service activation, so nothing starts behind the test's back),
/// stopped (killed) by ``stop()``. Never the machine's session bus.
///
/// A missing `dbus-daemon` is a failure, never a skip: `scripts/setup.sh` installs `dbus`.
final class PrivateBus: @unchecked Sendable {
    // @unchecked: started and stopped only by the test that owns it, one step at a time.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let directory: URL
    /// The bus address (`unix:path=…,guid=…`).
    let address: String
    private let daemon: ChildProcess
    private let keyring = Mutex<ChildProcess?>(nil)

    static func start() async throws -> PrivateBus {
        let program = "/usr/bin/dbus-daemon"
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw Failure(description: "\(program) is missing: run `bash scripts/setup.sh` (it installs dbus)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-dbus-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let configuration = directory.appendingPathComponent("bus.conf")
        try Data(
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory.appendingPathComponent("bus").path)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.utf8
        ).write(to: configuration)
        let daemon = try ChildProcess.start(
            program, ["--config-file=\(configuration.path)", "--nofork", "--print-address=1"], environment: ["PATH": "/usr/bin:/bin"],
            standardError: .discard)
        let address = await Self.offCooperativePool {
            _ = daemon.readOutput { $0.contains(UInt8(ascii: "\n")) }
            return String(decoding: daemon.standardOutputSoFar.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard address.hasPrefix("unix:") else {
            daemon.kill()
            _ = daemon.finish()
            throw Failure(description: "dbus-daemon printed no address")
        }
        return PrivateBus(directory: directory, address: address, daemon: daemon)
    }

    private init(directory: URL, address: String, daemon: ChildProcess) {
        self.directory = directory
        self.address = address
        self.daemon = daemon
    }

    /// Runs `body` with a new bus, stopped afterwards.
    static func with<T>(_ body: (PrivateBus) async throws -> T) async throws -> T {
        let bus = try await start()
        do {
            let value = try await body(bus)
            await bus.stop()
            return value
        } catch {
            await bus.stop()
            throw error
        }
    }

    /// Kills the keyring, if one was started, and the bus daemon (the bus disappears for everyone
    /// on it), and removes the directory.
    func stop() async {
        let daemons = [keyring.withLock { $0 }, daemon].compactMap { $0 }
        await Self.offCooperativePool {
            for daemon in daemons {
                daemon.kill()
                _ = daemon.finish()
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// An environment for processes on this bus: this bus, a `$HOME` and XDG directories of the
    /// bus's own, and no display (nothing may prompt).
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        let home = directory.appendingPathComponent("home")
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["HOME"] = home.path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent(".cache").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent(".local/share").path
        environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("runtime").path
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        return environment
    }

    /// Starts a real Secret Service on this bus — `gnome-keyring-daemon` with a login keyring
    /// created and unlocked with a throwaway password — and returns once it owns
    /// `org.freedesktop.secrets`. Microsoft's broker runtime keeps state there after an
    /// interactive sign-in (`docs/broker.md`). Stopped with the bus (``stop()``).
    func startKeyring() async throws {
        let program = "/usr/bin/gnome-keyring-daemon"
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw Failure(description: "\(program) is missing: run `bash scripts/setup.sh` (it installs gnome-keyring)")
        }
        for path in ["home", "runtime"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let daemon = try ChildProcess.start(
            program, ["--unlock", "--components=secrets", "--foreground"], environment: environment,
            standardInput: Array("swift-msal broker test keyring".utf8), standardOutput: .discard, standardError: .discard)
        keyring.withLock { $0 = daemon }
        let address = address
        for _ in 0..<200 {
            let answered = try? await Self.blocking {
                try DBusConnection(address: address).ping(
                    destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets", timeout: .seconds(2))
            }
            if answered != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "gnome-keyring-daemon did not appear on the bus within 10 s")
    }

    /// Runs `body`, which blocks, on a thread of its own (Dispatch's global queues do not grow
    /// for blocking work on Linux: the broker tests' long waits stalled other calls there).
    static func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await DedicatedThread.run(name: "swift-msal broker test", body)
    }

    /// Runs `body`, which blocks and may throw, on a thread of its own.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await DedicatedThread.run(name: "swift-msal broker test", body)
    }
}
