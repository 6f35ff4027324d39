import Foundation
import MSAL
import MSALEmulator
import Testing

/// The memo of `acquireTokenForClient` cache hits (`AppTokenMemo`) against the emulator: a
/// remembered answer is exactly what the cache lookup would give, per request, and never outlives
/// a change of the cache, the token's expiry buffer or its `refresh_on`.
@Suite("Confidential client: remembered app-token hits")
struct AppTokenMemoTests {
    typealias Grant = ClientCredentialsGrantTests
    typealias Client = ConfidentialClientTests

    static let graph = Client.graphDefault

    @Test("Repeated hits: one token request, each result with its own correlation id and the request's authority object")
    func repeatedHits() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Client.application(harness)
            let first = try await app.acquireTokenForClient(scopes: [Self.graph])
            #expect(first.tokenSource == .identityProvider)
            let looked = try await app.acquireTokenForClient(scopes: [Self.graph])
            #expect(looked.tokenSource == .cache)
            #expect(app.client.appTokenHits.count == 1)

            var correlationIDs: Set<UUID> = [first.correlationId, looked.correlationId]
            for _ in 0..<20 {
                let hit = try await app.acquireTokenForClient(scopes: [Self.graph])
                #expect(hit.tokenSource == .cache)
                #expect(hit.accessToken == first.accessToken)
                #expect(hit.expiresOn == first.expiresOn)
                #expect(hit.scopes == [Self.graph])
                #expect(hit.tenantProfile.tenantId == EmulatorHarness.contoso)
                #expect(hit.account.identifier == nil)
                correlationIDs.insert(hit.correlationId)
            }
            #expect(correlationIDs.count == 22, "a new correlation id for every request")

            // A correlation id the caller sets is the one reported.
            let parameters = MSALClientCredentialParameters(scopes: [Self.graph])
            let chosen = UUID()
            parameters.correlationId = chosen
            let authority = try harness.authority(EmulatorHarness.contoso)
            parameters.authority = authority
            let named = try await app.acquireTokenForClient(with: parameters)
            #expect(named.tokenSource == .cache)
            #expect(named.correlationId == chosen)
            #expect(named.authority === authority, "the request's own authority object, not the one remembered")
            #expect(app.client.appTokenHits.count == 1, "an equal authority object shares the remembered answer")
            #expect(ConfidentialClientTests.grants(harness) == 1)
        }
    }

    @Test("Keys: equal authorities and scopes are one key; other scopes, tenants or kinds are not")
    func keys() throws {
        func aad(_ tenant: String) throws -> MSALAuthority {
            try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!)
        }
        let contoso = try aad("contoso.onmicrosoft.com")
        let key = AppTokenHitKey(authority: contoso, scopes: ["a"])
        for equal in [try aad("contoso.onmicrosoft.com"), try aad("Contoso.onmicrosoft.com")] {
            // The tenant is canonical (lower-cased), as the lookup reads it.
            #expect(equal.tenant == contoso.tenant)
            #expect(AppTokenHitKey(authority: equal, scopes: ["a"]) == key)
            #expect(AppTokenHitKey(authority: equal, scopes: ["a"]).hashValue == key.hashValue)
        }
        #expect(AppTokenHitKey(authority: contoso, scopes: ["A"]) != key)
        #expect(AppTokenHitKey(authority: contoso, scopes: ["a", "b"]) != key)
        #expect(AppTokenHitKey(authority: try aad("fabrikam.onmicrosoft.com"), scopes: ["a"]) != key)
        let b2c = try MSALB2CAuthority(url: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin")!)
        #expect(AppTokenHitKey(authority: b2c, scopes: ["a"]) != key)
    }

    @Test("The memo itself: answers only for the contents it saw, forgets at capacity, ignores answers from older contents")
    func memoRules() throws {
        let memo = CacheHitMemo<AppTokenHitKey>()
        var contents = TokenCacheContents()
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com")!)
        func result(_ token: String) -> MSALResult {
            MSALResult(
                accessToken: token, expiresOn: nil, idToken: nil, scopes: ["s"],
                tenantProfile: MSALTenantProfile(identifier: "", environment: "e", tenantId: "t", isHomeTenantProfile: false, idToken: nil),
                account: MSALAccount(application: "e"), authority: authority, correlationId: UUID(), tokenSource: .cache)
        }
        let key = AppTokenHitKey(authority: authority, scopes: ["s"])
        // Expiring at 400 with a 300 s buffer: usable until 100 (exclusive).
        func remember(_ token: String, _ key: AppTokenHitKey, seen: TokenCacheContents.Version, refreshOn: Int64? = nil, now: Int64 = 1) {
            memo.remember(result(token), for: key, seen: seen, expiresOn: 400, refreshOn: refreshOn, expiryBuffer: 300, now: now)
        }
        remember("one", key, seen: contents.version)
        #expect(memo.result(for: key, contents: contents, now: 99)?.accessToken == "one")
        #expect(memo.result(for: key, contents: contents, now: 100) == nil, "usable until 100, exclusive")
        #expect(memo.count == 0, "an expired answer is dropped")
        remember("early", key, seen: contents.version, refreshOn: 50)
        #expect(memo.result(for: key, contents: contents, now: 49)?.accessToken == "early")
        #expect(memo.result(for: key, contents: contents, now: 50) == nil, "refresh_on comes first")
        remember("late", key, seen: contents.version, now: 100)
        #expect(memo.count == 0, "an answer already unusable is not kept")

        remember("one", key, seen: contents.version)
        let older = contents.version
        contents.upsert(CacheEntry(), key: "k", in: .accessToken)
        #expect(memo.result(for: key, contents: contents, now: 1) == nil, "the contents changed")
        #expect(memo.count == 0)
        // An answer looked up in the older revision, arriving late, is not kept.
        remember("two", key, seen: contents.version)
        remember("old", key, seen: older)
        #expect(memo.result(for: key, contents: contents, now: 1)?.accessToken == "two")
        // Other contents (another lineage) never answer.
        #expect(memo.result(for: key, contents: TokenCacheContents(), now: 1) == nil)

        remember("two", key, seen: contents.version)
        for index in 0..<CacheHitMemoLimits.capacity {
            remember("\(index)", AppTokenHitKey(authority: authority, scopes: ["s\(index)"]), seen: contents.version)
            #expect(memo.count <= CacheHitMemoLimits.capacity)
        }
        #expect(memo.count < CacheHitMemoLimits.capacity, "full: everything was forgotten once")
        let last = AppTokenHitKey(authority: authority, scopes: ["s\(CacheHitMemoLimits.capacity - 1)"])
        #expect(memo.result(for: last, contents: contents, now: 1)?.accessToken == "\(CacheHitMemoLimits.capacity - 1)")
        memo.forgetAll()
        #expect(memo.count == 0)
        #expect(memo.result(for: last, contents: contents, now: 1) == nil)
    }

    @Test("Within the expiry buffer and past refresh_on, a remembered hit is not given: the token endpoint is asked")
    func expiryAndRefreshOn() async throws {
        var configuration = Grant.configuration
        configuration.lifetimes.appTokenRefreshIn = 1200
        try await EmulatorHarness.with(configuration) { harness in
            let app = try Client.application(harness)
            let first = try await app.acquireTokenForClient(scopes: [Self.graph])
            #expect(try await app.acquireTokenForClient(scopes: [Self.graph]).tokenSource == .cache)
            // The emulator's clock also runs with the wall clock: margins of 30 s for a loaded machine.
            harness.emulator.advanceClock(by: 1170)
            #expect(try await app.acquireTokenForClient(scopes: [Self.graph]).tokenSource == .cache, "before refresh_on")
            harness.emulator.advanceClock(by: 31)
            let refreshed = try await app.acquireTokenForClient(scopes: [Self.graph])
            #expect(refreshed.tokenSource == .identityProvider, "past refresh_on")
            #expect(refreshed.accessToken != first.accessToken)
            #expect(ConfidentialClientTests.grants(harness) == 2)
        }
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Client.application(harness)
            let first = try await app.acquireTokenForClient(scopes: [Self.graph])
            let lifetime = try #require(first.expiresOn).timeIntervalSince(harness.emulator.now)
            #expect(try await app.acquireTokenForClient(scopes: [Self.graph]).tokenSource == .cache)
            // Outside the 5-minute buffer, then inside it.
            harness.emulator.advanceClock(by: lifetime - 330)
            #expect(try await app.acquireTokenForClient(scopes: [Self.graph]).tokenSource == .cache)
            harness.emulator.advanceClock(by: 31)
            let replaced = try await app.acquireTokenForClient(scopes: [Self.graph])
            #expect(replaced.tokenSource == .identityProvider)
            #expect(replaced.accessToken != first.accessToken)
            #expect(ConfidentialClientTests.grants(harness) == 2)
        }
    }

    @Test("A token removed from the cache, or replaced by a forced request, is never answered from memory")
    func cacheChanges() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Client.application(harness)
            let first = try await app.acquireTokenForClient(scopes: [Self.graph])
            #expect(try await app.acquireTokenForClient(scopes: [Self.graph]).accessToken == first.accessToken)

            let removed = try await app.cache.write(clientID: "") { contents -> Int in
                var count = 0
                for key in contents.document[.accessToken].keys where contents.remove(key: key, from: .accessToken) != nil { count += 1 }
                return count
            }
            #expect(removed == 1)
            let afterRemoval = try await app.acquireTokenForClient(scopes: [Self.graph])
            #expect(afterRemoval.tokenSource == .identityProvider)
            #expect(afterRemoval.accessToken != first.accessToken)
            #expect(try await app.acquireTokenForClient(scopes: [Self.graph]).accessToken == afterRemoval.accessToken)

            let parameters = MSALClientCredentialParameters(scopes: [Self.graph])
            parameters.forceRefresh = true
            let forced = try await app.acquireTokenForClient(with: parameters)
            #expect(forced.tokenSource == .identityProvider)
            let next = try await app.acquireTokenForClient(scopes: [Self.graph])
            #expect(next.tokenSource == .cache)
            #expect(next.accessToken == forced.accessToken)
            #expect(ConfidentialClientTests.grants(harness) == 3)
        }
    }

    @Test("A cache file another application rewrote: its token is answered, not the one this application remembered")
    func sharedFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-memo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = MSALCacheConfig(storage: .file(path: folder.appendingPathComponent("cache.json").path))
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let one = try Client.application(harness, cache: cache)
            let other = try Client.application(harness, cache: cache)
            let first = try await one.acquireTokenForClient(scopes: [Self.graph])
            for _ in 0..<3 { #expect(try await one.acquireTokenForClient(scopes: [Self.graph]).accessToken == first.accessToken) }
            #expect(one.client.appTokenHits.count == 1)

            let parameters = MSALClientCredentialParameters(scopes: [Self.graph])
            parameters.forceRefresh = true
            let forced = try await other.acquireTokenForClient(with: parameters)
            #expect(forced.accessToken != first.accessToken)
            let seen = try await one.acquireTokenForClient(scopes: [Self.graph])
            #expect(seen.tokenSource == .cache)
            #expect(seen.accessToken == forced.accessToken)
            #expect(ConfidentialClientTests.grants(harness) == 2)
        }
    }

    @Test("Many tasks asking while another forces new tokens: every answer is a token the service issued, the last one wins")
    func concurrentHitsAndRefreshes() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let app = try Client.application(harness)
            let first = try await app.acquireTokenForClient(scopes: [Self.graph])
            let seen = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var tokens: [String] = []
                        for _ in 0..<200 { tokens.append(try await app.acquireTokenForClient(scopes: [Self.graph]).accessToken) }
                        return tokens
                    }
                }
                group.addTask {
                    var issued: [String] = []
                    let parameters = MSALClientCredentialParameters(scopes: [Self.graph])
                    parameters.forceRefresh = true
                    for _ in 0..<5 { issued.append(try await app.acquireTokenForClient(with: parameters).accessToken) }
                    return ["issued"] + issued
                }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            let issued = try #require(seen.first { $0.first == "issued" }).dropFirst()
            let valid = Set([first.accessToken] + issued)
            for tokens in seen where tokens.first != "issued" {
                #expect(tokens.allSatisfy { valid.contains($0) })
            }
            #expect(try await app.acquireTokenForClient(scopes: [Self.graph]).accessToken == issued.last)
            #expect(ConfidentialClientTests.grants(harness) == 6)
        }
    }
}
