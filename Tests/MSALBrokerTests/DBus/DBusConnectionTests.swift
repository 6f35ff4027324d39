import Foundation
import MSALSupport
import Testing

@testable import MSALDBus

/// ``DBusConnection`` and ``DBusService`` on a private `dbus-daemon` (never the machine's session
/// bus): calls and answers, errors by kind, deadlines, a service or bus that goes away mid-call,
/// and arguments D-Bus cannot carry.
@Suite("D-Bus through libdbus: calls, services, failures")
struct DBusConnectionTests {
    static let name = "org.swiftmsal.Test"
    static let path = "/org/swiftmsal/Test"
    static let interface = "org.swiftmsal.Test1"

    /// Calls `method` with `arguments` on the test service, off the cooperative pool.
    static func call(
        _ bus: PrivateBus, _ method: String, _ arguments: [String], timeout: Duration = .seconds(5)
    ) async throws -> [String] {
        let address = bus.address
        return try await PrivateBus.blocking {
            try DBusConnection(address: address).call(
                destination: name, path: path, interface: interface, method: method, arguments: arguments, timeout: timeout)
        }
    }

    /// The ``DBusFailure`` `body` throws; records an issue when it throws another error or none.
    static func failure(_ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async -> DBusFailure? {
        await thrown(DBusFailure.self, body, sourceLocation: sourceLocation)
    }

    /// The calls a test service received.
    final class Calls: Sendable {
        private let list = Mutex<[DBusService.Call]>([])
        func append(_ call: DBusService.Call) { list.withLock { $0.append(call) } }
        var all: [DBusService.Call] { list.withLock { $0 } }
    }

    /// A service answering `echo` with its arguments reversed, `fail` with a D-Bus error, `silent`
    /// never, `slow` after two seconds, `nul` with a string D-Bus cannot carry.
    static func service(_ bus: PrivateBus, calls: Calls = Calls()) throws -> DBusService {
        try DBusService(address: bus.address, name: name) { call in
            calls.append(call)
            switch call.member {
            case "echo": return .strings((call.arguments ?? []).reversed())
            case "fail": return .error(name: "org.swiftmsal.Error.Refused", message: "refused: \(call.arguments?.first ?? "")")
            case "silent": return .none
            case "slow":
                try? await Task.sleep(for: .seconds(2))
                return .strings(["late"])
            case "nul": return .strings(["a\u{0}b"])
            case "badError": return .error(name: "not an error name", message: "x")
            default: return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.member ?? "?")")
            }
        }
    }

    @Test(
        "A call reaches the service with its strings (UTF-8, empty, large) and sender, and the answer comes back; Peer.Ping is answered; errors come back by name"
    )
    func callsAndAnswers() async throws {
        try await PrivateBus.with { bus in
            let calls = Calls()
            let service = try Self.service(bus, calls: calls)
            defer { service.stop() }
            let large = String(repeating: "é", count: 100_000)
            // A generous deadline: this checks what arrives, not how fast (other suites share the 2 cores).
            let answer = try await Self.call(bus, "echo", ["0.0", "ünïcode ✓", "", large], timeout: .seconds(30))
            #expect(answer == [large, "", "ünïcode ✓", "0.0"])
            let seen = try #require(calls.all.first)
            #expect(seen.member == "echo" && seen.interface == Self.interface && seen.path == Self.path)
            #expect(seen.sender?.hasPrefix(":") == true)

            let address = bus.address
            try await PrivateBus.blocking {
                try DBusConnection(address: address).ping(destination: Self.name, path: Self.path, timeout: .seconds(5))
            }

            let refused = await Self.failure { try await Self.call(bus, "fail", ["why"]) }
            #expect(refused?.kind == .remoteError && refused?.name == "org.swiftmsal.Error.Refused")
            #expect(refused?.message == "refused: why")
            let unknown = await Self.failure { try await Self.call(bus, "nothing", []) }
            #expect(unknown?.name == "org.freedesktop.DBus.Error.UnknownMethod")
            // An answer the service cannot send as asked: a D-Bus error instead, never a crash.
            let unsendable = await Self.failure { try await Self.call(bus, "nul", []) }
            #expect(unsendable?.kind == .remoteError && unsendable?.name == "org.freedesktop.DBus.Error.Failed")
        }
    }

    @Test(
        "Deadlines and absences: nobody owns the name (serviceUnknown at once); a service that never answers (noReply after the timeout, not before); a string with a NUL is refused before anything is sent"
    )
    func deadlinesAndBadArguments() async throws {
        try await PrivateBus.with { bus in
            let nobody = await Self.failure { try await Self.call(bus, "echo", []) }
            #expect(nobody?.kind == .serviceUnknown, "\(String(describing: nobody))")

            let calls = Calls()
            let service = try Self.service(bus, calls: calls)
            defer { service.stop() }
            let started = ContinuousClock.now
            let silent = await Self.failure { try await Self.call(bus, "silent", [], timeout: .milliseconds(400)) }
            let waited = ContinuousClock.now - started
            #expect(silent?.kind == .noReply, "\(String(describing: silent))")
            // Under a loaded parallel run the answer may come late, never early.
            #expect(waited >= .milliseconds(390) && waited < .seconds(15), "\(waited)")

            let before = calls.all.count
            let nul = await Self.failure { try await Self.call(bus, "echo", ["a\u{0}b"]) }
            #expect(nul?.kind == .invalidArgument)
            // Names libdbus would abort the process on are refused first, as typed errors.
            let address = bus.address
            for (destination, path, interface, method) in [
                ("not a bus name", Self.path, Self.interface, "echo"), (Self.name, "relative/path", Self.interface, "echo"),
                (Self.name, Self.path, "no-dots", "echo"), (Self.name, Self.path, Self.interface, "with.dot"),
                (Self.name, Self.path, Self.interface, ""),
            ] {
                let refused = await Self.failure {
                    try await PrivateBus.blocking {
                        try DBusConnection(address: address).call(
                            destination: destination, path: path, interface: interface, method: method, arguments: [],
                            timeout: .seconds(5))
                    }
                }
                #expect(refused?.kind == .invalidArgument, "\(destination) \(path) \(interface) \(method)")
            }
            let badName = await Self.failure { try DBusService(address: address, name: "not a bus name") { _ in .none } }
            #expect(badName?.kind == .invalidArgument)
            // A handler's invalid error name: a generic D-Bus error instead, never an abort.
            let badError = await Self.failure { try await Self.call(bus, "badError", []) }
            #expect(badError?.name == "org.freedesktop.DBus.Error.Failed", "\(String(describing: badError))")
            #expect(calls.all.count == before + 1, "only the badError call was sent")
        }
    }

    @Test(
        "The name is one owner's: a second service is refused (nameTaken); once the first stops, the name is free again; a service that stops mid-call leaves its caller with an error at once, not at the timeout"
    )
    func ownershipAndDeparture() async throws {
        try await PrivateBus.with { bus in
            let first = try Self.service(bus)
            let taken = await Self.failure { try Self.service(bus) }
            #expect(taken?.kind == .nameTaken)

            let started = ContinuousClock.now
            async let slow = Self.failure { try await Self.call(bus, "slow", [], timeout: .seconds(20)) }
            try await Task.sleep(for: .milliseconds(300))
            await PrivateBus.offCooperativePool { first.stop() }
            let departed = await slow
            #expect(departed?.kind == .noReply, "\(String(describing: departed))")
            // Well before the call's 20 s timeout (the margin is for a loaded parallel run).
            #expect(ContinuousClock.now - started < .seconds(15), "the caller learned before its timeout that the service left")

            let second = try Self.service(bus)
            defer { second.stop() }
            #expect(try await Self.call(bus, "echo", ["x", "y"]) == ["y", "x"])
        }
    }

    @Test(
        "The bus itself goes away mid-call (dbus-daemon killed): the caller gets a typed error, the service's thread ends, the process lives on; connecting afterwards is connectionFailed"
    )
    func busDisappears() async throws {
        let bus = try await PrivateBus.start()
        let service = try Self.service(bus)
        let address = bus.address
        let connection = try DBusConnection(address: address)
        async let waiting = Self.failure {
            try await PrivateBus.blocking {
                try connection.call(
                    destination: Self.name, path: Self.path, interface: Self.interface, method: "silent", arguments: [],
                    timeout: .seconds(20))
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        await bus.stop()
        let failure = await waiting
        #expect([.disconnected, .noReply].contains(failure?.kind), "\(String(describing: failure))")
        #expect(ContinuousClock.now - started < .seconds(15), "well before the call's 20 s timeout")
        await PrivateBus.offCooperativePool { service.stop() }
        let again = await Self.failure { try DBusConnection(address: address) }
        #expect(again?.kind == .connectionFailed, "\(String(describing: again))")
    }

    @Test("No session bus: no address is noBus, an autolaunch address is never used, a socket nobody listens on is connectionFailed")
    func noBus() async throws {
        #expect(DBusConnection.sessionBusAddress(in: [:]) == nil)
        #expect(DBusConnection.sessionBusAddress(in: ["DBUS_SESSION_BUS_ADDRESS": "autolaunch:"]) == nil)
        #expect(DBusConnection.sessionBusAddress(in: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]) == "unix:path=/x")
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("msal-no-bus-\(UUID().uuidString)").path
        let refused = await Self.failure { try DBusConnection(address: "unix:path=\(missing)") }
        #expect(refused?.kind == .connectionFailed)
        let garbage = await Self.failure { try DBusConnection(address: "not an address") }
        #expect(garbage?.kind == .connectionFailed)
    }

    /// A Unix socket that listens and never accepts or speaks: a bus that hangs (the kernel
    /// completes each connection from the backlog, so libdbus's connect succeeds and then waits).
    final class SilentSocket {
        let path: String
        private let descriptor: Int32

        init(directory: URL) throws {
            path = directory.appendingPathComponent("silent-bus").path
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            try #require(descriptor >= 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(bound == 0 && listen(descriptor, 16) == 0)
        }

        deinit { close(descriptor) }
    }

    @Test(
        "A bus that accepts the connection and then says nothing (no authentication, no Hello answer): connectionFailed at the caller's deadline, not after libdbus's 25 s"
    )
    func silentBus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-silent-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let silent = try SilentSocket(directory: directory)
        let address = "unix:path=\(silent.path)"
        let started = ContinuousClock.now
        let failure = await Self.failure { try await PrivateBus.blocking { try DBusConnection(address: address, timeout: .seconds(1)) } }
        let waited = ContinuousClock.now - started
        #expect(failure?.kind == .connectionFailed, "\(String(describing: failure))")
        #expect(waited >= .milliseconds(900) && waited < .seconds(10), "\(waited)")
        withExtendedLifetime(silent) {}
    }

    @Test("Timeouts in milliseconds for libdbus: rounded up, at least 1, below libdbus's infinite")
    func milliseconds() {
        #expect(DBusConnection.milliseconds(.milliseconds(250)) == 250)
        #expect(DBusConnection.milliseconds(.microseconds(1)) == 1)
        #expect(DBusConnection.milliseconds(.zero) == 1)
        #expect(DBusConnection.milliseconds(.seconds(-3)) == 1)
        #expect(DBusConnection.milliseconds(.seconds(1_000_000_000)) == Int32.max - 1)
    }
}
