import Foundation
import MSALSupport
import Testing

@testable import MSAL

/// The acquisition driver alone, with a recipe that counts what it is asked: no cache, no sockets.
@Suite("Token acquisition: the driver every flow uses")
struct TokenAcquisitionTests {
    struct Request: TokenAcquisitionRequest {
        var correlationID = UUID()
        var skipsCache = false
        var scheme = TokenScheme.bearer
        var subject = "app"
    }

    /// A recipe whose cache and provider are scripted; it records every call.
    final class Recipe: TokenRecipe {
        struct State {
            /// What the next lookups answer, in order; the last one repeats.
            var cached: [MSALResult?] = [nil]
            var lookups = 0
            var tickets = 0
            var redemptions = 0
            var redeemFails = false
            /// Made to wait before it answers, so concurrent callers meet in its flight.
            var redeemDelay: Duration = .zero
            var recovered: MSALResult?
            var recoveredFrom: [MSALFailure] = []
        }
        let state = Mutex(State())

        var label: String { "Test request" }

        func cachedResult(_ request: Request) async throws -> MSALResult? {
            state.withLock { state in
                state.lookups += 1
                return state.cached.count > 1 ? state.cached.removeFirst() : state.cached[0]
            }
        }

        func flightKey(_ request: Request) -> RefreshFlightKey {
            RefreshFlightKey(
                subject: .application(home: request.subject), scheme: request.scheme, environment: "login.microsoftonline.com",
                realm: "contoso", scopes: ["s"], claims: nil)
        }

        func ticket(_ request: Request) async throws -> Int {
            state.withLock {
                $0.tickets += 1
                return $0.tickets
            }
        }

        func redeem(_ request: Request, ticket: Int) async throws -> MSALResult {
            let (delay, fails) = state.withLock {
                $0.redemptions += 1
                return ($0.redeemDelay, $0.redeemFails)
            }
            try await Task.sleep(for: delay)
            if fails {
                throw MSALFailure(.serverError, internalCode: nil, message: "down", correlationID: request.correlationID)
            }
            return TokenAcquisitionTests.result("new", source: .identityProvider, correlationID: request.correlationID)
        }

        func recover(_ request: Request, from error: MSALFailure, logger: MSALLogger) async -> MSALResult? {
            state.withLock {
                $0.recoveredFrom.append(error)
                return $0.recovered
            }
        }
    }

    static let now = Date(timeIntervalSince1970: 1_700_001_000)

    static func result(_ token: String, source: MSALTokenSource, refreshOn: Date? = nil, correlationID: UUID = UUID()) -> MSALResult {
        MSALResult(
            accessToken: token, expiresOn: now.addingTimeInterval(3600), idToken: nil, scopes: ["s"],
            tenantProfile: MSALTenantProfile(
                identifier: "", environment: "localhost", tenantId: "t", isHomeTenantProfile: false, idToken: nil),
            account: MSALAccount(application: "localhost"), authority: ManagedIdentityFlow.placeholderAuthority,
            correlationId: correlationID, tokenSource: source, refreshOn: refreshOn)
    }

    static func driver(_ recipe: Recipe, clock: ManualClock = ManualClock()) -> TokenAcquisition<Recipe> {
        TokenAcquisition(recipe, flights: RefreshFlights(), clock: clock, logger: MSALLogger())
    }

    @Test("A fresh cached token is the answer: no ticket, no flight, no redemption")
    func freshHit() async throws {
        let recipe = Recipe()
        recipe.state.withLock { $0.cached = [Self.result("cached", source: .cache, refreshOn: Self.now.addingTimeInterval(60))] }
        let answer = try await Self.driver(recipe).run(Request())
        #expect(answer.accessToken == "cached")
        recipe.state.withLock {
            #expect($0.lookups == 1)
            #expect($0.tickets == 0)
            #expect($0.redemptions == 0)
        }
    }

    @Test("Past refresh_on a new token is asked for without looking again; when that fails the cached one is the answer")
    func pastRefreshOn() async throws {
        let recipe = Recipe()
        recipe.state.withLock { $0.cached = [Self.result("cached", source: .cache, refreshOn: Self.now.addingTimeInterval(-1))] }
        let driver = Self.driver(recipe)
        #expect(try await driver.run(Request()).accessToken == "new")
        recipe.state.withLock {
            #expect($0.lookups == 1, "the flight does not look at the cache again")
            #expect($0.redemptions == 1)
            $0.redeemFails = true
        }
        let kept = try await driver.run(Request())
        #expect(kept.accessToken == "cached")
        recipe.state.withLock {
            #expect($0.redemptions == 2)
            #expect($0.recoveredFrom.isEmpty, "a kept token needs no recovery")
        }
    }

    @Test("A request that skips the cache never reads it, before or inside the flight")
    func skipsCache() async throws {
        let recipe = Recipe()
        recipe.state.withLock { $0.cached = [Self.result("cached", source: .cache)] }
        let answer = try await Self.driver(recipe).run(Request(skipsCache: true))
        #expect(answer.accessToken == "new")
        recipe.state.withLock {
            #expect($0.lookups == 0)
            #expect($0.tickets == 1)
            #expect($0.redemptions == 1)
        }
    }

    @Test("On a miss the flight looks once more, and a fresh token stored meanwhile is the answer")
    func recheckInsideFlight() async throws {
        let recipe = Recipe()
        recipe.state.withLock { $0.cached = [nil, Self.result("stored meanwhile", source: .cache)] }
        let request = Request()
        let answer = try await Self.driver(recipe).run(request)
        #expect(answer.accessToken == "stored meanwhile")
        #expect(answer.correlationId == request.correlationID)
        recipe.state.withLock {
            #expect($0.lookups == 2)
            #expect($0.redemptions == 0)
        }
    }

    @Test("Concurrent callers for one token share one redemption, each answered with its own correlation id")
    func sharedFlight() async throws {
        let recipe = Recipe()
        recipe.state.withLock { $0.redeemDelay = .milliseconds(200) }
        let driver = Self.driver(recipe)
        let requests = (0..<8).map { _ in Request() }
        let answers = try await withThrowingTaskGroup(of: (UUID, MSALResult).self) { group in
            for request in requests { group.addTask { (request.correlationID, try await driver.run(request)) } }
            return try await group.reduce(into: [(UUID, MSALResult)]()) { $0.append($1) }
        }
        #expect(answers.count == 8)
        for (id, answer) in answers {
            #expect(answer.correlationId == id)
            #expect(answer.accessToken == "new")
        }
        recipe.state.withLock { #expect($0.redemptions == 1) }
        // Another subject or another scheme is another flight.
        async let first = driver.run(Request(subject: "app"))
        async let second = driver.run(Request(subject: "other"))
        _ = try await (first, second)
        recipe.state.withLock { #expect($0.redemptions == 3) }
    }

    @Test("A failure goes to the recipe's recovery: its answer is returned, else the error with the request's correlation id")
    func recovery() async throws {
        let recipe = Recipe()
        recipe.state.withLock { $0.redeemFails = true }
        let driver = Self.driver(recipe)
        let request = Request()
        let error = await #expect(throws: MSALFailure.self) { try await driver.run(request) }
        #expect(error?.correlationID == request.correlationID)
        #expect(error?.message == "down")
        recipe.state.withLock {
            #expect($0.recoveredFrom.count == 1)
            $0.recovered = Self.result("extended", source: .cache)
        }
        #expect(try await driver.run(Request()).accessToken == "extended")
    }
}
