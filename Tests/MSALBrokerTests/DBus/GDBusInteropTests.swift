import Foundation
import MSALSupport
import Testing

@testable import MSALDBus

/// libdbus through ``DBusConnection`` and ``DBusService`` against GLib's own D-Bus implementation
/// (GDBus), which nobody here wrote: our client calls the broker stand-in of
/// `Tests/Interop/broker/recording_broker.py` (Python's GLib bindings), and GLib's `gdbus call`
/// calls our service. Both on a private bus.
@Suite("D-Bus against GLib's GDBus")
struct GDBusInteropTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// `.build/keyring-venv`'s Python, which has PyGObject (`scripts/setup.sh`).
    static let python = packageRoot.appendingPathComponent(".build/keyring-venv/bin/python").path
    static let broker = packageRoot.appendingPathComponent("Tests/Interop/broker/recording_broker.py").path

    @Test(
        "Our client calls GLib's service (the recording broker stand-in): each of the broker's methods with three strings, the answer from its file, Peer.Ping answered by GLib, an unknown method refused by GLib"
    )
    func clientAgainstGDBusService() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw PrivateBus.Failure(description: "\(Self.python) is missing: run `bash scripts/setup.sh`")
        }
        try await PrivateBus.with { bus in
            let record = bus.directory.appendingPathComponent("calls.jsonl")
            let answers = bus.directory.appendingPathComponent("answers.json")
            try Data(#"{"getAccounts": {"accounts": [{"username": "adele@contoso.com"}]}}"#.utf8).write(to: answers)
            let stub = try ChildProcess.start(
                Self.python, [Self.broker, "--record", record.path, "--answers", answers.path], environment: bus.environment,
                standardError: .discard)
            defer {
                stub.kill()
                _ = stub.finish()
            }
            let ready = await PrivateBus.offCooperativePool { stub.readOutput { String(decoding: $0, as: UTF8.self).contains("READY") } }
            try #require(ready, "the stand-in did not come up")

            let address = bus.address
            let name = "com.microsoft.identity.broker1"
            let path = "/com/microsoft/identity/broker1"
            let interface = "com.microsoft.identity.Broker1"
            let answer = try await PrivateBus.blocking {
                let connection = try DBusConnection(address: address)
                try connection.ping(destination: name, path: path, timeout: .seconds(5))
                return try connection.call(
                    destination: name, path: path, interface: interface, method: "getAccounts",
                    arguments: ["0.0", "3c9b0f5e-correlation", #"{"clientId":"client ✓"}"#], timeout: .seconds(5))
            }
            #expect(answer == [#"{"accounts": [{"username": "adele@contoso.com"}]}"#])
            let empty = try await PrivateBus.blocking {
                try DBusConnection(address: address).call(
                    destination: name, path: path, interface: interface, method: "getLinuxBrokerVersion", arguments: ["0.0", "c2", "{}"],
                    timeout: .seconds(5))
            }
            #expect(empty == ["{}"])

            let recorded = try String(contentsOf: record, encoding: .utf8).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(recorded.map { $0["method"] as? String } == ["getAccounts", "getLinuxBrokerVersion"])
            #expect(recorded.first?["protocol"] as? String == "0.0")
            #expect(recorded.first?["correlation_id"] as? String == "3c9b0f5e-correlation")
            #expect((recorded.first?["request"] as? [String: Any])?["clientId"] as? String == "client ✓")

            // GLib refuses what the interface does not declare: a method, or the wrong arguments.
            let unknown = await DBusConnectionTests.failure {
                try await PrivateBus.blocking {
                    try DBusConnection(address: address).call(
                        destination: name, path: path, interface: interface, method: "noSuchMethod", arguments: ["a", "b", "c"],
                        timeout: .seconds(5))
                }
            }
            #expect(unknown?.kind == .remoteError && unknown?.name == "org.freedesktop.DBus.Error.UnknownMethod")
            let twoArguments = await DBusConnectionTests.failure {
                try await PrivateBus.blocking {
                    try DBusConnection(address: address).call(
                        destination: name, path: path, interface: interface, method: "getAccounts", arguments: ["a", "b"],
                        timeout: .seconds(5))
                }
            }
            #expect(twoArguments?.name == "org.freedesktop.DBus.Error.InvalidArgs")
        }
    }

    @Test("GLib's gdbus calls our service: it sees our answer, our D-Bus error by name, and Peer.Ping answered")
    func gdbusAgainstOurService() async throws {
        let gdbus = "/usr/bin/gdbus"
        guard FileManager.default.isExecutableFile(atPath: gdbus) else {
            throw PrivateBus.Failure(description: "\(gdbus) is missing: run `bash scripts/setup.sh` (libglib2.0-bin)")
        }
        try await PrivateBus.with { bus in
            let service = try DBusService(address: bus.address, name: DBusConnectionTests.name) { call in
                switch call.member {
                case "echo": .strings([(call.arguments ?? []).joined(separator: "|")])
                default: .error(name: "org.swiftmsal.Error.Nope", message: "no \(call.member ?? "")")
                }
            }
            defer { service.stop() }
            func gdbusCall(_ method: String, _ arguments: [String]) async throws -> ChildProcess.Outcome {
                let command =
                    [
                        "call", "--address", bus.address, "--dest", DBusConnectionTests.name, "--object-path", DBusConnectionTests.path,
                        "--method", method, "--timeout", "10",
                    ] + arguments
                return try await PrivateBus.blocking { try ChildProcess.run(gdbus, command, timeout: 30) }
            }
            let echoed = try await gdbusCall("\(DBusConnectionTests.interface).echo", ["a", "b c", "ü"])
            #expect(echoed.status == 0, "\(String(decoding: echoed.standardError, as: UTF8.self))")
            #expect(
                String(decoding: echoed.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "('a|b c|ü',)")
            let refused = try await gdbusCall("\(DBusConnectionTests.interface).other", [])
            #expect(refused.status != 0)
            let error = String(decoding: refused.standardError, as: UTF8.self)
            #expect(error.contains("org.swiftmsal.Error.Nope") && error.contains("no other"), "\(error)")
            let pinged = try await gdbusCall("org.freedesktop.DBus.Peer.Ping", [])
            #expect(pinged.status == 0, "\(String(decoding: pinged.standardError, as: UTF8.self))")
        }
    }
}
