import Foundation
import MSALEmulator
import MSALSupport
import Testing

/// The broker double proven against Microsoft's own client (issue 41, step 2): MSAL for Python 1.39
/// with pymsalruntime 0.20.7, on a private bus where the local provider's ``MSALEmulator/Broker``
/// owns the broker's name, signs a user in, lists her account, answers silently from its cache,
/// makes a PoP request the emulator's resource accepts, and reports the double's faults as
/// `broker_error`s. The runtime accepts the double's answers as they are.
@Suite("Microsoft's broker runtime against the broker double", .serialized)
struct RuntimeBrokerDoubleTests {
    static let clientID = MSALEmulator.Configuration.sampleClientID
    static let adele = "adele@contoso.example"

    /// Runs `runtime_client.py step` for the sample client and Adele against a new double.
    ///
    /// A real Secret Service runs on the bus: after an interactive sign-in the runtime keeps state
    /// there, and without one it fails (`EnumerateNoLock`, `docs/broker.md`).
    static func run(
        step: String, prepare: (MSALEmulator.Broker) throws -> Void = { _ in }
    ) async throws -> (results: [String: [String: Any]], broker: MSALEmulator.Broker, emulator: MSALEmulator) {
        try await PrivateBus.with { bus in
            try await bus.startKeyring()
            let emulator = try MSALEmulator(configuration: .sample)
            try await emulator.start()
            let broker = try emulator.startBroker(busAddress: bus.address)
            defer { broker.stop() }
            try prepare(broker)
            let (results, _) = try await RuntimeInteropTests.runClient(
                on: bus, arguments: [step, "--client-id", clientID, "--login-hint", adele])
            try await emulator.shutdown()
            return (results, broker, emulator)
        }
    }

    @Test(
        "Sign-in through the double: pymsalruntime asks for the accounts and a silent token (none yet: status 2), then an interactive one, and hands MSAL for Python the emulator's token; the account is listed (account_source broker), a silent call is a cache hit, and the double holds the account"
    )
    func signIn() async throws {
        let (results, broker, _) = try await Self.run(step: "lifecycle")
        let signedIn = try #require(results["interactive"], "\(results)")
        #expect(signedIn["error"] == nil, "\(signedIn)")
        #expect(signedIn["token_source"] as? String == "broker")
        #expect(signedIn["preferred_username"] as? String == Self.adele)
        let accessToken = try #require(signedIn["access_token"] as? String)
        #expect(try BrokerDoubleTests.claims(accessToken)["preferred_username"] as? String == Self.adele)
        let accounts = try #require(results["accounts"]?["accounts"] as? [[String: Any]])
        #expect(accounts.first?["username"] as? String == Self.adele)
        #expect(accounts.first?["account_source"] as? String == "broker")
        #expect(results["silent"]?["token_source"] as? String == "cache")
        #expect(
            broker.calls.compactMap(\.method) == [.getAccounts, .acquireTokenSilently, .acquireTokenInteractively],
            "\(broker.calls.map { $0.method?.rawValue ?? "?" })")
        #expect(broker.accounts == [Self.adele])
    }

    @Test("An account the device already has: the sign-in is one silent call, answered by the double")
    func alreadySignedIn() async throws {
        let (results, broker, _) = try await Self.run(step: "interactive") { try $0.signIn(username: Self.adele) }
        #expect(results["interactive"]?["token_source"] as? String == "broker", "\(results)")
        #expect(broker.calls.compactMap(\.method) == [.getAccounts, .acquireTokenSilently])
    }

    @Test(
        "The double's faults reach MSAL for Python as broker_error with the runtime's status: a user cancel in the broker's window (UserCanceled), a busy broker (TransientError)"
    )
    func faults() async throws {
        let (canceled, _, _) = try await Self.run(step: "interactive") { $0.inject(.userCanceled, for: .acquireTokenInteractively) }
        let cancel = try #require(canceled["interactive"])
        #expect(cancel["error"] as? String == "broker_error")
        #expect((cancel["error_description"] as? String)?.contains("Status_UserCanceled") == true, "\(cancel)")

        let (busy, _, _) = try await Self.run(step: "interactive") {
            try $0.signIn(username: Self.adele)
            $0.inject(.busy, count: 5)
        }
        let transient = try #require(busy["interactive"])
        #expect(transient["error"] as? String == "broker_error")
        #expect((transient["error_description"] as? String)?.contains("Status_TransientError") == true, "\(transient)")
    }

    @Test(
        "MSAL's PoP from pymsalruntime through the double: `pop <signed request>` for graph.microsoft.com /v1.0/me, signed by the broker's key"
    )
    func proofOfPossession() async throws {
        let (results, broker, _) = try await Self.run(step: "pop") { try $0.signIn(username: Self.adele) }
        let pop = try #require(results["pop"], "\(results)")
        #expect(pop["is_pop"] as? Bool == true, "\(pop)")
        let header = try #require(pop["authorization_header"] as? String)
        #expect(header.hasPrefix("pop "))
        let claims = try BrokerDoubleTests.claims(String(header.dropFirst(4)))
        #expect(claims["u"] as? String == "graph.microsoft.com" && claims["p"] as? String == "/v1.0/me" && claims["m"] as? String == "GET")
        #expect(claims["nonce"] as? String == "nonce-1")
        #expect(broker.calls.compactMap(\.method).last == .acquireTokenSilently)
    }
}
