import Foundation
import MSALSupport
import Testing

@testable import MSAL

@Suite("Authority resolver: concurrent cold resolutions share one request")
struct AuthorityResolverConcurrencyTests {
    static let callers = 1_000

    /// Starts `callers` tasks that each resolve `/common` once they are all running.
    private static func resolveConcurrently(
        _ harness: ResolverHarness, arrivals: ArrivalCounter
    ) async throws -> [Result<MSALAuthorityMetadata, any Error>] {
        let authority = try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
        return await withTaskGroup(of: Result<MSALAuthorityMetadata, any Error>.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    arrivals.arrive()
                    do {
                        return .success(try await harness.resolve(authority))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var results: [Result<MSALAuthorityMetadata, any Error>] = []
            for await result in group { results.append(result) }
            return results
        }
    }

    @Test("1,000 concurrent cold resolutions: one discovery request, one configuration request, equal metadata")
    func thousandCallersShareOneFetch() async throws {
        let arrivals = ArrivalCounter()
        // Every answer is held until all callers have started, then ~50 ms more.
        let transport = ScriptedTransport(gate: { await arrivals.wait(for: Self.callers) })
        let harness = ResolverHarness(transport: transport)
        transport.on(AuthorityURLs.commonDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        transport.on(AuthorityURLs.commonConfiguration, json: try AuthorityFixtures.authority("openid_configuration_common.json"))

        let results = try await Self.resolveConcurrently(harness, arrivals: arrivals)

        #expect(results.count == Self.callers)
        #expect(transport.count(AuthorityURLs.commonDiscovery) == 1)
        #expect(transport.count(AuthorityURLs.commonConfiguration) == 1)
        #expect(transport.totalCount == 2)
        let all = try results.map { try $0.get() }
        let first = try #require(all.first)
        #expect(all.allSatisfy { $0 == first })
        #expect(first.tokenEndpoint.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
    }

    @Test("1,000 concurrent resolutions during a network failure: one request, one typed error, and the next call retries")
    func thousandCallersShareOneFailure() async throws {
        let arrivals = ArrivalCounter()
        let transport = ScriptedTransport(gate: { await arrivals.wait(for: Self.callers) })
        let harness = ResolverHarness(transport: transport)
        transport.on(
            AuthorityURLs.commonDiscovery, .failure(ScriptedNetworkError()),
            .response(MSALHTTPResponse(statusCode: 200, body: try AuthorityFixtures.authority("instance_discovery_common.json"))))
        transport.on(AuthorityURLs.commonConfiguration, json: try AuthorityFixtures.authority("openid_configuration_common.json"))

        let results = try await Self.resolveConcurrently(harness, arrivals: arrivals)

        #expect(results.count == Self.callers)
        #expect(transport.totalCount == 1)
        var messages: Set<String> = []
        for result in results {
            guard case .failure(let error) = result else {
                Issue.record("a caller succeeded during the outage")
                continue
            }
            if let msalError = checkMSALError(
                error, .networkFailure, mentioning: ["login.microsoftonline.com", "scripted connection reset"])
            {
                messages.insert(msalError.message)
                #expect(msalError.correlationID == AuthorityURLs.correlationID)
            }
        }
        #expect(messages.count == 1)

        // Network errors are not cached: the next resolution asks again and succeeds.
        let metadata = try await harness.resolve("https://login.microsoftonline.com/common")
        #expect(metadata.cacheEnvironment == "login.windows.net")
        #expect(transport.count(AuthorityURLs.commonDiscovery) == 2)
        #expect(transport.count(AuthorityURLs.commonConfiguration) == 1)
    }

    @Test("Concurrent resolutions of two tenants on one host: one discovery, one configuration each")
    func differentAuthoritiesResolveSeparately() async throws {
        let harness = ResolverHarness(transport: ScriptedTransport(delay: 0.01))
        harness.transport.on(AuthorityURLs.commonDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(AuthorityURLs.commonConfiguration, json: try AuthorityFixtures.authority("openid_configuration_common.json"))
        harness.transport.on(AuthorityURLs.tenantDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(AuthorityURLs.tenantConfiguration, json: try AuthorityFixtures.authority("openid_configuration_tenant.json"))
        async let common = harness.resolve("https://login.microsoftonline.com/common")
        async let tenant = harness.resolve("https://login.microsoftonline.com/\(AuthorityURLs.tenant)")
        let (a, b) = try await (common, tenant)
        #expect(a.tenant == "common")
        #expect(b.tenant == AuthorityURLs.tenant)
        // Instance discovery is per host: the two tenants of one host share a single answer.
        #expect(harness.transport.count(AuthorityURLs.commonDiscovery) + harness.transport.count(AuthorityURLs.tenantDiscovery) == 1)
        #expect(harness.transport.count(AuthorityURLs.commonConfiguration) == 1)
        #expect(harness.transport.count(AuthorityURLs.tenantConfiguration) == 1)
        #expect(harness.transport.totalCount == 3)
    }
}

@Suite("Single-flight cache")
struct SingleFlightCacheTests {
    @Test("Entries expire by the clock; negative entries are kept for their own lifetime")
    func expiry() async throws {
        let clock = ManualClock(1_000)
        let cache = SingleFlightCache<String, Int, MSALFailure>(capacity: 4, clock: clock)
        let loads = LoadCounter()
        let value = try await cache.value(for: "a") {
            loads.next(); return .init(.success(1), timeToLive: 10)
        }
        #expect(value == 1)
        #expect(cache.storedDate("a") == Date(timeIntervalSince1970: 1_000))
        clock.advance(by: 9)
        _ = try await cache.value(for: "a") {
            loads.next(); return .init(.success(2), timeToLive: 10)
        }
        #expect(loads.count == 1)
        clock.advance(by: 1)
        #expect(cache.cached("a") == nil)
        #expect(
            try await cache.value(for: "a") {
                loads.next(); return .init(.success(3), timeToLive: 10)
            } == 3)
        #expect(loads.count == 2)

        let failure = MSALFailure(.internal, internalCode: .internalErrorFailedAuthorityValidation, message: "no")
        await expectMSALError(.internalErrorFailedAuthorityValidation) {
            _ = try await cache.value(for: "b") {
                loads.next(); return .init(.failure(failure), timeToLive: 5)
            }
        }
        await expectMSALError(.internalErrorFailedAuthorityValidation) {
            _ = try await cache.value(for: "b") {
                loads.next(); return .init(.success(9), timeToLive: 5)
            }
        }
        #expect(loads.count == 3)
        await expectMSALError(.internalErrorFailedAuthorityValidation) {
            _ = try await cache.value(for: "c") {
                loads.next(); return .init(.failure(failure), timeToLive: nil)
            }
        }
        #expect(
            try await cache.value(for: "c") {
                loads.next(); return .init(.success(4), timeToLive: nil)
            } == 4)
        #expect(cache.cached("c") == nil)
        #expect(loads.count == 5)
    }

    @Test("The capacity is respected by evicting the entry that expires first")
    func capacity() async throws {
        let clock = ManualClock(0)
        let cache = SingleFlightCache<Int, Int, MSALFailure>(capacity: 3, clock: clock)
        for key in 0..<3 {
            _ = try await cache.value(for: key) { .init(.success(key), timeToLive: Double(100 + key)) }
        }
        _ = try await cache.value(for: 3) { .init(.success(3), timeToLive: 500) }
        #expect(cache.cached(0) == nil)
        for key in 1...3 {
            #expect((try? cache.cached(key)?.get()) == key)
        }
        cache.remove(2)
        #expect(cache.cached(2) == nil)
        cache.removeAll()
        #expect(cache.cached(3) == nil)
    }
}

/// Counts loader calls.
final class LoadCounter: Sendable {
    private let value = Mutex(0)
    func next() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
