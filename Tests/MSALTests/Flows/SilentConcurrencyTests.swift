import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// Many concurrent `acquireTokenSilent` calls on one application: those that need the same refresh
/// share one token request; different accounts refresh independently.
///
/// The fake token endpoint holds its answer until every other caller has joined the refresh in
/// flight (``RefreshFlights/joinedCount``), so "concurrent" is guaranteed rather than hoped for, and
/// nothing depends on timing. The time limit only stops a broken build from hanging.
@Suite("Silent acquisition: concurrent calls share refreshes", .timeLimit(.minutes(1)))
struct SilentConcurrencyTests {
    static let callers = 1_000

    /// Opens once a condition holds; the token endpoint waits on it.
    final class Gate: Sendable {
        private let condition = Mutex<(@Sendable () -> Bool)?>(nil)

        func open(when condition: @escaping @Sendable () -> Bool) { self.condition.withLock { $0 = condition } }

        func wait() async {
            while !(condition.withLock { $0 }?() ?? false) {
                await Task.yield()
            }
        }
    }

    /// A token endpoint that answers each refresh token with `responses[refreshToken]` once the gate opens.
    static func transport(_ gate: Gate, _ responses: [String: MSALHTTPResponse]) -> FlowTransport {
        FlowTransport(token: { request in
            await gate.wait()
            let form = Dictionary(request.formParameters, uniquingKeysWith: { $1 })
            return responses[form["refresh_token"] ?? ""] ?? .json(400, #"{"error":"invalid_grant"}"#)
        })
    }

    /// Runs `count` silent calls at once and returns their outcomes.
    static func concurrently(
        _ harness: FlowHarness, _ accounts: [TestAccount], count: Int, forceRefresh: Bool = false
    ) async throws -> [(TestAccount, UUID, Result<MSALResult, MSALFailure>)] {
        let resolved = try accounts.map { ($0, try harness.account($0)) }
        return await withTaskGroup(of: (TestAccount, UUID, Result<MSALResult, MSALFailure>).self) { group in
            for index in 0..<count {
                let (account, msalAccount) = resolved[index % resolved.count]
                let app = harness.app
                group.addTask {
                    let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: msalAccount)
                    parameters.forceRefresh = forceRefresh
                    let correlation = UUID()
                    parameters.correlationId = correlation
                    do {
                        return (account, correlation, .success(try await app.acquireTokenSilent(with: parameters)))
                    } catch let error as MSALFailure {
                        return (account, correlation, .failure(error))
                    } catch {
                        return (
                            account, correlation,
                            .failure(MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "\(error)"))
                        )
                    }
                }
            }
            var outcomes: [(TestAccount, UUID, Result<MSALResult, MSALFailure>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    @Test("1,000 concurrent silent calls needing one refresh send exactly one token request, and all get its token")
    func oneRefresh() async throws {
        let gate = Gate()
        let transport = Self.transport(gate, ["rt-1": FlowTokens.success(accessToken: "at-shared", refreshToken: "rt-2")])
        let harness = try FlowHarness(transport)
        try harness.seed(.abe, lifetime: 900)
        let flights = harness.app.client.refreshFlights
        gate.open { flights.joinedCount >= Self.callers - 1 }

        let outcomes = try await Self.concurrently(harness, [.abe], count: Self.callers)

        #expect(transport.tokenRequests.count == 1)
        #expect(flights.joinedCount == Self.callers - 1)
        #expect(flights.count == 0)
        // Discovery, tenant metadata and keys were fetched once too.
        #expect(transport.requests.count == 4)
        #expect(outcomes.count == Self.callers)
        for (_, correlation, outcome) in outcomes {
            let result = try outcome.get()
            #expect(result.accessToken == "at-shared")
            #expect(result.tokenSource == .identityProvider)
            #expect(result.correlationId == correlation)
        }
        #expect(try harness.secrets(.refreshToken) == ["rt-2"])
        #expect(try harness.secrets(.accessToken) == ["at-shared"])
        // Afterwards the token comes from the cache.
        #expect(try await harness.silent(.abe).tokenSource == .cache)
        #expect(transport.tokenRequests.count == 1)
    }

    @Test("1,000 concurrent forceRefresh calls over a valid token send exactly one token request")
    func oneForcedRefresh() async throws {
        let gate = Gate()
        let transport = Self.transport(gate, ["rt-1": FlowTokens.success(accessToken: "at-forced", refreshToken: "rt-2")])
        let harness = try FlowHarness(transport)
        try harness.seed(.abe, lifetime: 4600)
        let flights = harness.app.client.refreshFlights
        gate.open { flights.joinedCount >= Self.callers - 1 }

        let outcomes = try await Self.concurrently(harness, [.abe], count: Self.callers, forceRefresh: true)

        #expect(transport.tokenRequests.count == 1)
        #expect(outcomes.allSatisfy { (try? $0.2.get().accessToken) == "at-forced" })
        #expect(try harness.secrets(.accessToken) == ["at-forced"])
    }

    @Test("Concurrent calls for two accounts refresh independently: one request each, with each account's refresh token")
    func independentAccounts() async throws {
        let gate = Gate()
        let transport = Self.transport(
            gate,
            [
                "rt-abe": FlowTokens.success(accessToken: "at-abe", refreshToken: "rt-abe-2", account: .abe),
                "rt-ben": FlowTokens.success(accessToken: "at-ben", refreshToken: "rt-ben-2", account: .ben),
            ])
        let harness = try FlowHarness(transport)
        try harness.seed(.abe, lifetime: 900, refreshToken: "rt-abe")
        try harness.seed(.ben, accessToken: "at-ben-old", lifetime: 900, refreshToken: "rt-ben")
        let flights = harness.app.client.refreshFlights
        // Both refreshes must be in flight at once for every other caller to have joined one.
        gate.open { flights.joinedCount >= Self.callers - 2 }

        let outcomes = try await Self.concurrently(harness, [.abe, .ben], count: Self.callers)

        let sent = transport.tokenRequests.compactMap { Dictionary($0.formParameters, uniquingKeysWith: { $1 })["refresh_token"] }
        #expect(sent.sorted() == ["rt-abe", "rt-ben"])
        for (account, _, outcome) in outcomes {
            let result = try outcome.get()
            #expect(result.accessToken == (account.uid == TestAccount.abe.uid ? "at-abe" : "at-ben"))
            #expect(result.account.identifier == account.home)
        }
        #expect(try harness.secrets(.refreshToken) == ["rt-abe-2", "rt-ben-2"])
    }

    @Test(
        "1,000 concurrent calls whose shared refresh fails all get interactionRequired from one request; the refresh token is removed once")
    func sharedFailure() async throws {
        let gate = Gate()
        let transport = Self.transport(gate, [:])
        let harness = try FlowHarness(transport)
        try harness.seed(.abe, lifetime: 900)
        let flights = harness.app.client.refreshFlights
        gate.open { flights.joinedCount >= Self.callers - 1 }

        let outcomes = try await Self.concurrently(harness, [.abe], count: Self.callers)

        #expect(transport.tokenRequests.count == 1)
        for (_, _, outcome) in outcomes {
            guard case .failure(let error) = outcome else {
                Issue.record("expected an error")
                continue
            }
            #expect(error.code == .interactionRequired)
            #expect(error.oauthError == "invalid_grant")
        }
        #expect(try harness.secrets(.refreshToken).isEmpty)
    }
}
