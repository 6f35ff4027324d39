import Foundation
import MSAL
import Testing

/// External account providers as MSAL for iOS apps write them: an app's own account store,
/// registered with `config.cacheConfig.addExternalAccountProvider(_:)`, told of new tokens and
/// removals, and merged into the application's account lists.
@Suite("MSAL for iOS: external account providers")
struct ExternalAccountProviderTests {
    /// An account of the app's own store, as an iOS app would declare it.
    final class StoredAccount: MSALAccountProtocol {
        let username: String?
        let identifier: String?
        let environment: String
        let accountClaims: [String: Sendable]?
        let tenantProfiles: [MSALTenantProfile]? = nil
        let homeAccountId: MSALAccountId?

        init(identifier: String, username: String?, claims: [String: Sendable]?) {
            self.identifier = identifier
            self.username = username
            self.environment = "login.microsoftonline.com"
            self.accountClaims = claims
            self.homeAccountId = MSALAccountId(identifier: identifier)
        }
    }

    /// An app's own account store: it records what MSAL tells it, returns the accounts it was
    /// given, and fails where the test says.
    final class AppAccountStore: MSALExternalAccountProviding, @unchecked Sendable {
        // @unchecked Sendable: every stored property is read and written under `lock`.
        struct Failure: Error {}

        struct Update {
            let identifier: String?
            let claims: [AnyHashable: Any]
        }

        struct Removal {
            let identifier: String?
            let wipeAccount: Bool
            let tenantIds: [String]
        }

        private let lock = NSLock()
        private var stored: [StoredAccount]
        private var updateLog: [Update] = []
        private var removalLog: [Removal] = []
        private var listings = 0
        private let fails: Bool

        init(accounts: [StoredAccount] = [], fails: Bool = false) {
            stored = accounts
            self.fails = fails
        }

        var updates: [Update] { lock.withLock { updateLog } }
        var removals: [Removal] { lock.withLock { removalLog } }
        var listingCount: Int { lock.withLock { listings } }

        func update(_ account: MSALAccountProtocol, idTokenClaims: [AnyHashable: Any]) throws {
            lock.withLock { updateLog.append(Update(identifier: account.identifier, claims: idTokenClaims)) }
            if fails { throw Failure() }
        }

        func remove(_ account: MSALAccountProtocol, wipeAccount: Bool, tenantProfiles: [MSALTenantProfile]?) throws {
            let removal = Removal(
                identifier: account.identifier, wipeAccount: wipeAccount, tenantIds: (tenantProfiles ?? []).compactMap(\.tenantId))
            lock.withLock { removalLog.append(removal) }
            if fails { throw Failure() }
        }

        func accounts(with parameters: MSALAccountEnumerationParameters) throws -> [MSALAccountProtocol] {
            lock.withLock { listings += 1 }
            if fails { throw Failure() }
            return lock.withLock { stored }.filter { account in
                if let identifier = parameters.identifier, account.identifier?.lowercased() != identifier.lowercased() { return false }
                if let username = parameters.username, account.username?.lowercased() != username.lowercased() { return false }
                return true
            }
        }
    }

    static let externalID = "11111111-2222-3333-4444-555555555555.f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let guestTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    /// A fixture whose cached access token is valid for an hour, and whose token endpoint answers
    /// a refresh as Entra ID does without an ID token: new access and refresh tokens and client_info.
    static func fixture() throws -> CompatibilityFixture {
        let clientInfo = CompatibilityFixture.base64URL(
            Data(#"{"uid":"\#(CompatibilityFixture.uid)","utid":"\#(CompatibilityFixture.utid)"}"#.utf8))
        return try CompatibilityFixture(accessTokenExpiresOn: Int(Date().timeIntervalSince1970) + 3600) {
            StubPlatform.json(
                200,
                #"{"token_type":"Bearer","scope":"User.Read openid profile","expires_in":3600,"ext_expires_in":3600,"#
                    + #""access_token":"at-refreshed","refresh_token":"rt-refreshed","client_info":"\#(clientInfo)"}"#)
        }
    }

    /// An application configured as an iOS app configures it, with `providers` added to its cache
    /// configuration.
    static func application(
        _ fixture: CompatibilityFixture, providers: [MSALExternalAccountProviding]
    ) throws -> MSALPublicClientApplication {
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
        let config = MSALPublicClientApplicationConfig(clientId: CompatibilityFixture.clientID, redirectUri: nil, authority: authority)
        config.cacheConfig = MSALCacheConfig(storage: .file(path: fixture.cachePath))
        for provider in providers {
            config.cacheConfig.addExternalAccountProvider(provider)
        }
        config.transport = fixture.transport
        return try MSALPublicClientApplication(configuration: config)
    }

    @Test("Providers are added through the configuration's cacheConfig, in order, and kept by the application")
    func configuration() throws {
        let fixture = try Self.fixture()
        let first = AppAccountStore()
        let second = AppAccountStore()
        let application = try Self.application(fixture, providers: [first, second])
        let kept = application.configuration.cacheConfig.externalAccountProviders
        #expect(kept.count == 2)
        #expect(kept.first as? AppAccountStore === first)
        #expect(kept.last as? AppAccountStore === second)
        #expect(MSALCacheConfig.memory.externalAccountProviders.isEmpty)
    }

    @Test("MSAL for iOS's legacy shared accounts provider can be added; on Linux it lists no account")
    func legacySharedAccountsProvider() throws {
        let fixture = try Self.fixture()
        let legacy = MSALLegacySharedAccountsProvider(
            sharedKeychainAccessGroup: "com.example.shared", serviceIdentifier: "accounts", applicationIdentifier: "App")
        let application = try Self.application(fixture, providers: [legacy])
        #expect(application.configuration.cacheConfig.externalAccountProviders.count == 1)
        #expect(try application.allAccounts().map(\.identifier) == [CompatibilityFixture.homeAccountID])
        #expect(try legacy.accounts(with: MSALAccountEnumerationParameters()).isEmpty)
    }

    @Test("MSALAccount is an MSALAccountProtocol")
    func accountProtocol() throws {
        let fixture = try Self.fixture()
        let application = try Self.application(fixture, providers: [])
        let account: MSALAccountProtocol = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        #expect(account.identifier == CompatibilityFixture.homeAccountID)
        #expect(account.username == CompatibilityFixture.username)
        #expect(account.environment == "login.microsoftonline.com")
        #expect(account.homeAccountId?.tenantId == CompatibilityFixture.utid)
        #expect(account.accountClaims?["name"] as? String == "Adele Vance")
        #expect(account.tenantProfiles?.map(\.tenantId) == [CompatibilityFixture.utid])
    }

    @Test("A silent request that got tokens from the server calls update once, with the account and its ID token claims")
    func refreshUpdates() async throws {
        let fixture = try Self.fixture()
        let store = AppAccountStore()
        let application = try Self.application(fixture, providers: [store])
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        parameters.forceRefresh = true

        let result = try await application.acquireTokenSilent(with: parameters)

        #expect(result.accessToken == "at-refreshed")
        #expect(fixture.transport.tokenRequests == 1)
        let updates = store.updates
        #expect(updates.count == 1)
        #expect(updates.first?.identifier == CompatibilityFixture.homeAccountID)
        #expect(updates.first?.claims["tid"] as? String == CompatibilityFixture.utid)
        #expect(updates.first?.claims["preferred_username"] as? String == CompatibilityFixture.username)
        #expect(store.removals.isEmpty)
    }

    @Test("A token answered from the cache (and then from the remembered hit) calls no provider")
    func cacheHitCallsNothing() async throws {
        let fixture = try Self.fixture()
        let store = AppAccountStore()
        let application = try Self.application(fixture, providers: [store])
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let listings = store.listingCount

        for _ in 0..<2 {
            let result = try await application.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(result.accessToken == "at-cached")
        }

        #expect(fixture.transport.tokenRequests == 0)
        #expect(store.updates.isEmpty)
        #expect(store.removals.isEmpty)
        #expect(store.listingCount == listings)
    }

    @Test("A provider failing to update is logged: the token request succeeds, and later providers are not called")
    func updateFailureDoesNotFail() async throws {
        let fixture = try Self.fixture()
        let failing = AppAccountStore(fails: true)
        let later = AppAccountStore()
        let application = try Self.application(fixture, providers: [failing, later])
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        parameters.forceRefresh = true

        let result = try await application.acquireTokenSilent(with: parameters)

        #expect(result.accessToken == "at-refreshed")
        #expect(failing.updates.count == 1)
        #expect(later.updates.isEmpty)
    }

    @Test("remove(_:) calls remove with wipeAccount false and the account's tenant profiles; a provider's error fails nothing")
    func removeCallsRemove() throws {
        let fixture = try Self.fixture()
        let store = AppAccountStore()
        let failing = AppAccountStore(fails: true)
        let application = try Self.application(fixture, providers: [store, failing])
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)

        try application.remove(account)

        let removals = store.removals
        #expect(removals.count == 1)
        #expect(removals.first?.identifier == CompatibilityFixture.homeAccountID)
        #expect(removals.first?.wipeAccount == false)
        #expect(removals.first?.tenantIds == [CompatibilityFixture.utid])
        #expect(failing.removals.count == 1)
        #expect(try application.allAccounts().isEmpty)
    }

    @Test("signout calls remove with wipeAccount false")
    func signoutCallsRemove() async throws {
        let fixture = try Self.fixture()
        let store = AppAccountStore()
        let application = try Self.application(fixture, providers: [store])
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let parameters = MSALSignoutParameters(webviewParameters: MSALWebviewParameters())
        parameters.signoutFromBrowser = false

        #expect(try await application.signout(with: account, signoutParameters: parameters))

        #expect(store.removals.map(\.identifier) == [CompatibilityFixture.homeAccountID])
        #expect(store.removals.first?.wipeAccount == false)
    }

    @Test("signout with wipeAccount calls remove with wipeAccount true")
    func signoutWipeCallsRemove() async throws {
        let fixture = try Self.fixture()
        let store = AppAccountStore()
        let application = try Self.application(fixture, providers: [store])
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let parameters = MSALSignoutParameters(webviewParameters: MSALWebviewParameters())
        parameters.signoutFromBrowser = false
        parameters.wipeAccount = true

        #expect(try await application.signout(with: account, signoutParameters: parameters))

        #expect(store.removals.map(\.identifier) == [CompatibilityFixture.homeAccountID])
        #expect(store.removals.first?.wipeAccount == true)
    }

    @Test("Listing merges the store's accounts: an account of its own is added, a cached one gains its tenant and claims")
    func listingMerges() async throws {
        let fixture = try Self.fixture()
        let externalOnly = StoredAccount(
            identifier: Self.externalID, username: "legacy@fabrikam.example",
            claims: ["oid": "11111111-2222-3333-4444-555555555555", "tid": "f645ad92-e38d-4d1a-b510-d1b09a74a8ca", "name": "Legacy"])
        // The signed-in account as the store knows it: a guest in another tenant, and its home
        // tenant's claims (the identifier differs in case only).
        let guest = StoredAccount(
            identifier: CompatibilityFixture.homeAccountID.uppercased(), username: nil,
            claims: ["oid": "99999999-0000-0000-0000-000000000000", "tid": Self.guestTenant])
        let home = StoredAccount(
            identifier: CompatibilityFixture.homeAccountID, username: "adele.vance@contoso.example",
            claims: ["oid": CompatibilityFixture.uid, "tid": CompatibilityFixture.utid, "name": "Adele V."])
        let store = AppAccountStore(accounts: [externalOnly, guest, home])
        let application = try Self.application(fixture, providers: [store])

        let all = try application.allAccounts()

        #expect(all.count == 2)
        let cached = try #require(all.first { $0.identifier == CompatibilityFixture.homeAccountID })
        #expect(cached.username == "adele.vance@contoso.example")
        #expect(cached.accountClaims?["name"] as? String == "Adele V.")
        #expect(cached.tenantProfiles?.map(\.tenantId) == [CompatibilityFixture.utid, Self.guestTenant])
        #expect(cached.tenantProfiles?.first?.isHomeTenantProfile == true)
        #expect(cached.tenantProfiles?.last?.isHomeTenantProfile == false)
        #expect(cached.tenantProfiles?.last?.identifier == "99999999-0000-0000-0000-000000000000")
        let added = try #require(all.first { $0.identifier == Self.externalID })
        #expect(added.username == "legacy@fabrikam.example")
        #expect(added.environment == "login.microsoftonline.com")
        #expect(added.homeAccountId?.objectId == "11111111-2222-3333-4444-555555555555")
        #expect(added.accountClaims?["name"] as? String == "Legacy")
        #expect(added.tenantProfiles?.count == 1)
        #expect(added.tenantProfiles?.first?.isHomeTenantProfile == true)

        #expect(try application.account(forIdentifier: Self.externalID).username == "legacy@fabrikam.example")
        #expect(try application.account(forUsername: "LEGACY@fabrikam.example").identifier == Self.externalID)
        #expect(try application.accounts(for: MSALAccountEnumerationParameters(identifier: CompatibilityFixture.homeAccountID)).count == 1)
        let fromDevice = try await application.accountsFromDevice(for: MSALAccountEnumerationParameters())
        #expect(Set(fromDevice.compactMap(\.identifier)) == [CompatibilityFixture.homeAccountID, Self.externalID])
        // The cache itself is unchanged: without the provider, the account is as it was.
        let plain = try Self.application(fixture, providers: []).allAccounts()
        #expect(plain.map(\.identifier) == [CompatibilityFixture.homeAccountID])
        #expect(plain.first?.username == CompatibilityFixture.username)
    }

    @Test("A provider failing to list is logged: the cache's accounts are listed alone, without any provider's")
    func listingFailureListsCache() async throws {
        let fixture = try Self.fixture()
        let stored = StoredAccount(identifier: Self.externalID, username: "legacy@fabrikam.example", claims: nil)
        let working = AppAccountStore(accounts: [stored])
        let failing = AppAccountStore(fails: true)
        let application = try Self.application(fixture, providers: [working, failing])

        let all = try application.allAccounts()
        #expect(all.map(\.identifier) == [CompatibilityFixture.homeAccountID])
        #expect(all.first?.username == CompatibilityFixture.username)
        let fromDevice = try await application.accountsFromDevice(for: MSALAccountEnumerationParameters())
        #expect(fromDevice.map(\.identifier) == [CompatibilityFixture.homeAccountID])
        #expect(failing.listingCount == 2)
    }
}
