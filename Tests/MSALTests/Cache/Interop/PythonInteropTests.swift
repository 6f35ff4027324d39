import Foundation
import Testing

@testable import MSAL

/// A token cache moves between swift-msal and the real MSAL for Python 1.39.0, both ways, with no
/// token request.
@Suite("Token cache interoperability with MSAL for Python", .serialized)
struct PythonInteropTests {
    /// The realms swift-msal looks an access token up in for an authority: the tenant it names, or,
    /// for `common`/`organizations`/`consumers`, the account's home tenant first and then the
    /// segment as MSAL for Python writes it.
    static func realms(authority: URL, homeAccountID: String) -> [String] {
        let tenant = authority.pathComponents.dropFirst().first ?? ""
        guard KnownClouds.multiTenantAliases.contains(tenant.lowercased()) else { return [tenant] }
        return [MSALAccountId(identifier: homeAccountID).tenantId, tenant].compactMap { $0 }
    }

    @Test("MSAL for Python writes a cache through its own flows; swift-msal finds its accounts and tokens")
    func pythonWritesSwiftReads() async throws {
        let written = try await PythonSelfCheckTests.WrittenCache.make()
        defer { written.remove() }
        let contents = TokenCacheContents(document: try TokenCacheDocument(parsing: [UInt8](Data(contentsOf: written.cacheURL))))
        let defaultClient = try #require(written.expected["client_id"] as? String)
        let defaultAuthority = try #require(written.expected["authority"] as? String)

        var checked = 0
        for query in written.expectedQueries where query["force_refresh"] as? Bool != true {
            let id = query["id"] as? String ?? "?"
            let client = query["client_id"] as? String ?? defaultClient
            let authority = try #require(URL(string: query["authority"] as? String ?? defaultAuthority))
            let home = try #require(query["home_account_id"] as? String)
            let scopes = query["scopes"] as? [String] ?? []
            let found = contents.accessToken(
                homeAccountID: home, environment: try #require(authority.host), clientID: client,
                realms: Self.realms(authority: authority, homeAccountID: home), scopes: TokenCacheContents.lookupScopes(scopes),
                now: Int64(Date().timeIntervalSince1970), expiryBuffer: 300)
            #expect(found?.secret == query["expected_access_token"] as? String, "\(id)")
            let refresh = contents.refreshToken(homeAccountID: home, environment: try #require(authority.host), clientID: client)
            #expect(refresh?.entry["secret"] == query["expected_refresh_token"] as? String, "\(id): refresh token")
            checked += 1
        }
        #expect(checked >= 7)

        // Accounts: swift-msal lists, per client, the accounts holding that client's (or its family's)
        // refresh token; MSAL for Python's get_accounts() lists every account (it does not filter).
        let clients = (written.expected["clients"] as? [[String: Any]] ?? []).compactMap { $0["client_id"] as? String }
        #expect(clients.count == 2)
        for client in clients {
            let expected = written.expectedAccounts.filter { ($0["client_ids"] as? [String] ?? []).contains(client) }
            let accounts = contents.accounts(clientID: client, environment: "login.microsoftonline.com", signedInOnly: true)
            #expect(
                Set(accounts.compactMap(\.identifier)) == Set(expected.compactMap { $0["home_account_id"] as? String }), "client \(client)")
            for account in accounts {
                let reference = try #require(expected.first { $0["home_account_id"] as? String == account.identifier })
                #expect(account.username == reference["username"] as? String)
                let profiles = reference["tenant_profiles"] as? [[String: Any]] ?? []
                #expect(account.tenantProfiles?.count == profiles.count, "\(account.identifier ?? "")")
                #expect(
                    Set((account.tenantProfiles ?? []).map(\.identifier)) == Set(profiles.compactMap { $0["local_account_id"] as? String }))
            }
        }

        // And swift-msal writing the document back loses nothing MSAL for Python wrote.
        let original = CacheFixtures.normalized(try CacheFixtures.foundationJSON([UInt8](Data(contentsOf: written.cacheURL))))
        let rewritten = CacheFixtures.normalized(try CacheFixtures.foundationJSON(contents.document.serialized()))
        #expect(CacheFixtures.equal(original, rewritten))
    }

    @Test(
        "swift-msal writes a cache; MSAL for Python's get_accounts() and acquire_token_silent() return the same accounts and tokens with no token request"
    )
    func swiftWritesPythonReads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-swift-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let client = "6a1f0d64-77a4-4b0e-9b0b-6c4f3e0a9d21"
        let family = "9c2d4e6f-1a3b-4c5d-8e7f-0a1b2c3d4e5f"
        let tenantA = "4d3b1f0e-aaaa-4bbb-8ccc-111111111111"
        let tenantB = "b8e6c4a2-dddd-4eee-8fff-222222222222"
        let now = Int64(Date().timeIntervalSince1970)
        let tenYears: Int64 = 10 * 365 * 24 * 3600

        struct Grant {
            var uid: String, tenant: String, home: String, user: String, scope: String, client: String, foci: String?
            var homeAccountID: String { "\(uid).\(home)" }
            var accessToken: String { "at-\(uid)-\(tenant.prefix(4))-\(scope.split(separator: " ").first ?? "")" }
            var refreshToken: String { "rt-\(uid)-\(client.prefix(4))" }
        }
        let grants = [
            Grant(
                uid: "alice", tenant: tenantA, home: tenantA, user: "alice@contoso.com", scope: "openid profile User.Read email",
                client: client, foci: nil),
            Grant(
                uid: "alice", tenant: tenantA, home: tenantA, user: "alice@contoso.com",
                scope: "openid profile Mail.Read Calendars.Read email", client: client, foci: nil),
            Grant(
                uid: "bob", tenant: tenantA, home: tenantA, user: "bob@contoso.com", scope: "openid profile User.Read email",
                client: client, foci: nil),
            Grant(
                uid: "bob", tenant: tenantB, home: tenantA, user: "bob@contoso.com", scope: "openid profile User.Read email",
                client: client, foci: nil),
            Grant(
                uid: "carol", tenant: tenantA, home: tenantA, user: "carol@contoso.com", scope: "openid profile User.Read email",
                client: family, foci: "1"),
        ]
        var contents = TokenCacheContents()
        for grant in grants {
            let claims: [String: Any] = [
                "iss": "https://login.microsoftonline.com/\(grant.tenant)/v2.0", "aud": grant.client, "tid": grant.tenant,
                "oid": grant.tenant == grant.home ? grant.uid : "\(grant.uid)-guest", "sub": "sub-\(grant.uid)",
                "preferred_username": grant.user, "exp": now + tenYears, "iat": now, "nbf": now,
            ]
            let response = TokenResponse(
                accessToken: grant.accessToken, expiresIn: tenYears, extendedExpiresIn: tenYears, refreshToken: grant.refreshToken,
                idToken: try CacheFixtures.unsignedJWT(claims), clientInfo: CacheFixtures.clientInfo(uid: grant.uid, utid: grant.home),
                scope: grant.scope, familyID: grant.foci)
            // The default policy and the preferred cache host of the public cloud, as an application writes.
            let context = TokenCacheWriteContext(
                clientID: grant.client, environment: "login.windows.net", authorityTenant: grant.tenant, requestedScopes: [], now: now)
            contents.save(try TokenCacheEntries(response: response, context: context), clientID: grant.client)
        }
        let cacheURL = directory.appendingPathComponent("cache.json")
        try Data(contents.document.serialized()).write(to: cacheURL)

        var queries: [[String: Any]] = []
        for (index, grant) in grants.enumerated() {
            let scopes = grant.scope.split(separator: " ").map(String.init).filter { !["openid", "profile", "email"].contains($0) }
            queries.append([
                "id": "q\(index)", "home_account_id": grant.homeAccountID, "scopes": scopes, "client_id": grant.client,
                "authority": "https://login.microsoftonline.com/\(grant.tenant)",
            ])
        }
        let queriesURL = directory.appendingPathComponent("queries.json")
        try JSONSerialization.data(withJSONObject: [
            "client_id": client, "authority": "https://login.microsoftonline.com/\(tenantA)", "queries": queries,
        ]).write(to: queriesURL)

        let output = try await PythonMSAL.runChecked("read_cache.py", [cacheURL.path, queriesURL.path]).jsonObject()
        #expect(output["token_endpoint_calls"] as? Int == 0)
        #expect((output["other_calls"] as? [Any])?.isEmpty == true)
        let results = try #require(output["results"] as? [[String: Any]])
        #expect(results.count == grants.count)
        for (grant, result) in zip(grants, results) {
            #expect(result["access_token"] as? String == grant.accessToken, "\(grant.uid) \(grant.scope) in \(grant.tenant.prefix(4))")
            #expect(result["token_source"] as? String == "cache")
            #expect(result["account_found"] as? Bool == true)
            #expect(result["refresh_token"] as? String == grant.refreshToken)
        }
        let accounts = try #require(output["accounts"] as? [[String: Any]])
        let swiftAccounts = contents.allAccounts(environment: "login.microsoftonline.com")
        #expect(Set(accounts.compactMap { $0["home_account_id"] as? String }) == Set(swiftAccounts.compactMap(\.identifier)))
        for account in accounts {
            let mine = try #require(swiftAccounts.first { $0.identifier == account["home_account_id"] as? String })
            #expect(account["username"] as? String == mine.username)
        }
        #expect(output["cache_state_changed"] as? Bool == false)
    }
}
