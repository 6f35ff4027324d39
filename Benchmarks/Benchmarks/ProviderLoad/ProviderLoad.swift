// Load against the local identity provider (MSALEmulator), in this process, over loopback HTTP:
// N concurrent silent acquisitions with forceRefresh, each for its own account (N refresh_token
// requests per iteration), through the public API with the default URLSession transport; the same
// refresh sent without the SDK (raw URLSession, and the SDK's transport alone) as baselines; and N
// concurrent forced refreshes of one account, which must share one token request.
//
// After every batch the emulator's request log must hold exactly the expected token requests —
// one refresh_token request per account, answered 200, nothing else (no retry, no duplicate
// refresh, no discovery) — or the run stops with a precondition failure.
//
// Metrics: wall clock per iteration (one batch), each call's latency as its task saw it, and
// token requests per second over the batch (gate opening to last result). See README.md.

import Benchmark
import Foundation
import MSAL
import MSALEmulator
import Synchronization

let latencyMetric = BenchmarkMetric.custom("Latency per call (us)", polarity: .prefersSmaller, useScalingFactor: false)
let requestsMetric = BenchmarkMetric.custom("Token requests per second", polarity: .prefersLarger, useScalingFactor: false)

/// Stops the run with `message` on standard error unless `condition` holds (optimized builds drop
/// a precondition's own message).
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard condition() else { fail(message()) }
}

/// Stops the run with `message` on standard error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("ProviderLoad: " + message + "\n").utf8))
    preconditionFailure(message)
}

/// The fixture of a running benchmark, for its teardown (which gets no setup result).
final class FixtureSlot: Sendable {
    private let slot = Mutex<LoadFixture?>(nil)

    func fill(_ fixture: LoadFixture) -> LoadFixture {
        slot.withLock { $0 = fixture }
        return fixture
    }

    func empty() async {
        await slot.withLock { fixture -> LoadFixture? in
            defer { fixture = nil }
            return fixture
        }?.shutdown()
    }
}

/// Stops the run unless the emulator's log since the last clear is exactly one successful
/// refresh_token request per user in `users` — and, with `discovery`, exactly one OpenID
/// configuration and one key-set request besides.
func verifyRefreshRequests(_ emulator: MSALEmulator, users: [Int], _ what: String, discovery: Bool = false, note: String = "") {
    let log = emulator.requests
    let refreshes = log.filter { $0.endpoint == .token }
    let others = log.filter { $0.endpoint != .token }
    let expected = users.map { LoadDirectory.username($0) }.sorted()
    let seen = refreshes.map { $0.username?.lowercased() ?? "-" }.sorted()
    let refreshesOK = refreshes.allSatisfy { $0.grantType == .refreshToken && $0.status == 200 && !$0.faulted }
    let othersOK =
        discovery
        ? others.count == 2 && others.allSatisfy { $0.status == 200 } && Set(others.map(\.endpoint)) == [.openIDConfiguration, .keys]
        : others.isEmpty
    guard refreshes.count == users.count, refreshesOK, seen == expected, othersOK else {
        let summary = log.prefix(20).map { "\($0.method) \($0.path) \($0.grantType?.rawValue ?? "-") \($0.username ?? "-") \($0.status)" }
        fail(
            "\(what): the emulator received \(log.count) requests, expected exactly \(users.count) refresh_token requests"
                + (discovery ? " and one discovery and one key-set request" : "") + ": " + summary.joined(separator: "; ") + note)
    }
}

/// The first forced refreshes after sign-in, all at once: the silent requests use the account's
/// home tenant rather than `common`, so the SDK fetches that tenant's OpenID configuration and keys
/// — once for all of them. Run by each benchmark's setup, so that measured batches start warm.
func coldRefreshes(_ fixture: LoadFixture, accounts: [Int], callers: Int, _ what: String) async {
    fixture.emulator.clearRequestLog()
    _ = await runBatch(callers) { index in
        try await fixture.application.acquireTokenSilent(with: silentParameters(fixture.accounts[accounts[index % accounts.count]]))
    }
    verifyRefreshRequests(fixture.emulator, users: accounts, what + " (first, cold batch)", discovery: true)
    fixture.emulator.clearRequestLog()
}

/// Records a batch's latencies and, for batches of distinct accounts, its token requests per second.
func record<Value>(_ benchmark: Benchmark, _ batch: Batch<Value>, requestsPerSecond: Bool) {
    for value in batch.latencyMicroseconds { benchmark.measurement(latencyMetric, value) }
    if requestsPerSecond { benchmark.measurement(requestsMetric, batch.callsPerSecond) }
}

func configuration(_ metrics: [BenchmarkMetric]) -> Benchmark.Configuration {
    // Whole microseconds throughout: the automatic units would print 12,345 µs as "12 K".
    .init(
        metrics: [.wallClock] + metrics, timeUnits: .microseconds, units: [latencyMetric: .count, requestsMetric: .count],
        warmupIterations: 3, maxDuration: .seconds(5), maxIterations: 2_000)
}

func silentParameters(_ account: MSALAccount) -> MSALSilentTokenParameters {
    let parameters = MSALSilentTokenParameters(scopes: LoadDirectory.scopes, account: account)
    parameters.forceRefresh = true
    return parameters
}

/// N tasks, each `acquireTokenSilent` with `forceRefresh` for its own account.
func forcedRefreshBenchmark(concurrency: Int, cache: LoadFixture.Cache) {
    let slot = FixtureSlot()
    let cacheName = if case .file = cache { "file cache" } else { "memory cache" }
    let name = "SDK forced refresh, \(cacheName), \(concurrency) concurrent accounts"
    Benchmark(
        name, configuration: configuration([latencyMetric, requestsMetric]),
        closure: { (benchmark: Benchmark, fixture: LoadFixture) async in
            for _ in benchmark.scaledIterations {
                fixture.emulator.clearRequestLog()
                benchmark.startMeasurement()
                let batch = await runBatch(concurrency) { index in
                    try await fixture.application.acquireTokenSilent(with: silentParameters(fixture.accounts[index]))
                }
                benchmark.stopMeasurement()
                verifyRefreshRequests(fixture.emulator, users: Array(0..<concurrency), name)
                for (index, result) in batch.results.enumerated() {
                    require(result.tokenSource == .identityProvider, "\(name): call \(index) was answered from \(result.tokenSource)")
                    require(result.account.username == LoadDirectory.username(index), "\(name): call \(index) got another account's token")
                }
                require(Set(batch.results.map(\.accessToken)).count == concurrency, "\(name): two calls got the same access token")
                record(benchmark, batch, requestsPerSecond: true)
            }
        },
        setup: {
            let fixture = slot.fill(try await LoadFixture.start(users: concurrency, cache: cache))
            await coldRefreshes(fixture, accounts: Array(0..<concurrency), callers: concurrency, name)
            return fixture
        },
        teardown: { await slot.empty() })
}

/// N tasks, each `acquireTokenSilent` with `forceRefresh` for the same account and scopes: one
/// token request for all of them, and the same token for every caller.
func singleFlightBenchmark(callers: Int) {
    let slot = FixtureSlot()
    let name = "SDK single-flight, \(callers) concurrent forced refreshes of one account"
    Benchmark(
        name, configuration: configuration([latencyMetric]),
        closure: { (benchmark: Benchmark, fixture: LoadFixture) async in
            for _ in benchmark.scaledIterations {
                fixture.emulator.clearRequestLog()
                benchmark.startMeasurement()
                let batch = await runBatch(callers) { _ in
                    try await fixture.application.acquireTokenSilent(with: silentParameters(fixture.accounts[0]))
                }
                benchmark.stopMeasurement()
                let distinct = Set(batch.results.map(\.accessToken)).count
                verifyRefreshRequests(
                    fixture.emulator, users: [0], name, note: " (\(distinct) distinct access tokens among the \(callers) callers)")
                require(batch.results.allSatisfy { $0.tokenSource == .identityProvider }, "\(name): a call was answered from the cache")
                require(Set(batch.results.map(\.accessToken)).count == 1, "\(name): the callers got different access tokens")
                require(Set(batch.results.map(\.correlationId)).count == callers, "\(name): callers share a correlation id")
                record(benchmark, batch, requestsPerSecond: false)
            }
        },
        setup: {
            let fixture = slot.fill(try await LoadFixture.start(users: 1, cache: .memory))
            await coldRefreshes(fixture, accounts: [0], callers: callers, name)
            return fixture
        },
        teardown: { await slot.empty() })
}

/// What a baseline benchmark runs with.
struct BaselineState: Sendable {
    let fixture: LoadFixture
    let refresh: RawRefresh
}

/// N tasks, each sending user `i`'s refresh request without the SDK.
func baselineBenchmark(concurrency: Int, client: RawRefresh.Client) {
    let slot = FixtureSlot()
    let clientName =
        switch client {
        case .urlSession: "raw URLSession"
        case .curlTransport: "MSALCurlTransport alone"
        case .urlSessionTransport: "MSALURLSessionTransport alone"
        }
    let name = "Baseline \(clientName) refresh POST, \(concurrency) concurrent accounts"
    Benchmark(
        name, configuration: configuration([latencyMetric, requestsMetric]),
        closure: { (benchmark: Benchmark, state: BaselineState) async in
            for _ in benchmark.scaledIterations {
                state.fixture.emulator.clearRequestLog()
                benchmark.startMeasurement()
                let batch = await runBatch(concurrency) { index in try await state.refresh.refresh(index) }
                benchmark.stopMeasurement()
                verifyRefreshRequests(state.fixture.emulator, users: Array(0..<concurrency), name)
                record(benchmark, batch, requestsPerSecond: true)
            }
        },
        setup: {
            let fixture = slot.fill(try await LoadFixture.start(users: concurrency, cache: .memory))
            let tokens = try await fixture.separateRefreshTokens()
            return BaselineState(
                fixture: fixture, refresh: RawRefresh(client: client, endpoint: fixture.tokenEndpoint, refreshTokens: tokens))
        },
        teardown: { await slot.empty() })
}

let benchmarks: @Sendable () -> Void = {
    for concurrency in [1, 8, 64] {
        forcedRefreshBenchmark(concurrency: concurrency, cache: .memory)
        forcedRefreshBenchmark(concurrency: concurrency, cache: .file)
        baselineBenchmark(concurrency: concurrency, client: .urlSession)
        baselineBenchmark(concurrency: concurrency, client: .curlTransport)
        baselineBenchmark(concurrency: concurrency, client: .urlSessionTransport)
    }
    for callers in [8, 64] {
        singleFlightBenchmark(callers: callers)
    }
}
