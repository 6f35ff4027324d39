import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

/// A confidential client's cache kept in partitions by an application's store, one per
/// `suggestedCacheKey` (as a database row or a distributed cache entry would keep them): the keys
/// are MSAL for .NET's; each operation loads and stores only its own partition; no partition ever
/// holds another's tokens; and a partition answers the next request with no token request.
@Suite("Token cache: partitions suggested to a confidential client's store")
struct PartitionedCacheTests {
    typealias Grant = ClientCredentialsGrantTests
    typealias App = ConfidentialClientTests

    /// A key-value store of partitions; records what each hook call saw.
    final class PartitionStore: MSALTokenCacheSerializer {
        struct Access: Sendable {
            var hook: String
            var key: String?
            var isWrite: Bool
            var isApplicationCache: Bool
            var accountIdentifier: String?
            var hasStateChanged: Bool
        }

        struct State {
            var partitions: [String: Data] = [:]
            var accesses: [Access] = []
            var expiries: [String: Date] = [:]
        }

        let state = Mutex(State())
        let partitioned: Bool

        init(partitioned: Bool = true) {
            self.partitioned = partitioned
        }

        var storesPartitions: Bool { partitioned }

        func beforeAccess(_ access: MSALTokenCacheAccess) throws {
            let stored = state.withLock { state -> Data? in
                state.accesses.append(Self.record("before", access))
                return access.suggestedCacheKey.flatMap { state.partitions[$0] }
            }
            if let stored { try access.deserialize(stored) }
        }

        func afterAccess(_ access: MSALTokenCacheAccess) throws {
            let record = Self.record("after", access)
            guard access.hasStateChanged, let key = access.suggestedCacheKey else {
                state.withLock { $0.accesses.append(record) }
                return
            }
            let data = access.serialize()
            let hasTokens = access.hasTokens
            let expiry = access.suggestedCacheExpiry
            state.withLock { state in
                state.accesses.append(record)
                if hasTokens {
                    state.partitions[key] = data
                } else {
                    state.partitions[key] = nil
                }
                state.expiries[key] = expiry
            }
        }

        static func record(_ hook: String, _ access: MSALTokenCacheAccess) -> Access {
            Access(
                hook: hook, key: access.suggestedCacheKey, isWrite: access.isWrite, isApplicationCache: access.isApplicationCache,
                accountIdentifier: access.accountIdentifier, hasStateChanged: access.hasStateChanged)
        }

        var accesses: [Access] { state.withLock { $0.accesses } }
        var keys: Set<String> { state.withLock { Set($0.partitions.keys) } }
        func clearAccesses() { state.withLock { $0.accesses.removeAll() } }

        /// The partition stored under `key`, parsed.
        func document(_ key: String) throws -> [String: Any] {
            let data = try #require(state.withLock { $0.partitions[key] })
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        /// The values of `field` in `section` of the partition `key`.
        func values(_ key: String, _ section: String, _ field: String) throws -> [String] {
            let entries = try document(key)[section] as? [String: [String: Any]] ?? [:]
            return entries.values.compactMap { $0[field] as? String }
        }
    }

    static func application(_ harness: EmulatorHarness, store: PartitionStore) throws -> MSALConfidentialClientApplication {
        try App.application(harness, cache: MSALCacheConfig(storage: .custom(store)))
    }

    @Test("Client credentials: one partition per tenant, \"{clientId}_{tenant}_AppTokenCache\", each answering the next call alone")
    func applicationPartitions() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let store = PartitionStore()
            let app = try Self.application(harness, store: store)
            let contosoKey = "\(Grant.secretClientID)_\(EmulatorHarness.contoso)_AppTokenCache"
            let fabrikamKey = "\(Grant.secretClientID)_\(EmulatorHarness.fabrikam)_AppTokenCache"

            let contoso = try await app.acquireTokenForClient(scopes: [App.graphDefault])
            #expect(store.keys == [contosoKey])
            #expect(store.accesses.allSatisfy { $0.key == contosoKey && $0.isApplicationCache && $0.accountIdentifier == nil })
            // Reads (the lookup, and again inside the shared request), then one write of the new token.
            #expect(store.accesses.filter(\.isWrite).map(\.hook) == ["before", "after"])
            #expect(store.accesses.suffix(2).allSatisfy { $0.isWrite })
            let expiry = try #require(store.state.withLock { $0.expiries[contosoKey] })
            #expect(abs(expiry.timeIntervalSince(contoso.expiresOn ?? .distantPast)) < 1)

            let fabrikamParameters = MSALClientCredentialParameters(scopes: [App.graphDefault])
            fabrikamParameters.authority = try harness.authority(EmulatorHarness.fabrikam)
            let fabrikam = try await app.acquireTokenForClient(with: fabrikamParameters)
            #expect(store.keys == [contosoKey, fabrikamKey])
            // Each partition holds its own tenant's token only.
            #expect(try store.values(contosoKey, "AccessToken", "realm") == [EmulatorHarness.contoso])
            #expect(try store.values(fabrikamKey, "AccessToken", "realm") == [EmulatorHarness.fabrikam])
            #expect(try store.values(fabrikamKey, "AccessToken", "secret") == [fabrikam.accessToken])
            #expect(App.grants(harness) == 2)

            // The next calls are answered from their partitions (loaded in beforeAccess), with no request.
            store.clearAccesses()
            #expect(try await app.acquireTokenForClient(scopes: [App.graphDefault]).accessToken == contoso.accessToken)
            #expect(try await app.acquireTokenForClient(with: fabrikamParameters).accessToken == fabrikam.accessToken)
            #expect(store.accesses.map(\.key) == [contosoKey, contosoKey, fabrikamKey, fabrikamKey])
            #expect(store.accesses.allSatisfy { !$0.isWrite && !$0.hasStateChanged })
            #expect(App.grants(harness) == 2)

            // A second replica with the same store needs no request either.
            let replica = try Self.application(harness, store: store)
            #expect(try await replica.acquireTokenForClient(scopes: [App.graphDefault]).tokenSource == .cache)
            #expect(App.grants(harness) == 2)
        }
    }

    @Test("On behalf of: one partition per caller's assertion, keyed by its hash, holding that caller's tokens only")
    func onBehalfOfPartitions() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let store = PartitionStore()
            let app = try Self.application(harness, store: store)
            let adele = try await OnBehalfOfTests.incoming(harness)
            let ben = try await OnBehalfOfTests.incoming(harness, as: EmulatorHarness.ben)
            let adeleKey = try OnBehalfOfFlow.assertionHash(adele)
            let benKey = try OnBehalfOfFlow.assertionHash(ben)

            let fromAdele = try await app.acquireTokenOnBehalfOf(userAssertion: adele, scopes: [OnBehalfOfTests.graphScope])
            let fromBen = try await app.acquireTokenOnBehalfOf(userAssertion: ben, scopes: [OnBehalfOfTests.graphScope])
            #expect(store.keys == [adeleKey, benKey])
            #expect(try store.values(adeleKey, "AccessToken", "user_assertion_hash") == [adeleKey])
            #expect(try store.values(adeleKey, "RefreshToken", "user_assertion_hash") == [adeleKey])
            #expect(try store.values(benKey, "AccessToken", "secret") == [fromBen.accessToken])
            #expect(try store.values(benKey, "Account", "home_account_id") == [fromBen.account.identifier].compactMap { $0 })
            // The write after the response names the user as well.
            #expect(store.accesses.contains { $0.key == adeleKey && $0.isWrite && $0.accountIdentifier == fromAdele.account.identifier })
            #expect(!store.accesses.contains { $0.isApplicationCache })
            // Refresh tokens exist, so the partition has no suggested expiry.
            #expect(store.state.withLock { $0.expiries[adeleKey] } == nil)

            store.clearAccesses()
            let again = try await app.acquireTokenOnBehalfOf(userAssertion: adele, scopes: [OnBehalfOfTests.graphScope])
            #expect(again.tokenSource == .cache)
            #expect(again.accessToken == fromAdele.accessToken)
            #expect(Set(store.accesses.map(\.key)) == [adeleKey])
            #expect(OnBehalfOfTests.assertionGrants(harness) == 2)
        }
    }

    @Test("Web app: one partition per signed-in user, keyed by the home account id; lookup, silent and removal touch only it")
    func accountPartitions() async throws {
        try await EmulatorHarness.with(WebAppTests.configuration) { harness in
            let store = PartitionStore()
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: WebAppTests.webClientID, clientCredential: .secret(WebAppTests.secret),
                authority: try harness.authority(EmulatorHarness.contoso))
            configuration.clock = harness.clock
            configuration.cacheConfig = MSALCacheConfig(storage: .custom(store))
            let app = try MSALConfidentialClientApplication(configuration: configuration)

            func signIn(_ username: String) async throws -> MSALResult {
                let parameters = MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: WebAppTests.redirectURI)
                let flow = try await app.initiateAuthorizationCodeFlow(with: parameters)
                let redirect = try await MSALEmulator.SignInDriver(username: username).signIn(authorizationURL: flow.authorizationURL)
                return try await app.acquireTokenByAuthorizationCode(flow: flow, redirectURL: redirect)
            }
            let adele = try await signIn(EmulatorHarness.adele)
            let ben = try await signIn(EmulatorHarness.ben)
            let adeleKey = try #require(adele.account.identifier)
            let benKey = try #require(ben.account.identifier)
            #expect(store.keys == [adeleKey, benKey])
            #expect(try store.values(adeleKey, "Account", "username") == [EmulatorHarness.adele])
            #expect(try store.values(benKey, "RefreshToken", "home_account_id") == [benKey])
            #expect(try store.values(benKey, "AccessToken", "secret") == [ben.accessToken])

            store.clearAccesses()
            let account = try #require(try await app.account(forIdentifier: adeleKey))
            #expect(account.username == EmulatorHarness.adele)
            let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(silent.tokenSource == .cache)
            #expect(silent.accessToken == adele.accessToken)
            #expect(Set(store.accesses.map(\.key)) == [adeleKey])
            #expect(store.accesses.allSatisfy { $0.accountIdentifier == adeleKey && !$0.isApplicationCache })

            // Every account at once spans partitions: no key (the store decides what to load).
            store.clearAccesses()
            _ = try await app.allAccounts()
            #expect(store.accesses.map(\.key) == [nil, nil])

            // Removing Adele empties her partition, which the store then drops; Ben's stays.
            try await app.remove(account)
            #expect(store.keys == [benKey])
            #expect(try await app.account(forIdentifier: adeleKey) == nil)
            #expect(try await app.account(forIdentifier: benKey)?.username == EmulatorHarness.ben)
            #expect(WebAppTests.codeGrants(harness) == 2)
        }
    }

    @Test("A store that keeps partitions starts each operation empty unless it loads one; one document carries over as before")
    func noCarryOver() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            // The partitioned store loses its partitions (an eviction): the next call asks again, and
            // the re-stored partition holds only its own token, not the other tenant's left in memory.
            let store = PartitionStore()
            let app = try Self.application(harness, store: store)
            let fabrikamParameters = MSALClientCredentialParameters(scopes: [App.graphDefault])
            fabrikamParameters.authority = try harness.authority(EmulatorHarness.fabrikam)
            _ = try await app.acquireTokenForClient(with: fabrikamParameters)
            store.state.withLock { $0.partitions.removeAll() }
            _ = try await app.acquireTokenForClient(scopes: [App.graphDefault])
            #expect(App.grants(harness) == 2)
            let contosoKey = "\(Grant.secretClientID)_\(EmulatorHarness.contoso)_AppTokenCache"
            #expect(try store.values(contosoKey, "AccessToken", "realm") == [EmulatorHarness.contoso])

            // A store of one document (storesPartitions false) keeps what memory holds between operations.
            let whole = PartitionStore(partitioned: false)
            let other = try Self.application(harness, store: whole)
            _ = try await other.acquireTokenForClient(with: fabrikamParameters)
            whole.state.withLock { $0.partitions.removeAll() }
            #expect(try await other.acquireTokenForClient(with: fabrikamParameters).tokenSource == .cache)
            #expect(App.grants(harness) == 3)
        }
    }

    @Test("A public client's operations suggest no key: its cache is one document")
    func publicClientSuggestsNone() async throws {
        try await EmulatorHarness.with(EmulatorHarness.configuration) { harness in
            let store = PartitionStore(partitioned: false)
            let configuration = MSALPublicClientApplicationConfig(
                clientId: EmulatorHarness.clientID, redirectUri: nil, authority: try harness.authority(EmulatorHarness.contoso))
            configuration.cacheConfig = MSALCacheConfig(storage: .custom(store))
            configuration.clock = harness.clock
            let app = try MSALPublicClientApplication(configuration: configuration)
            let result = try await harness.signIn(app, as: EmulatorHarness.adele)
            _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
            #expect(!store.accesses.isEmpty)
            #expect(store.accesses.allSatisfy { $0.key == nil && !$0.isApplicationCache })
            #expect(store.accesses.contains { $0.accountIdentifier == result.account.identifier })
        }
    }
}
