import Foundation
import MSALEmulator
import MSALSupport
import Testing

/// `msal login --broker`, `msal accounts --broker`, `msal token --broker` and `msal logout --broker`
/// against the broker double on a private bus (the commands find it through
/// `DBUS_SESSION_BUS_ADDRESS`), and `msal accounts --broker` with no broker on the bus.
@Suite("msal … --broker")
struct BrokerCommandLineTests {
    static let clientID = MSALEmulator.Configuration.sampleClientID
    static let adele = "adele@contoso.example"

    /// Runs `msal arguments` on `bus` with the cache `cache`; its status, output and errors.
    static func msal(
        _ arguments: [String], bus: PrivateBus, cache: URL
    ) async throws -> (
        status: Int32, output: String, errors: String
    ) {
        let environment = bus.environment
        let outcome = try await PrivateBus.blocking {
            try ChildProcess.run(
                EmulatorBrokerCommandTests.executable.path, arguments + ["--cache", cache.path], environment: environment, timeout: 120)
        }
        return (
            outcome.status, String(decoding: outcome.standardOutput, as: UTF8.self), String(decoding: outcome.standardError, as: UTF8.self)
        )
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    @Test(
        "login --broker signs Adele in through the broker (token_source broker); accounts --broker lists her as a broker account; token --broker answers silently through the broker; logout --broker signs her out of it; the cache file stays without tokens"
    )
    func brokerVerbs() async throws {
        try await BrokerDoubleTests.with { setup in
            let cache = setup.bus.directory.appendingPathComponent("cache.json")
            let common = [
                "--client-id", Self.clientID, "--authority", "https://login.microsoftonline.com/organizations", "--output", "json",
            ]
            let login = try await Self.msal(["login", "--broker", "--login-hint", Self.adele] + common, bus: setup.bus, cache: cache)
            #expect(login.status == 0, "\(login.errors)")
            let signedIn = try Self.json(login.output)
            #expect(signedIn["token_source"] as? String == "broker")
            #expect((signedIn["account"] as? [String: Any])?["username"] as? String == Self.adele)
            #expect(setup.broker.calls.last?.method == .acquireTokenInteractively)

            let listed = try await Self.msal(
                ["accounts", "--broker", "--client-id", Self.clientID, "--output", "json"], bus: setup.bus, cache: cache)
            #expect(listed.status == 0, "\(listed.errors)")
            let accounts = try #require(try Self.json(listed.output)["accounts"] as? [[String: Any]])
            #expect(accounts.map { $0["username"] as? String } == [Self.adele])
            #expect(accounts.first?["broker"] as? Bool == true)

            let token = try await Self.msal(["token", "--broker", "--account", Self.adele] + common, bus: setup.bus, cache: cache)
            #expect(token.status == 0, "\(token.errors)")
            #expect(try Self.json(token.output)["token_source"] as? String == "broker")
            #expect(setup.broker.calls.last?.method == .acquireTokenSilently)

            let logout = try await Self.msal(["logout", "--broker", "--account", Self.adele] + common, bus: setup.bus, cache: cache)
            #expect(logout.status == 0, "\(logout.errors)")
            #expect(setup.broker.accounts.isEmpty)
            let none = try await Self.msal(["accounts", "--broker", "--client-id", Self.clientID], bus: setup.bus, cache: cache)
            #expect(none.status == 0 && none.output.contains("No accounts."), "\(none)")

            let cached = (try? JSONSerialization.jsonObject(with: Data(contentsOf: cache))) as? [String: Any] ?? [:]
            #expect(cached.values.allSatisfy { ($0 as? [String: Any])?.isEmpty ?? true }, "\(cached)")
        }
    }

    @Test(
        "accounts --broker with nothing on the bus: exit 0, the cache's accounts, and a note on standard error that no broker answers; without a client id it is refused"
    )
    func noBroker() async throws {
        try await PrivateBus.with { bus in
            let cache = bus.directory.appendingPathComponent("cache.json")
            let listed = try await Self.msal(["accounts", "--broker", "--client-id", Self.clientID], bus: bus, cache: cache)
            #expect(listed.status == 0, "\(listed.errors)")
            #expect(listed.output.contains("No accounts.") && listed.errors.contains("No identity broker answers"), "\(listed)")
            var withoutClient = bus.environment
            withoutClient["MSAL_CLIENT_ID"] = nil
            let environment = withoutClient
            let refused = try await PrivateBus.blocking {
                try ChildProcess.run(
                    EmulatorBrokerCommandTests.executable.path, ["accounts", "--broker", "--cache", cache.path], environment: environment,
                    timeout: 60)
            }
            #expect(refused.status != 0 && String(decoding: refused.standardError, as: UTF8.self).contains("--client-id"))
        }
    }
}
