import Foundation
import Testing

@testable import MSAL

/// The memo of `acquireTokenSilent` cache hits (``CacheHitMemo`` with ``SilentHitKey``): a
/// remembered answer is exactly what the cache lookup would give, per request, and never outlives a
/// change of the cache, the token's expiry buffer or its `refresh_on`.
@Suite("Silent acquisition: remembered cache hits")
struct SilentHitMemoTests {
    @Test("Repeated hits: no request, each result with its own correlation id, the request's account and authority objects")
    func repeatedHits() async throws {
        let harness = try FlowHarness(FlowTransport([]))
        try harness.seed(.abe)
        let account = try harness.account(.abe)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        let first = try await harness.app.acquireTokenSilent(with: parameters)
        #expect(first.tokenSource == .cache)
        #expect(harness.app.client.silentHits.count == 1)
        var correlationIDs: Set<UUID> = [first.correlationId]
        for _ in 0..<20 {
            let hit = try await harness.app.acquireTokenSilent(with: parameters)
            #expect(hit.accessToken == "at-cached")
            #expect(hit.tokenSource == .cache)
            #expect(hit.account === account)
            #expect(hit.authority === first.authority, "the authority derived for the account, as the lookup gives it")
            #expect(hit.tenantProfile.tenantId == first.tenantProfile.tenantId)
            #expect(hit.idToken == first.idToken)
            #expect(hit.expiresOn == first.expiresOn)
            #expect(hit.scopes == first.scopes)
            correlationIDs.insert(hit.correlationId)
        }
        #expect(correlationIDs.count == 21)

        let chosen = UUID()
        parameters.correlationId = chosen
        let authority = try MSALAuthority.authority(url: URL(string: "https://login.microsoftonline.com/\(FlowIdentity.tenant)")!)
        parameters.authority = authority
        let named = try await harness.app.acquireTokenSilent(with: parameters)
        #expect(named.correlationId == chosen)
        #expect(named.authority === authority)
        #expect(try await harness.app.acquireTokenSilent(with: parameters).authority === authority)
        #expect(harness.app.client.silentHits.count == 2, "another authority is another key")
        #expect(harness.transport.requests.isEmpty)
    }

    @Test("Keys: the account object itself, the authority named (or none) and the scopes as given")
    func keys() throws {
        let harness = try FlowHarness(FlowTransport([]))
        try harness.seed(.abe)
        let account = try harness.account(.abe)
        let authority = try MSALAuthority.authority(url: URL(string: "https://login.microsoftonline.com/\(FlowIdentity.tenant)")!)
        let same = try MSALAuthority.authority(url: URL(string: "https://login.microsoftonline.com/\(FlowIdentity.tenant)")!)
        let key = SilentHitKey(account: account, authority: authority, scopes: ["User.Read"])
        #expect(SilentHitKey(account: account, authority: same, scopes: ["User.Read"]) == key)
        #expect(SilentHitKey(account: account, authority: same, scopes: ["User.Read"]).hashValue == key.hashValue)
        #expect(SilentHitKey(account: account, authority: nil, scopes: ["User.Read"]) != key)
        #expect(SilentHitKey(account: account, authority: authority, scopes: ["user.read"]) != key)
        let twin = MSALAccount(
            identifier: try #require(account.identifier), username: account.username, environment: account.environment,
            tenantProfiles: account.tenantProfiles ?? [], homeAccountId: try #require(account.homeAccountId))
        #expect(SilentHitKey(account: twin, authority: authority, scopes: ["User.Read"]) != key, "another object, another key")
    }

    @Test("Past refresh_on and within the expiry buffer a remembered hit is not given: the refresh token is redeemed")
    func refreshOnAndExpiry() async throws {
        let transport = FlowTransport([
            .respond(FlowTokens.success(accessToken: "at-2", refreshToken: "rt-2")),
            // Its ID token still valid an hour later.
            .respond(
                FlowTokens.success(
                    accessToken: "at-3", refreshToken: "rt-3",
                    idToken: FlowTokens.idToken(.abe, ["exp": .integer(FlowIdentity.issued + 100_000)]))),
        ])
        let harness = try FlowHarness(transport)
        // Seeded at FlowIdentity.issued, 1,000 s before the harness's now; refresh_on 100 s after now.
        try harness.seed(.abe, refreshIn: Int64(FlowIdentity.now) - FlowIdentity.issued + 100)
        let account = try harness.account(.abe)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-cached")
        harness.clock.advance(by: 99)
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-cached", "a second before refresh_on")
        harness.clock.advance(by: 1)
        let refreshed = try await harness.app.acquireTokenSilent(with: parameters)
        #expect(refreshed.accessToken == "at-2")
        #expect(refreshed.tokenSource == .identityProvider)
        #expect(transport.tokenRequests.count == 1)
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-2")
        // The new token lives FlowTokens.success's lifetime; once within 300 s of its expiry, refreshed.
        let expiresOn = try #require(refreshed.expiresOn)
        harness.clock.advance(by: expiresOn.timeIntervalSince(harness.clock.now()) - 301)
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-2")
        harness.clock.advance(by: 1)
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-3")
        #expect(transport.tokenRequests.count == 2)
    }

    @Test("A token stored over the remembered one is answered; a removed account is never answered from memory")
    func cacheChanges() async throws {
        let harness = try FlowHarness(FlowTransport([]))
        try harness.seed(.abe)
        let account = try harness.account(.abe)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-cached")
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-cached")
        try harness.seed(.abe, accessToken: "at-stored")
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-stored")
        #expect(try await harness.app.acquireTokenSilent(with: parameters).accessToken == "at-stored")
        try harness.app.remove(account)
        #expect(harness.app.client.silentHits.count == 0, "signing out forgets the remembered hits at once")
        let error = await expectMSALError { try await harness.app.acquireTokenSilent(with: parameters) }
        #expect(error?.code == .interactionRequired, "\(error.map { "\($0)" } ?? "no error")")
        #expect(harness.app.client.silentHits.count == 0)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test("A cache file another application rewrote: its token is answered, not the one remembered")
    func sharedFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-silent-memo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = MSALCacheConfig(storage: .file(path: folder.appendingPathComponent("cache.json").path))
        let one = try FlowHarness(FlowTransport([]), cacheConfig: cache)
        let other = try FlowHarness(FlowTransport([]), cacheConfig: cache)
        try one.seed(.abe)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: try one.account(.abe))
        for _ in 0..<3 { #expect(try await one.app.acquireTokenSilent(with: parameters).accessToken == "at-cached") }
        #expect(one.app.client.silentHits.count == 1)
        try other.seed(.abe, accessToken: "at-other")
        #expect(try await one.app.acquireTokenSilent(with: parameters).accessToken == "at-other")
        #expect(one.transport.requests.isEmpty)
    }
}
