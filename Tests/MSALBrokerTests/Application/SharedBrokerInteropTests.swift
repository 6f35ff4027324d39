import Foundation
import MSALEmulator
import MSALSupport
import Testing

@testable import MSAL

/// swift-msal and Microsoft's own client (MSAL for Python 1.39 with pymsalruntime 0.20.7) on one
/// machine's broker (issue 41, step 4): a user signed in through either is seen silently by the
/// other, and a sign-out through swift-msal is a sign-out for both. The broker is the local
/// provider's double on a private bus, which the runtime accepts (`RuntimeBrokerDoubleTests`).
@Suite("swift-msal and MSAL for Python sharing the broker", .serialized)
struct SharedBrokerInteropTests {
    typealias App = LinuxBrokerApplicationTests.App
    static let clientID = MSALEmulator.Configuration.sampleClientID
    static let adele = "adele@contoso.example"

    /// A private bus with a Secret Service (the runtime keeps state there), the emulator and its
    /// broker double; `body` gets the setup.
    static func with(_ body: (BrokerDoubleTests.Setup) async throws -> Void) async throws {
        try await PrivateBus.with { bus in
            try await bus.startKeyring()
            let emulator = try MSALEmulator(configuration: .sample)
            try await emulator.start()
            let broker = try emulator.startBroker(busAddress: bus.address)
            do {
                try await body(BrokerDoubleTests.Setup(bus: bus, emulator: emulator, broker: broker))
            } catch {
                broker.stop()
                try? await emulator.shutdown()
                throw error
            }
            broker.stop()
            try await emulator.shutdown()
        }
    }

    /// MSAL for Python's `acquire_token_interactive` for Adele, with a fresh MSAL for Python cache.
    static func python(_ setup: BrokerDoubleTests.Setup) async throws -> [String: Any] {
        let (results, standardError) = try await RuntimeInteropTests.runClient(
            on: setup.bus, arguments: ["interactive", "--client-id", clientID, "--login-hint", adele])
        return try #require(results["interactive"], "\(results) \(standardError.suffix(1000))")
    }

    @Test(
        "Signed in through MSAL for Python, seen by swift-msal: a new swift-msal application (empty cache) lists Adele from the broker and gets her tokens silently, with no interactive call; the emulator's resource takes both libraries' tokens"
    )
    func pythonThenSwift() async throws {
        try await Self.with { setup in
            let signedIn = try await Self.python(setup)
            #expect(signedIn["token_source"] as? String == "broker" && signedIn["error"] == nil, "\(signedIn)")
            #expect(setup.broker.calls.compactMap(\.method).contains(.acquireTokenInteractively))
            let pythonToken = try #require(signedIn["access_token"] as? String)
            #expect(try await BrokerDoubleTests.resource(setup, "Bearer \(pythonToken)") == 200)

            let before = setup.broker.calls.count
            let app = try App(busAddress: setup.bus.address)
            let accounts = try await app.application.accountsFromDevice(for: MSALAccountEnumerationParameters())
            #expect(accounts.map(\.username) == [Self.adele])
            let silent = try await app.silent(try #require(accounts.first))
            #expect(silent.tokenSource == .broker && silent.account.username == Self.adele)
            #expect(try await BrokerDoubleTests.resource(setup, silent.authorizationHeader) == 200)
            let swiftCalls = setup.broker.calls.dropFirst(before).compactMap(\.method)
            #expect(swiftCalls == [.getAccounts, .acquireTokenSilently], "\(swiftCalls)")
            #expect(app.cacheIsEmpty && app.transport.requests.withLock { $0 }.isEmpty)
        }
    }

    @Test(
        "Signed in through swift-msal, seen by MSAL for Python: its interactive call for Adele is answered silently by the broker (no acquireTokenInteractively); after swift-msal signs her out, MSAL for Python has to sign her in interactively again"
    )
    func swiftThenPython() async throws {
        try await Self.with { setup in
            let app = try App(busAddress: setup.bus.address)
            let signedIn = try await app.interactive()
            #expect(signedIn.tokenSource == .broker)

            let before = setup.broker.calls.count
            let python = try await Self.python(setup)
            #expect(python["token_source"] as? String == "broker" && python["preferred_username"] as? String == Self.adele, "\(python)")
            let pythonCalls = setup.broker.calls.dropFirst(before).compactMap(\.method)
            #expect(!pythonCalls.contains(.acquireTokenInteractively) && pythonCalls.contains(.acquireTokenSilently), "\(pythonCalls)")

            try await app.remove(signedIn.account)
            #expect(setup.broker.accounts.isEmpty)
            let afterSignOut = setup.broker.calls.count
            let again = try await Self.python(setup)
            #expect(again["token_source"] as? String == "broker", "\(again)")
            #expect(setup.broker.calls.dropFirst(afterSignOut).compactMap(\.method).contains(.acquireTokenInteractively))
        }
    }
}
