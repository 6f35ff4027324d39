import Foundation
import MSALSupport
import Testing

@testable import MSALDBus

/// Microsoft's own broker client against a ``DBusService`` of ours that owns the broker's bus name
/// on a private bus: MSAL for Python 1.39 with pymsalruntime 0.20.7 (Microsoft's closed runtime),
/// driven by `Tests/Interop/broker/runtime_client.py`, with the answers of
/// `Tests/Interop/broker/make_answers.py`. The runtime accepts our service (its start-up ping, its
/// calls and our answers) and sends the requests `docs/broker.md` records. The groundwork of the
/// broker double (issue 41): the answers here are canned, not yet the local provider's.
@Suite("Microsoft's broker runtime against our D-Bus service", .serialized)
struct RuntimeInteropTests {
    static let packageRoot = GDBusInteropTests.packageRoot
    /// `.build/broker-venv`'s Python: msal 1.39 and pymsalruntime 0.20.7 (`scripts/setup.sh`).
    static let python = packageRoot.appendingPathComponent(".build/broker-venv/bin/python").path
    static let tools = packageRoot.appendingPathComponent("Tests/Interop/broker")

    static let busName = "com.microsoft.identity.broker1"
    static let objectPath = "/com/microsoft/identity/broker1"
    static let interface = "com.microsoft.identity.Broker1"

    /// What one run showed: the client's result lines and the calls the service received.
    struct Run {
        var results: [String: [String: Any]]
        var calls: [DBusService.Call]
        var standardError: String

        /// The request JSON of the first call to `method`.
        func request(_ method: String) throws -> [String: Any] {
            let call = try #require(calls.first { $0.member == method }, "no \(method) call in \(calls.map { $0.member ?? "?" })")
            let arguments = try #require(call.arguments)
            try #require(arguments.count == 3)
            return try #require(try JSONSerialization.jsonObject(with: Data(arguments[2].utf8)) as? [String: Any])
        }
    }

    /// Runs `runtime_client.py step` against a service answering `scenario`'s answers.
    static func run(scenario: String, step: String) async throws -> Run {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw PrivateBus.Failure(description: "\(python) is missing: run `bash scripts/setup.sh` (it makes .build/broker-venv)")
        }
        return try await PrivateBus.with { bus in
            let answersFile = bus.directory.appendingPathComponent("answers.json")
            let made = try await PrivateBus.blocking {
                try ChildProcess.run(
                    python, [tools.appendingPathComponent("make_answers.py").path, scenario, answersFile.path], timeout: 60)
            }
            try #require(made.status == 0, "\(String(decoding: made.standardError, as: UTF8.self))")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: answersFile)) as? [String: Any])
            var answers: [String: String] = [:]
            for (method, answer) in object {
                answers[method] = String(decoding: try JSONSerialization.data(withJSONObject: answer), as: UTF8.self)
            }
            let fixed = answers
            let calls = DBusConnectionTests.Calls()
            let service = try DBusService(address: bus.address, name: busName) { call in
                calls.append(call)
                guard call.path == objectPath, call.interface == interface, let member = call.member, call.arguments?.count == 3 else {
                    return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "not the broker's method")
                }
                return .strings([fixed[member] ?? "{}"])
            }
            defer { service.stop() }
            let (results, standardError) = try await runClient(on: bus, arguments: [step])
            return Run(results: results, calls: calls.all, standardError: standardError)
        }
    }

    /// Runs `runtime_client.py arguments…` against whatever owns the broker's name on `bus`: its
    /// result lines by step, and its standard error.
    static func runClient(on bus: PrivateBus, arguments: [String]) async throws -> (results: [String: [String: Any]], standardError: String)
    {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw PrivateBus.Failure(description: "\(python) is missing: run `bash scripts/setup.sh` (it makes .build/broker-venv)")
        }
        let clientEnvironment = bus.environment
        let client = try await PrivateBus.blocking {
            try ChildProcess.run(
                python, [tools.appendingPathComponent("runtime_client.py").path] + arguments, environment: clientEnvironment, timeout: 120)
        }
        let output = String(decoding: client.standardOutput, as: UTF8.self)
        let standardError = String(decoding: client.standardError, as: UTF8.self)
        try #require(client.status == 0, "runtime_client.py \(arguments) failed: \(standardError.suffix(2000))")
        var results: [String: [String: Any]] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("{") {
            let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            results[result["step"] as? String ?? "?"] = result
        }
        return (results, standardError)
    }

    @Test(
        "A sign-in through our service: the runtime asks for the accounts, then a silent token for the hinted account, and takes our answer (token_source broker); MSAL for Python lists the account and answers silently from its cache"
    )
    func signIn() async throws {
        let run = try await Self.run(scenario: "signed-in", step: "lifecycle")
        let signedIn = try #require(run.results["interactive"], "\(run.results) \(run.standardError.suffix(1000))")
        #expect(signedIn["error"] == nil, "\(signedIn)")
        #expect(signedIn["token_source"] as? String == "broker")
        #expect(signedIn["access_token"] as? String == "access-token-from-the-broker")
        #expect(signedIn["preferred_username"] as? String == "adele@contoso.com")
        let accounts = try #require(run.results["accounts"]?["accounts"] as? [[String: Any]])
        #expect(accounts.first?["account_source"] as? String == "broker")
        #expect(
            accounts.first?["home_account_id"] as? String == "00000000-0000-0000-0000-0000000000a1.72f988bf-86f1-41af-91ab-2d7cd011db47")
        #expect(run.results["silent"]?["token_source"] as? String == "cache")

        #expect(run.calls.compactMap(\.member) == ["getAccounts", "acquireTokenSilently"], "\(run.calls.map { $0.member ?? "?" })")
        #expect(run.calls.allSatisfy { $0.arguments?.first == "0.0" }, "protocol version 0.0")
        #expect(Set(run.calls.compactMap { $0.arguments?[1] }).count == 1, "one correlation id for the sign-in")
        let accountsRequest = try run.request("getAccounts")
        #expect(accountsRequest["clientId"] as? String == "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
        let silent = try #require(try run.request("acquireTokenSilently")["authParameters"] as? [String: Any])
        // `isSignIn` comes only without an account (docs/broker.md); here the hint matched one.
        #expect(silent["isSignIn"] == nil)
        #expect(silent["requestedScopes"] as? [String] == ["User.Read"])
        #expect(silent["authority"] as? String == "https://login.microsoftonline.com/organizations")
        #expect((silent["account"] as? [String: Any])?["username"] as? String == "adele@contoso.com")
        #expect(silent["popParams"] is NSNull)
    }

    @Test(
        "A silent failure (status 2) makes the runtime go on to acquireTokenInteractively with its window handle; a user cancel there (status 7) reaches MSAL for Python as broker_error"
    )
    func userCanceled() async throws {
        let run = try await Self.run(scenario: "user-canceled", step: "interactive")
        #expect(run.calls.compactMap(\.member) == ["getAccounts", "acquireTokenSilently", "acquireTokenInteractively"])
        let interactive = try run.request("acquireTokenInteractively")
        #expect(interactive["parentWindowHandle"] != nil)
        #expect((interactive["authParameters"] as? [String: Any])?["authorizationType"] as? Int == 6)
        let result = try #require(run.results["interactive"])
        #expect(result["error"] as? String == "broker_error")
        let description = result["error_description"] as? String ?? ""
        #expect(description.contains("UserCanceled") && description.contains("the user closed the sign-in window"), "\(description)")
    }

    @Test("MSAL's PoP through our service: the runtime sends popParams for the request and presents our answer as `pop <signed request>`")
    func proofOfPossession() async throws {
        let run = try await Self.run(scenario: "pop", step: "pop")
        let result = try #require(run.results["pop"])
        #expect(result["is_pop"] as? Bool == true, "\(result)")
        #expect((result["authorization_header"] as? String)?.hasPrefix("pop eyJ") == true, "\(result)")
        let parameters = try #require(try run.request("acquireTokenSilently")["authParameters"] as? [String: Any])
        let pop = try #require(parameters["popParams"] as? [String: Any])
        #expect(pop["httpMethod"] as? String == "GET" && pop["uriHost"] as? String == "graph.microsoft.com")
        #expect(pop["uriPath"] as? String == "/v1.0/me" && pop["nonce"] as? String == "nonce-1")
    }
}
