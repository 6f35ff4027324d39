import Foundation
import MSALDBus
import MSALEmulator
import MSALJOSE
import MSALJSON
import MSALSupport
import Testing

@testable import MSAL

/// swift-msal's broker client (``BrokerClient``) against the local provider's broker double, which
/// Microsoft's runtime accepts (`RuntimeBrokerDoubleTests`), and against brokers that misbehave:
/// every answer checked, every failure a typed ``MSALFailure`` within the call's deadline.
@Suite("The broker client")
struct BrokerClientTests {
    static let clientID = MSALEmulator.Configuration.sampleClientID
    static let adele = "adele@contoso.example"
    static let timeout = Duration.seconds(10)

    static func parameters(account: BrokerAccount? = nil, hint: String? = adele) -> BrokerAuthParameters {
        var parameters = BrokerAuthParameters(
            clientID: clientID, authority: "https://login.microsoftonline.com/organizations", scopes: ["User.Read"])
        parameters.account = account
        parameters.loginHint = hint
        return parameters
    }

    /// The ``MSALFailure`` `body` throws; records an issue otherwise.
    static func failure(_ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async -> MSALFailure? {
        await thrown(MSALFailure.self, body, sourceLocation: sourceLocation)
    }

    @Test(
        "Against the double: no accounts, a silent call is interactionRequired; an interactive call signs Adele in (her account, the emulator's tokens, expiry in the future); then she is listed and silent calls answer for her; removeAccount signs her out"
    )
    func lifecycle() async throws {
        try await BrokerDoubleTests.with { setup in
            let client = BrokerClient(busAddress: setup.bus.address)
            let correlation = UUID()
            #expect(try await client.version(correlationID: correlation, timeout: Self.timeout) == "2.0.4")
            #expect(try await client.accounts(clientID: Self.clientID, correlationID: correlation, timeout: Self.timeout).isEmpty)
            let notYet = await Self.failure {
                try await client.token(Self.parameters(), interactive: false, correlationID: correlation, timeout: Self.timeout)
            }
            #expect(notYet?.code == .interactionRequired && notYet?.correlationID == correlation, "\(String(describing: notYet))")
            #expect(notYet?.message.contains("InteractionRequired") == true)

            let token = try await client.token(Self.parameters(), interactive: true, correlationID: correlation, timeout: Self.timeout)
            #expect(token.account.username == Self.adele)
            #expect(
                token.account.homeAccountID == "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a.\(MSALEmulator.Configuration.sampleContosoTenantID)")
            #expect(!token.isProofOfPossession && token.grantedScopes.contains("User.Read"))
            #expect(token.expiresOn > Date().addingTimeInterval(600) && token.extendedExpiresOn >= token.expiresOn)
            #expect(try JWT.decodeUnverified(token.accessToken).stringClaim("preferred_username") == Self.adele)
            #expect(try await BrokerDoubleTests.resource(setup, "Bearer \(token.accessToken)") == 200)

            let accounts = try await client.accounts(clientID: Self.clientID, correlationID: correlation, timeout: Self.timeout)
            #expect(accounts.map(\.username) == [Self.adele])
            let silent = try await client.token(
                Self.parameters(account: try #require(accounts.first), hint: nil), interactive: false, correlationID: correlation,
                timeout: Self.timeout)
            #expect(silent.account == token.account || silent.account.homeAccountID == token.account.homeAccountID)

            try await client.removeAccount(
                try #require(accounts.first), clientID: Self.clientID, correlationID: correlation, timeout: Self.timeout)
            #expect(try await client.accounts(clientID: Self.clientID, correlationID: correlation, timeout: Self.timeout).isEmpty)
            // What the broker received is what the runtime sends: protocol 0.0, our correlation id.
            let recorded = try #require(setup.broker.calls.last { $0.method == .acquireTokenInteractively })
            #expect(recorded.protocolVersion == "0.0" && recorded.correlationID == correlation.uuidString.lowercased())
        }
    }

    @Test(
        "MSAL's PoP through the broker: the answer is the signed HTTP request for the resource request (accessTokenType 1), which the emulator's resource accepts"
    )
    func proofOfPossession() async throws {
        try await BrokerDoubleTests.with { setup in
            try setup.broker.signIn(username: Self.adele)
            let client = BrokerClient(busAddress: setup.bus.address)
            var parameters = Self.parameters()
            parameters.proofOfPossession = .init(
                httpMethod: "GET", host: "127.0.0.1:\(setup.emulator.port)", path: "/resource/me", nonce: UUID().uuidString)
            let token = try await client.token(parameters, interactive: false, correlationID: UUID(), timeout: Self.timeout)
            #expect(token.isProofOfPossession)
            #expect(try await BrokerDoubleTests.resource(setup, "PoP \(token.accessToken)") == 200)
        }
    }

    @Test(
        "The broker's errors by status: user cancel → userCanceled, busy → serverError, device not registered (17) → workplaceJoinRequired, no network (3) → networkFailure, an unknown status → internalErrorBrokerUnknown, incorrect configuration (an unknown client) → internalErrorInvalidParameter; a D-Bus error → internalErrorBrokerUnknown; no answer → internalErrorBrokerResponseNotReceived at the deadline; an answer that is not JSON → internalErrorBrokerCorruptedResponse"
    )
    func errors() async throws {
        try await BrokerDoubleTests.with { setup in
            try setup.broker.signIn(username: Self.adele)
            let client = BrokerClient(busAddress: setup.bus.address)
            func silentFailure(_ fault: MSALEmulator.Broker.Fault, timeout: Duration = Self.timeout) async -> MSALFailure? {
                setup.broker.inject(fault, for: .acquireTokenSilently)
                return await Self.failure {
                    try await client.token(Self.parameters(), interactive: false, correlationID: UUID(), timeout: timeout)
                }
            }
            #expect(await silentFailure(.userCanceled)?.code == .userCanceled)
            let busy = await silentFailure(.busy)
            #expect(
                busy?.code == .internal && busy?.internalCode == MSALInternalError(rawValue: MSALError.serverError.rawValue),
                "\(String(describing: busy))")
            #expect(await silentFailure(.error(status: 17, context: "register the device"))?.code == .workplaceJoinRequired)
            #expect(await silentFailure(.error(status: 3, context: "offline"))?.internalCode == .networkFailure)
            let unknown = await silentFailure(.error(status: 99, context: "what?"))
            #expect(unknown?.internalCode == .internalErrorBrokerUnknown && unknown?.message.contains("what?") == true)
            #expect(await silentFailure(.dbusError(name: "com.microsoft.identity.Error.Busy"))?.internalCode == .internalErrorBrokerUnknown)
            let started = ContinuousClock.now
            let silence = await silentFailure(.neverAnswers, timeout: .milliseconds(500))
            #expect(silence?.internalCode == .internalErrorBrokerResponseNotReceived, "\(String(describing: silence))")
            #expect(ContinuousClock.now - started < .seconds(15))
            #expect(await silentFailure(.malformedAnswer)?.internalCode == .internalErrorBrokerCorruptedResponse)

            var stranger = Self.parameters()
            stranger.clientID = "00000000-0000-0000-0000-00000000dead"
            let refused = await Self.failure {
                try await client.token(stranger, interactive: true, correlationID: UUID(), timeout: Self.timeout)
            }
            #expect(refused?.internalCode == .internalErrorInvalidParameter && refused?.message.contains("AADSTS700016") == true)
        }
    }

    @Test(
        "No broker: nothing owns the name, or no bus at that address → internalBrokerNotAvailable (the cue to fall back to the browser); a broker that leaves the bus mid-call → internalErrorBrokerResponseNotReceived, not a hang"
    )
    func noBroker() async throws {
        try await PrivateBus.with { bus in
            let client = BrokerClient(busAddress: bus.address)
            let absent = await Self.failure {
                try await client.accounts(clientID: Self.clientID, correlationID: UUID(), timeout: Self.timeout)
            }
            #expect(absent?.internalCode == .internalBrokerNotAvailable, "\(String(describing: absent))")

            let emulator = try MSALEmulator(configuration: .sample)
            let broker = try emulator.startBroker(busAddress: bus.address)
            broker.inject(.neverAnswers, for: .acquireTokenSilently)
            try broker.signIn(username: Self.adele)
            async let waiting = Self.failure {
                try await client.token(Self.parameters(), interactive: false, correlationID: UUID(), timeout: .seconds(30))
            }
            try await Task.sleep(for: .milliseconds(400))
            let started = ContinuousClock.now
            await PrivateBus.offCooperativePool { broker.stop() }
            let left = await waiting
            #expect(left?.internalCode == .internalErrorBrokerResponseNotReceived, "\(String(describing: left))")
            #expect(ContinuousClock.now - started < .seconds(20), "before the call's 30 s deadline")
        }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("msal-no-bus-\(UUID().uuidString)").path
        let noBus = await Self.failure {
            try await BrokerClient(busAddress: "unix:path=\(missing)").accounts(
                clientID: Self.clientID, correlationID: UUID(), timeout: Self.timeout)
        }
        #expect(noBus?.internalCode == .internalBrokerNotAvailable)
    }

    /// A broker of the test's own answering `method` with `answer` (any other method: `{}`).
    static func withScriptedBroker(_ answers: [String: String], _ body: (BrokerClient) async throws -> Void) async throws {
        try await PrivateBus.with { bus in
            let service = try DBusService(address: bus.address, name: BrokerClient.busName) { call in
                .strings([answers[call.member ?? ""] ?? "{}"])
            }
            defer { service.stop() }
            try await body(BrokerClient(busAddress: bus.address))
        }
    }

    /// A token answer for `audience` and `account`, as the double would send.
    static func tokenAnswer(
        audience: String, homeAccountID: String, members: [String: Any] = [:], dropping: Set<String> = []
    ) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"aud":"\#(audience)","preferred_username":"\#(adele)"}"#.utf8))
        var response: [String: Any] = [
            "accessToken": "at", "accessTokenType": 0, "clientInfo": "ci", "expiresOn": 4_102_444_800_000,
            "extendedExpiresOn": 4_102_444_800_000, "idToken": "\(header).\(claims).c2ln", "grantedScopes": "User.Read",
            "account": ["homeAccountId": homeAccountID, "environment": "login.microsoftonline.com", "username": adele],
        ]
        for (name, value) in members { response[name] = value }
        for name in dropping { response[name] = nil }
        return String(decoding: try JSONSerialization.data(withJSONObject: ["brokerTokenResponse": response]), as: UTF8.self)
    }

    @Test(
        "Answers that must not be taken, each internalErrorBrokerCorruptedResponse or internalErrorMismatchedUser: tokens for another client (the ID token's aud), for another account than the one asked for, a missing member, a wrong accessTokenType, an ID token that is not a JWT, an accounts answer without its array, two strings instead of one"
    )
    func misbehavingBroker() async throws {
        let home = "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a.\(MSALEmulator.Configuration.sampleContosoTenantID)"
        let account = try #require(
            BrokerAccount(
                try JSONDocument(
                    parsing: Array(
                        #"{"homeAccountId":"\#(home)","environment":"login.microsoftonline.com","username":"\#(Self.adele)"}"#.utf8),
                    limits: .document
                ).root))
        let cases: [(answer: String, account: BrokerAccount?, expected: MSALInternalError)] = [
            (try Self.tokenAnswer(audience: "another-client", homeAccountID: home), nil, .internalErrorMismatchedUser),
            (try Self.tokenAnswer(audience: Self.clientID, homeAccountID: "other.tenant"), account, .internalErrorMismatchedUser),
            (
                try Self.tokenAnswer(audience: Self.clientID, homeAccountID: home, dropping: ["idToken"]), nil,
                .internalErrorBrokerCorruptedResponse
            ),
            (
                try Self.tokenAnswer(audience: Self.clientID, homeAccountID: home, dropping: ["account"]), nil,
                .internalErrorBrokerCorruptedResponse
            ),
            (
                try Self.tokenAnswer(audience: Self.clientID, homeAccountID: home, members: ["accessTokenType": 7]), nil,
                .internalErrorBrokerCorruptedResponse
            ),
            (
                try Self.tokenAnswer(audience: Self.clientID, homeAccountID: home, members: ["idToken": "not a jwt"]), nil,
                .internalErrorBrokerCorruptedResponse
            ),
            (try Self.tokenAnswer(audience: Self.clientID, homeAccountID: "no-dot"), nil, .internalErrorBrokerCorruptedResponse),
            (#"["an array"]"#, nil, .internalErrorBrokerCorruptedResponse),
            (#"{"brokerTokenResponse": "a string"}"#, nil, .internalErrorBrokerCorruptedResponse),
        ]
        for (answer, expectedAccount, expected) in cases {
            try await Self.withScriptedBroker(["acquireTokenSilently": answer]) { client in
                let failure = await Self.failure {
                    try await client.token(
                        Self.parameters(account: expectedAccount), interactive: false, correlationID: UUID(), timeout: Self.timeout)
                }
                #expect(failure?.internalCode == expected, "\(answer.prefix(120)): \(String(describing: failure))")
            }
        }
        // The same well-formed answer is taken.
        try await Self.withScriptedBroker(["acquireTokenSilently": try Self.tokenAnswer(audience: Self.clientID, homeAccountID: home)]) {
            client in
            let token = try await client.token(
                Self.parameters(account: account), interactive: false, correlationID: UUID(), timeout: Self.timeout)
            #expect(token.accessToken == "at" && token.account.username == Self.adele)
        }
        try await Self.withScriptedBroker(["getAccounts": #"{"accounts": "none"}"#]) { client in
            let failure = await Self.failure {
                try await client.accounts(clientID: Self.clientID, correlationID: UUID(), timeout: Self.timeout)
            }
            #expect(failure?.internalCode == .internalErrorBrokerCorruptedResponse)
        }
    }

    @Test(
        "D-Bus failures as MSALFailures: the bus could not start the broker (Spawn.*), an unknown method or object (an older broker) → internalBrokerNotAvailable; another D-Bus error → internalErrorBrokerUnknown; no reply → internalErrorBrokerResponseNotReceived"
    )
    func dbusFailures() {
        func code(_ name: String) -> MSALInternalError? {
            BrokerClient.failure(DBusFailure.named(name, "m"), method: .getAccounts, correlationID: UUID()).internalCode
        }
        #expect(code("org.freedesktop.DBus.Error.Spawn.ChildExited") == .internalBrokerNotAvailable)
        #expect(code("org.freedesktop.DBus.Error.Spawn.ExecFailed") == .internalBrokerNotAvailable)
        #expect(code("org.freedesktop.DBus.Error.UnknownMethod") == .internalBrokerNotAvailable)
        #expect(code("org.freedesktop.DBus.Error.UnknownObject") == .internalBrokerNotAvailable)
        #expect(code("org.freedesktop.DBus.Error.ServiceUnknown") == .internalBrokerNotAvailable)
        #expect(code("com.example.Failed") == .internalErrorBrokerUnknown)
        #expect(code("org.freedesktop.DBus.Error.NoReply") == .internalErrorBrokerResponseNotReceived)
    }

    @Test("Every status number has the runtime's name; numbers past 21 and negative ones are Unexpected")
    func statusNames() {
        #expect(BrokerStatus.name(2) == "InteractionRequired" && BrokerStatus.name(15) == "TransientError")
        #expect(BrokerStatus.name(17) == "DeviceNotRegistered" && BrokerStatus.name(21) == "FallbackToNativeMsal")
        #expect(BrokerStatus.name(22) == "Unexpected" && BrokerStatus.name(-1) == "Unexpected")
        #expect(BrokerStatus.names.count == 22)
    }
}
