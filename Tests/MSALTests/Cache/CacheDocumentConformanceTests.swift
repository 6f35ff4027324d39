import Foundation
import Testing

@testable import MSAL

/// Every cache document other MSAL libraries wrote (`Fixtures/Cache/documents`) loads, answers
/// lookups and account queries, and survives a read-write with its content intact.
@Suite("Token cache documents from the other MSAL libraries")
struct CacheDocumentConformanceTests {
    static let documents: [String] = (try? CacheFixtures.names("documents")) ?? []

    @Test("The fixture folder holds the reference documents")
    func fixturesPresent() {
        #expect(Self.documents.count >= 18)
    }

    @Test("Loads and round-trips with the same content (unknown sections, entries and fields kept)", arguments: documents)
    func roundTrip(name: String) throws {
        let original = try CacheFixtures.bytes("documents", name)
        let document = try TokenCacheDocument(parsing: original)
        let written = document.serialized()
        let expected = CacheFixtures.normalized(try CacheFixtures.foundationJSON(original))
        let actual = CacheFixtures.normalized(try CacheFixtures.foundationJSON(written))
        #expect(
            CacheFixtures.equal(actual, expected),
            "\(name): content changed in a read-write:\n\(String(decoding: written, as: UTF8.self).prefix(3000))")
        // Writing what we wrote changes nothing.
        #expect(try TokenCacheDocument(parsing: written).serialized() == written)
    }

    @Test(
        "Every access token is found by its account (an on-behalf-of one, with user_assertion_hash, only by that hash), client, realm and scopes, under every alias of its cloud",
        arguments: documents)
    func accessTokensAnswerLookups(name: String) throws {
        let contents = try TokenCacheContents.fixture(name)
        var checked = 0
        for (key, entry) in contents.document[.accessToken] {
            let realm = entry["realm"] ?? ""
            guard let home = entry["home_account_id"], let environment = entry["environment"], let client = entry["client_id"],
                let target = entry["target"], let expiresOn = entry.seconds("expires_on"), entry["secret"] != nil
            else { continue }
            let scopes = TokenCacheContents.lookupScopes(target.split(separator: " ").map(String.init))
            let assertionHash = entry["user_assertion_hash"].flatMap { $0.isEmpty ? nil : $0 }
            for alias in contents.aliases.aliases(of: environment) {
                let byAccount = contents.accessToken(
                    homeAccountID: home.uppercased(), environment: alias, clientID: client, realms: [realm], scopes: scopes,
                    now: expiresOn - 3600, expiryBuffer: 300)
                let found: CachedAccessToken?
                if let assertionHash {
                    // MSAL.NET's on-behalf-of tokens answer only their assertion, never the user's own requests.
                    #expect(byAccount?.key != key, "\(name): \(key) has user_assertion_hash but answered its account")
                    found = contents.onBehalfOfAccessToken(
                        hash: assertionHash, environment: alias, clientID: client, realms: [realm], scopes: scopes,
                        now: expiresOn - 3600, expiryBuffer: 300)
                } else {
                    found = byAccount
                }
                #expect(found != nil, "\(name): \(key) not found under \(alias)")
                #expect((found?.expiresOn ?? 0) >= expiresOn)
            }
            if assertionHash != nil {
                checked += 1
                continue
            }
            // Past the buffer the same lookup finds nothing, and the entry is still there.
            let expired = contents.accessToken(
                homeAccountID: home, environment: environment, clientID: client, realms: [realm], scopes: scopes,
                now: expiresOn - 299, expiryBuffer: 300)
            if expired != nil {
                #expect(expired!.key != key, "\(name): \(key) returned inside the expiry buffer")
            }
            #expect(contents.document[.accessToken][key] != nil)
            checked += 1
        }
        if name != "java_multi-tenant-account-cache.json" {
            #expect(checked > 0, "\(name) has no usable access token")
        }
    }

    @Test("Accounts per client are the accounts holding that client's refresh or ID tokens", arguments: documents)
    func accountsPerClient(name: String) throws {
        let contents = try TokenCacheContents.fixture(name)
        let document = contents.document
        let aliases = contents.aliases
        var clients = Set<String>()
        for section in [CacheSection.refreshToken, .idToken] {
            for entry in document[section].values { if let client = entry["client_id"] { clients.insert(client.lowercased()) } }
        }
        let accountHomes = Set(
            document[.account].values.compactMap { entry -> String? in
                guard let home = entry["home_account_id"], let environment = entry["environment"] else { return nil }
                return home.lowercased() + "|" + aliases.group(of: environment)
            })
        for client in clients {
            var expected = Set<String>()
            for section in [CacheSection.refreshToken, .idToken] {
                for entry in document[section].values
                where entry["client_id"]?.lowercased() == client && entry["family_id"].map({ $0.isEmpty }) ?? true {
                    guard entry["secret"] != nil, let home = entry["home_account_id"], let environment = entry["environment"] else {
                        continue
                    }
                    let id = home.lowercased() + "|" + aliases.group(of: environment)
                    if accountHomes.contains(id) { expected.insert(id) }
                }
            }
            let family = contents.index.familyOfClient[client]
            for entry in document[.refreshToken].values where family != nil && entry["family_id"]?.lowercased() == family {
                guard let home = entry["home_account_id"], let environment = entry["environment"] else { continue }
                let id = home.lowercased() + "|" + aliases.group(of: environment)
                if accountHomes.contains(id) { expected.insert(id) }
            }
            let accounts = contents.accounts(clientID: client, environment: nil, signedInOnly: false)
            let actual = Set(accounts.map { ($0.identifier ?? "").lowercased() + "|" + aliases.group(of: $0.environment) })
            #expect(actual == expected, "\(name), client \(client)")
            for account in accounts {
                #expect(account.tenantProfiles?.isEmpty == false)
                #expect(account.tenantProfiles?.filter(\.isHomeTenantProfile).count ?? 0 <= 1)
            }
        }
    }

    @Test("MSAL.NET multi-tenant cache: two accounts; the guest one has a profile per tenant, the home tenant first")
    func multiTenant() throws {
        let contents = try TokenCacheContents.fixture("dotnet_MultiTenantTokenCache.json")
        let accounts = contents.accounts(
            clientID: "1d18b3b0-251b-4714-a02a-9956cec86c2d", environment: "login.microsoftonline.com", signedInOnly: true)
        #expect(accounts.count == 2)
        let account = try #require(accounts.first { $0.identifier?.hasPrefix("6eeda3a1") == true })
        let profiles = try #require(account.tenantProfiles)
        #expect(profiles.count == 2)
        #expect(profiles.allSatisfy { $0.claims != nil })
        #expect(profiles.first?.isHomeTenantProfile == true)
        #expect(profiles.first?.tenantId?.lowercased() == account.homeAccountId?.tenantId?.lowercased())
        #expect(Set(profiles.map(\.tenantId)).count == profiles.count)
        #expect(account.accountClaims?["tid"] as? String == profiles.first?.tenantId)
    }

    @Test("MSAL.NET multi-cloud cache: the environment filter keeps one cloud's accounts")
    func multiCloud() throws {
        let contents = try TokenCacheContents.fixture("dotnet_MultiCloudTokenCache.json")
        let environments = Set(contents.document[.account].values.compactMap { $0["environment"] })
        #expect(environments.count > 1)
        let client = try #require(contents.document[.refreshToken].values.first?["client_id"])
        let all = contents.accounts(clientID: client, environment: nil, signedInOnly: false)
        var total = 0
        for environment in environments {
            let filtered = contents.accounts(clientID: client, environment: environment, signedInOnly: false)
            #expect(filtered.allSatisfy { contents.aliases.group(of: $0.environment) == contents.aliases.group(of: environment) })
            total += filtered.count
        }
        #expect(total == all.count)
    }

    @Test("MSAL Go v1.0 + v1.1 cache: the lower-case key wins over the legacy spelling")
    func legacyKeys() throws {
        let contents = try TokenCacheContents.fixture("go_v1.0_v1.1_cache.json")
        for section in CacheSection.allCases {
            for (key, entry) in contents.document[section] {
                #expect(key == key.lowercased())
                for field in entry.fields {
                    if case .string(let value) = field.value { #expect(value != "wrong value", "\(section.name) \(key) \(field.name)") }
                }
            }
            #expect(contents.document[section].count == 1, "\(section.name)")
        }
    }

    @Test("MSAL Go v1.0 cache with mixed-case keys answers lookups and writes lower-case keys")
    func legacyOnly() throws {
        let contents = try TokenCacheContents.fixture("go_v1.0_cache.json")
        let written = String(decoding: contents.document.serialized(), as: UTF8.self)
        #expect(!written.contains("-AccessToken-") && !written.contains("-RefreshToken-"))
        let refresh = try #require(contents.document[.refreshToken].values.first)
        let found = contents.refreshToken(
            homeAccountID: try #require(refresh["home_account_id"]), environment: try #require(refresh["environment"]),
            clientID: try #require(refresh["client_id"]))
        #expect(found?.entry["secret"] == refresh["secret"])
    }

    @Test("MSAL.NET AD FS cache (no realm anywhere): the account is listed and its token found")
    func adfs() throws {
        let contents = try TokenCacheContents.fixture("dotnet_token_cache_adfs.json")
        let account = try #require(contents.document[.account].values.first)
        #expect(account["realm"] == nil)
        let client = try #require(contents.document[.refreshToken].values.first?["client_id"])
        #expect(contents.accounts(clientID: client, environment: nil, signedInOnly: true).count == 1)
    }

    @Test("A cache from the future keeps its unknown top-level members and fields through an update")
    func futureCacheUpdate() throws {
        var contents = try TokenCacheContents.fixture("dotnet_CacheFromTheFuture.json")
        let (key, entry) = try #require(contents.document[.accessToken].first { $0.value.fields.count > 11 })
        let unknown = entry.fields.filter { !["secret", "expires_on", "cached_at", "extended_expires_on"].contains($0.name) }
        var updated = CacheEntry()
        for field in entry.fields where CacheFieldNames.isKnown(field.name) { updated.fields.append(field) }
        updated["secret"] = "new secret"
        contents.upsert(updated, key: key, in: .accessToken)
        let written = try CacheFixtures.foundationJSON(contents.document.serialized())
        let original = CacheFixtures.normalized(try CacheFixtures.json("documents", "dotnet_CacheFromTheFuture.json"))
        for name in original.keys where !CacheFixtures.sections.contains(name) {
            #expect(CacheFixtures.equal(written[name] as Any, original[name] as Any), "top-level \(name)")
        }
        let newEntry = try #require((written["AccessToken"] as? [String: Any])?[key] as? [String: Any])
        #expect(newEntry["secret"] as? String == "new secret")
        for field in unknown where !CacheFieldNames.isKnown(field.name) {
            #expect(newEntry[field.name] != nil, "unknown field \(field.name) lost")
        }
    }
}
