import Foundation
import Testing

@testable import MSAL

/// The account API of `MSALPublicClientApplication` over a real cache file.
@Suite("MSALPublicClientApplication accounts", .serialized)
struct MSALPublicClientApplicationAccountsTests {
    static let client = "6a1f0d64-77a4-4b0e-9b0b-6c4f3e0a9d21"
    static let tenant = "4d3b1f0e-aaaa-4bbb-8ccc-111111111111"
    static let guest = "b8e6c4a2-dddd-4eee-8fff-222222222222"

    /// Saves a sign-in of `uid` in `tenant` through the application's own cache.
    static func signIn(
        _ application: MSALPublicClientApplication, uid: String, tenant: String = tenant, user: String, client: String = client
    ) throws {
        let claims: [String: Any] = ["oid": uid, "sub": "sub-\(uid)", "tid": tenant, "preferred_username": user]
        let response = TokenResponse(
            accessToken: "at-\(uid)", expiresIn: 3600, refreshToken: "rt-\(uid)", idToken: try CacheFixtures.unsignedJWT(claims),
            clientInfo: CacheFixtures.clientInfo(uid: uid, utid: Self.tenant), scope: "User.Read")
        let entries = try TokenCacheEntries(
            response: response,
            context: TokenCacheWriteContext(
                clientID: client, environment: "login.windows.net", authorityTenant: tenant, requestedScopes: ["User.Read"], now: 1_000))
        try application.cache.write(clientID: client) { $0.save(entries, clientID: client) }
    }

    static func application(_ path: String, client: String = client) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(clientId: client)
        config.cacheConfig = MSALCacheConfig(storage: .file(path: path))
        return try MSALPublicClientApplication(configuration: config)
    }

    @Test("The default configuration: the common authority, a 300 s buffer, the file cache")
    func defaults() throws {
        let config = MSALPublicClientApplicationConfig(clientId: Self.client)
        #expect(config.authority.url.absoluteString == "https://login.microsoftonline.com/common")
        #expect(config.authority is MSALAADAuthority)
        #expect(config.tokenExpirationBuffer == 300)
        #expect(config.multipleCloudsSupported == false)
        if case .file(let path) = config.cacheConfig.storage {
            #expect(path == nil)
        } else {
            Issue.record("default storage is not the file")
        }
        #expect(throws: MSALFailure.self) { try MSALPublicClientApplication(clientId: "  ") }
    }

    @Test("allAccounts, account(forIdentifier:), account(forUsername:), accounts(for:), remove(_:)")
    func accountAPI() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let application = try Self.application(scratch.file())
        #expect(try application.allAccounts().isEmpty)
        try Self.signIn(application, uid: "alice", user: "alice@contoso.com")
        try Self.signIn(application, uid: "alice", tenant: Self.guest, user: "alice@contoso.com")
        try Self.signIn(application, uid: "bob", user: "Bob@Contoso.com")
        try Self.signIn(application, uid: "carol", user: "carol@contoso.com", client: "another-client")

        let accounts = try application.allAccounts()
        #expect(Set(accounts.compactMap(\.identifier)) == ["alice.\(Self.tenant)", "bob.\(Self.tenant)"])
        let alice = try application.account(forIdentifier: "ALICE.\(Self.tenant.uppercased())")
        #expect(alice.tenantProfiles?.map(\.tenantId) == [Self.tenant, Self.guest])
        #expect(try application.account(forUsername: "bob@contoso.com").identifier == "bob.\(Self.tenant)")
        #expect((try? application.account(forUsername: "nobody@contoso.com")) == nil)
        #expect(throws: MSALFailure.self) { try application.account(forUsername: "nobody@contoso.com") }
        do {
            _ = try application.account(forIdentifier: "nobody.\(Self.tenant)")
            Issue.record("an unknown identifier returned an account")
        } catch let error as MSALFailure {
            #expect(error.code == .internal)
            #expect(error.internalCode == .internalErrorAccountRequired)
        }
        #expect(try application.accounts(for: MSALAccountEnumerationParameters(tenantProfileIdentifier: "alice")).count == 1)

        // Another application instance over the same file sees the same accounts.
        #expect(Set(try Self.application(scratch.file()).allAccounts()) == Set(accounts))

        try application.remove(alice)
        #expect(try application.allAccounts().compactMap(\.identifier) == ["bob.\(Self.tenant)"])
        try application.remove(alice)  // removing again does nothing
        // carol belongs to another client and stays in the file.
        let other = try Self.application(scratch.file(), client: "another-client")
        #expect(try other.allAccounts().compactMap(\.identifier) == ["carol.\(Self.tenant)"])
    }

    @Test("Accounts are listed for the authority's cloud unless multipleCloudsSupported")
    func cloudFilter() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let config = MSALPublicClientApplicationConfig(
            clientId: Self.client, redirectUri: nil,
            authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.us/common")!))
        config.cacheConfig = MSALCacheConfig(storage: .file(path: scratch.file()))
        let usGov = try MSALPublicClientApplication(configuration: config)
        try Self.signIn(usGov, uid: "alice", user: "alice@contoso.com")  // stored under login.windows.net (public cloud)
        #expect(try usGov.allAccounts().isEmpty)
        config.multipleCloudsSupported = true
        #expect(try MSALPublicClientApplication(configuration: config).allAccounts().count == 1)
    }

    @Test(
        "One account by identifier without the account list: the list's account, in any case; none for another client, cloud or an unknown id"
    )
    func accountWithoutList() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let application = try Self.application(scratch.file())
        try Self.signIn(application, uid: "alice", user: "alice@contoso.com")
        try Self.signIn(application, uid: "alice", tenant: Self.guest, user: "alice@contoso.com")
        try Self.signIn(application, uid: "bob", user: "Bob@Contoso.com")
        try Self.signIn(application, uid: "carol", user: "carol@contoso.com", client: "another-client")

        let fresh = try Self.application(scratch.file())
        let alice = try #require(try await fresh.accountWithoutList(identifier: "ALICE.\(Self.tenant.uppercased())"))
        let listed = try application.account(forIdentifier: "alice.\(Self.tenant)")
        #expect(alice.identifier == listed.identifier)
        #expect(alice.username == listed.username)
        #expect(alice.environment == listed.environment)
        #expect(alice.tenantProfiles?.map(\.tenantId) == listed.tenantProfiles?.map(\.tenantId))
        #expect(alice.accountClaims?["preferred_username"] as? String == "alice@contoso.com")
        // No account list was built for it.
        #expect(fresh.accountMemoStore.isEmpty)
        #expect(try await fresh.accountWithoutList(identifier: "nobody.\(Self.tenant)") == nil)
        // Another client's account is not this application's.
        #expect(try await fresh.accountWithoutList(identifier: "carol.\(Self.tenant)") == nil)

        // Another cloud's application does not see it; with every cloud listed it falls back to the list.
        let config = MSALPublicClientApplicationConfig(
            clientId: Self.client, redirectUri: nil,
            authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.us/common")!))
        config.cacheConfig = MSALCacheConfig(storage: .file(path: scratch.file()))
        #expect(try await MSALPublicClientApplication(configuration: config).accountWithoutList(identifier: "bob.\(Self.tenant)") == nil)
        config.multipleCloudsSupported = true
        let anyCloud = try MSALPublicClientApplication(configuration: config)
        #expect(try await anyCloud.accountWithoutList(identifier: "bob.\(Self.tenant)")?.username == "Bob@Contoso.com")
    }
}
