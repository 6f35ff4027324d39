import Foundation
import Testing

/// The Python half of the MSAL for Python interoperability harness, checked against itself:
/// `write_cache.py` makes the real MSAL for Python build a cache through its own flows, and
/// `read_cache.py` must find in it exactly what `write_cache.py` says a correct reader finds,
/// with no token request. The structural checks record what MSAL for Python writes, as the
/// reference for swift-msal's reader and writer.
@Suite("MSAL for Python interop harness")
struct PythonSelfCheckTests {
    /// A cache written by MSAL for Python, with its expectations, in a temporary folder.
    struct WrittenCache {
        let directory: URL
        let cacheURL: URL
        let expectedURL: URL
        let cache: [String: Any]
        let expected: [String: Any]

        static func make() async throws -> WrittenCache {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("msal-python-cache-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let cacheURL = directory.appendingPathComponent("cache.json")
            let expectedURL = directory.appendingPathComponent("expected.json")
            _ = try await PythonMSAL.runChecked("write_cache.py", [cacheURL.path, expectedURL.path])
            return WrittenCache(
                directory: directory, cacheURL: cacheURL, expectedURL: expectedURL,
                cache: try Self.object(at: cacheURL), expected: try Self.object(at: expectedURL))
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        static func object(at url: URL) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        }

        var expectedQueries: [[String: Any]] { expected["queries"] as? [[String: Any]] ?? [] }
        var expectedAccounts: [[String: Any]] { expected["accounts"] as? [[String: Any]] ?? [] }

        func section(_ name: String) -> [String: [String: Any]] {
            (cache[name] as? [String: Any])?.compactMapValues { $0 as? [String: Any] } ?? [:]
        }
    }

    /// `read_cache.py`'s input, built from the expectations the way a Swift-side test builds it.
    static func queriesDocument(from expected: [String: Any]) throws -> Data {
        let queries = (expected["queries"] as? [[String: Any]] ?? []).map { query -> [String: Any] in
            var input: [String: Any] = [:]
            for key in ["id", "home_account_id", "scopes", "client_id", "authority", "force_refresh"] {
                input[key] = query[key]
            }
            return input
        }
        return try JSONSerialization.data(withJSONObject: [
            "client_id": expected["client_id"] as Any,
            "authority": expected["authority"] as Any,
            "queries": queries,
        ])
    }

    @Test("MSAL for Python finds its own accounts and tokens without a token request")
    func pythonReadsWhatItWrote() async throws {
        let written = try await WrittenCache.make()
        defer { written.remove() }
        let queriesURL = written.directory.appendingPathComponent("queries.json")
        try Self.queriesDocument(from: written.expected).write(to: queriesURL)

        let report = try await PythonMSAL.runChecked("read_cache.py", [written.cacheURL.path, queriesURL.path]).jsonObject()

        #expect(report["msal_python_version"] as? String == written.expected["msal_python_version"] as? String)
        #expect(report["token_endpoint_calls"] as? Int == 0)
        #expect((report["other_calls"] as? [Any])?.isEmpty == true)
        #expect(report["cache_state_changed"] as? Bool == false)

        // get_accounts(): one entry per home account, whatever the client (MSAL for Python does not filter by client).
        let accounts = try #require(report["accounts"] as? [[String: Any]])
        let found = Dictionary(uniqueKeysWithValues: accounts.compactMap { a in (a["home_account_id"] as? String).map { ($0, a) } })
        #expect(Set(found.keys) == Set(written.expectedAccounts.compactMap { $0["home_account_id"] as? String }))
        for account in written.expectedAccounts {
            let id = try #require(account["home_account_id"] as? String)
            let actual = try #require(found[id], "get_accounts() misses \(id)")
            #expect(actual["username"] as? String == account["username"] as? String)
            #expect(actual["environment"] as? String == account["environment"] as? String)
            #expect(actual["authority_type"] as? String == "MSSTS")
            // The realm MSAL for Python reports is one of the account's tenant profiles.
            let realms = (account["tenant_profiles"] as? [[String: Any]] ?? []).compactMap { $0["realm"] as? String }
            #expect(realms.contains(actual["realm"] as? String ?? "-"), "realm \(actual["realm"] ?? "nil") of \(id)")
        }

        let results = try #require(report["results"] as? [[String: Any]])
        #expect(results.count == written.expectedQueries.count)
        for (query, result) in zip(written.expectedQueries, results) {
            let id = query["id"] as? String ?? "?"
            #expect(result["id"] as? String == id)
            #expect(result["account_found"] as? Bool == true, "\(id)")
            let expectedAT = query["expected_access_token"] as? String
            let expectedRT = query["expected_refresh_token"] as? String
            #expect(result["access_token"] as? String == expectedAT, "\(id): access token")
            #expect(result["refresh_token"] as? String == expectedRT, "\(id): refresh token")
            #expect(result["refresh_token_family_id"] as? String == query["expected_refresh_token_family_id"] as? String, "\(id)")
            if query["force_refresh"] as? Bool == true {
                // A refresh probe sends exactly the refresh token the cache holds for that account and client.
                let sent = result["refresh_tokens_sent"] as? [String] ?? []
                #expect(!sent.isEmpty && Set(sent) == Set([expectedRT].compactMap { $0 }), "\(id): refresh token sent")
            } else {
                #expect(result["token_endpoint_calls"] as? Int == 0, "\(id): no token request on the silent path")
                #expect(result["token_source"] as? String == (expectedAT == nil ? nil : "cache"), "\(id)")
            }
        }
        // The harness has both a hit and a miss, or it could not tell them apart.
        #expect(written.expectedQueries.contains { $0["expected_access_token"] is String })
        #expect(written.expectedQueries.contains { $0["expected_access_token"] is NSNull && $0["force_refresh"] as? Bool == false })
    }

    @Test("What MSAL for Python writes: sections, lower-case keys, string values, family id")
    func cacheDocumentShape() async throws {
        let written = try await WrittenCache.make()
        defer { written.remove() }
        let environment = try #require(written.expected["environment"] as? String)

        #expect(Set(written.cache.keys) == ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"])
        // Every value of every entry is a string (times too).
        for (name, entries) in written.cache {
            for (key, entry) in (entries as? [String: Any] ?? [:]) {
                for (field, value) in (entry as? [String: Any] ?? [:]) {
                    #expect(value is String, "\(name)[\(key)].\(field) is not a string")
                }
            }
        }

        func string(_ entry: [String: Any], _ field: String) -> String { entry[field] as? String ?? "<missing \(field)>" }

        // Keys: joined with "-", lower-cased; rebuilt here from the entry's own fields.
        let accessTokens = written.section("AccessToken")
        #expect(accessTokens.count == 5)  // alice ×2 scope sets, bob ×2 tenants, carol ×1
        for (key, at) in accessTokens {
            #expect(key == key.lowercased())
            let rebuilt = [
                string(at, "home_account_id"), string(at, "environment"), "accesstoken", string(at, "client_id"),
                string(at, "realm"), string(at, "target"),
            ].joined(separator: "-").lowercased()
            #expect(key == rebuilt)
            #expect(string(at, "credential_type") == "AccessToken")
            #expect(string(at, "token_type") == "Bearer")
            let target = string(at, "target")
            #expect(target == target.split(separator: " ").sorted().joined(separator: " "), "target sorted, case kept: \(target)")
            let cachedAt = try #require(Int(string(at, "cached_at")))
            let expiresOn = try #require(Int(string(at, "expires_on")))
            #expect(expiresOn - cachedAt >= 9 * 365 * 24 * 3600)
            #expect(Int(string(at, "extended_expires_on")) != nil)
        }
        #expect(accessTokens.values.contains { string($0, "target") == "User.Read email openid profile" })
        #expect(accessTokens.values.contains { string($0, "target") == "Calendars.Read Mail.Read email openid profile" })
        // refresh_on comes from the response's refresh_in: only bob's guest-tenant token had one.
        #expect(accessTokens.values.filter { $0["refresh_on"] != nil }.count == 1)

        let refreshTokens = written.section("RefreshToken")
        #expect(refreshTokens.count == 3)  // one per (account, client): alice's rotated, bob's newest, carol's
        let families = Dictionary(
            uniqueKeysWithValues: (written.expected["clients"] as? [[String: Any]] ?? []).compactMap { c in
                (c["client_id"] as? String).map { ($0, c["family_id"] as? String) }
            })
        for (key, rt) in refreshTokens {
            let rebuilt = [
                string(rt, "home_account_id"), string(rt, "environment"), "refreshtoken", string(rt, "client_id"),
                "", string(rt, "target"),
            ].joined(separator: "-").lowercased()
            #expect(key == rebuilt, "realm slot empty, client id (not the family id) in the key")
            #expect(rt["realm"] == nil)
            #expect(Int(string(rt, "last_modification_time")) != nil)
            #expect(rt["family_id"] as? String == families[string(rt, "client_id")] ?? nil, "family_id on the FOCI refresh token only")
        }
        #expect(refreshTokens.values.contains { $0["family_id"] as? String == "1" })

        let idTokens = written.section("IdToken")
        #expect(idTokens.count == 4)  // per (account, client, realm)
        for (key, idt) in idTokens {
            let rebuilt = [
                string(idt, "home_account_id"), string(idt, "environment"), "idtoken", string(idt, "client_id"),
                string(idt, "realm"), "",
            ].joined(separator: "-").lowercased()
            #expect(key == rebuilt, "trailing dash")
            #expect(string(idt, "secret").split(separator: ".", omittingEmptySubsequences: false).count == 3)
        }

        let accounts = written.section("Account")
        for (key, account) in accounts {
            let rebuilt = [string(account, "home_account_id"), string(account, "environment"), string(account, "realm")]
                .joined(separator: "-").lowercased()
            #expect(key == rebuilt)
            #expect(string(account, "authority_type") == "MSSTS")
            #expect(string(account, "account_source") == "authorization_code")
        }
        // One Account entry per tenant profile, realm as MSAL for Python writes it ("organizations",
        // "common" literally; a GUID only when the authority named the tenant), local id = the tenant's oid.
        var profiles: [(String, String, String, String)] = []
        for account in written.expectedAccounts {
            for profile in account["tenant_profiles"] as? [[String: Any]] ?? [] {
                profiles.append(
                    (
                        account["home_account_id"] as? String ?? "", profile["realm"] as? String ?? "",
                        profile["local_account_id"] as? String ?? "", account["username"] as? String ?? ""
                    ))
            }
        }
        #expect(accounts.count == profiles.count)
        for (homeAccountID, realm, localAccountID, username) in profiles {
            let entry = accounts["\(homeAccountID)-\(environment)-\(realm)".lowercased()]
            #expect(entry.map { string($0, "local_account_id") } == localAccountID, "\(homeAccountID) in \(realm)")
            #expect(entry.map { string($0, "username") } == username)
        }
        #expect(Set(accounts.values.map { string($0, "realm") }).isSuperset(of: ["organizations", "common"]))

        // AppMetadata keys keep their case and carry the family id of family apps.
        let metadata = written.section("AppMetadata")
        #expect(metadata.count == families.count)
        for (key, entry) in metadata {
            #expect(key == "appmetadata-\(string(entry, "environment"))-\(string(entry, "client_id"))")
            #expect(entry["family_id"] as? String == families[string(entry, "client_id")] ?? nil)
        }

        // The environment is the authority's host, not instance discovery's preferred_cache (login.windows.net).
        for name in ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"] {
            #expect(written.section(name).values.allSatisfy { string($0, "environment") == environment })
        }
        #expect(environment == "login.microsoftonline.com")
    }

    @Test("A missing MSAL for Python venv fails with a pointer to scripts/setup.sh, in CI and out")
    func missingInterpreterFails() throws {
        let nowhere = URL(fileURLWithPath: "/nonexistent/interop-venv/bin/python")
        for environment in [["CI": "true"], [:]] {
            do {
                _ = try PythonMSAL.interpreter(environment: environment, venvPython: nowhere)
                Issue.record("a missing interpreter was accepted")
            } catch let failure as PythonMSAL.Failure {
                #expect(failure.description.contains("scripts/setup.sh"))
                #expect(failure.description.contains(nowhere.path))
            }
        }
        #expect(throws: PythonMSAL.Failure.self) {
            try PythonMSAL.interpreter(environment: ["MSAL_INTEROP_PYTHON": "/nonexistent/python"], venvPython: nowhere)
        }
    }
}
