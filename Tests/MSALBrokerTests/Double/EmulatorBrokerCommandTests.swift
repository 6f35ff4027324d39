import Foundation
import MSALDBus
import MSALEmulator
import MSALSupport
import Testing

/// `msal emulator --broker` on a private bus: the broker double answers Microsoft's runtime with
/// the accounts `--broker-account` signed in; SIGTERM stops it and the name leaves the bus.
@Suite("msal emulator --broker")
struct EmulatorBrokerCommandTests {
    /// The `msal` binary next to the test bundle (SwiftPM builds it: the test target depends on it).
    static let executable: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("msal"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("msal"),
            Bundle.main.bundleURL.appendingPathComponent("msal"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    @Test(
        "msal emulator --broker --broker-account: the summary names the double and its device account; pymsalruntime signs in silently through it; SIGTERM exits 0 and frees the name; --broker-account without --broker is refused"
    )
    func brokerCommand() async throws {
        try await PrivateBus.with { bus in
            try await bus.startKeyring()
            let user = "adele@contoso.example"
            let environment = bus.environment
            let child = try ChildProcess.start(
                Self.executable.path, ["emulator", "--broker", "--broker-account", user, "--output", "json"], environment: environment,
                timeout: 300)
            let firstLine = await PrivateBus.offCooperativePool { () -> String in
                _ = child.readOutput { $0.contains(UInt8(ascii: "\n")) }
                return String(decoding: child.standardOutputSoFar.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            }
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(firstLine.utf8)) as? [String: Any], "\(firstLine)")
            let broker = try #require(summary["broker"] as? [String: Any], "\(summary)")
            #expect(broker["bus_name"] as? String == MSALEmulator.Broker.busName)
            #expect(broker["accounts"] as? [String] == [user])

            let (results, _) = try await RuntimeInteropTests.runClient(
                on: bus, arguments: ["interactive", "--client-id", MSALEmulator.Configuration.sampleClientID, "--login-hint", user])
            #expect(results["interactive"]?["token_source"] as? String == "broker", "\(results)")
            #expect(results["interactive"]?["preferred_username"] as? String == user)

            let outcome = await PrivateBus.offCooperativePool { () -> ChildProcess.Outcome in
                child.kill(SIGTERM)
                return child.finish()
            }
            #expect(outcome.status == 0, "\(String(decoding: outcome.standardError, as: UTF8.self))")
            let address = bus.address
            let gone = await DBusConnectionTests.failure {
                try await PrivateBus.blocking {
                    try DBusConnection(address: address).ping(
                        destination: MSALEmulator.Broker.busName, path: MSALEmulator.Broker.objectPath, timeout: .seconds(5))
                }
            }
            #expect(gone?.kind == .serviceUnknown)
        }
        let refused = try await PrivateBus.blocking {
            try ChildProcess.run(Self.executable.path, ["emulator", "--broker-account", "adele@contoso.example"], timeout: 60)
        }
        #expect(refused.status != 0)
        #expect(String(decoding: refused.standardError, as: UTF8.self).contains("--broker-account needs --broker"))
    }
}
