import Foundation
import Testing

@testable import MSAL

/// The token-response → cache-entry vectors of MSAL .NET, Java and Python
/// (`Fixtures/Cache/schema-vectors`): every entry's key and every member the vector lists.
///
/// The libraries differ in three choices (realm from `tid` or from the authority; scopes sorted or
/// as granted; refresh tokens with or without `target`), so each vector runs under its library's
/// ``TokenCacheWritePolicy``; swift-msal's default is MSAL .NET's (and iOS's). The cache host is
/// the caller's choice (the authority's preferred cache host), so it is taken from the vector.
/// Members a vector does not list are allowed only from ``optionalMembers``, which other MSALs
/// write and read (`token_type`, `last_modification_time`, `extended_expires_on` equal to
/// `expires_on`, the account's name claims), and AppMetadata, which MSAL .NET's vectors omit.
@Suite("Token cache schema vectors")
struct CacheSchemaVectorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var testDescription: String { name }
    }

    /// Vectors whose key disagrees with their own members (see ``check``).
    static let inconsistentVectors: Set<String> = [
        "dotnet_B2CWithTenantIdTestData.json AccessToken", "dotnet_B2CWithTenantIdTestData.json IdToken",
    ]

    static let optionalMembers: [CacheSection: Set<String>] = [
        .accessToken: ["token_type", "extended_expires_on"],
        .refreshToken: ["last_modification_time"],
        .account: ["name", "given_name", "family_name", "client_info"],
    ]

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    static func string(_ dictionary: [String: Any], _ key: String) throws -> String {
        guard let value = dictionary[key] as? String else { throw Missing(description: "no string \(key)") }
        return value
    }

    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw Missing(description: "bad URL \(text)") }
        return url
    }

    /// A value in a vector that stands for something the test supplies (`<removed_at>`, `<cached_at>`).
    static func isPlaceholder(_ value: String) -> Bool {
        value.hasPrefix("<") && value.hasSuffix(">") || value == "{0}"
    }

    /// Compares one produced entry with the vector's.
    static func check(
        _ produced: KeyedCacheEntry?, section: CacheSection, expectedKey: String?, expected: [String: Any], vector: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let produced = try #require(produced, "\(vector): no \(section.name) entry", sourceLocation: sourceLocation)
        if let expectedKey, !isPlaceholder(expectedKey) {
            var expectedEntry = CacheEntry()
            for (name, value) in expected { expectedEntry[name] = value as? String }
            let selfConsistent =
                CacheKey.key(for: expectedEntry, in: section).map(CacheText.lowercased) == CacheText.lowercased(expectedKey)
            if selfConsistent {
                #expect(produced.key == expectedKey, "\(vector) \(section.name) key", sourceLocation: sourceLocation)
            } else {
                // MSAL .NET's B2C-with-tid vector builds the key from the authority's tenant but stores the
                // tid as realm. A key must follow its entry (lookups and other libraries rebuild it from
                // the members), so the produced key is the one the expected members imply.
                #expect(
                    Self.inconsistentVectors.contains("\(vector) \(section.name)"),
                    "\(vector) \(section.name): unexpected inconsistent vector", sourceLocation: sourceLocation)
                #expect(produced.key == CacheKey.key(for: expectedEntry, in: section), sourceLocation: sourceLocation)
            }
        }
        #expect(
            CacheKey.key(for: produced.entry, in: section).map(CacheText.lowercased) == CacheText.lowercased(produced.key),
            sourceLocation: sourceLocation)
        for (name, value) in expected {
            let text = try #require(value as? String, "\(vector): \(name) is not a string", sourceLocation: sourceLocation)
            let actual = produced.entry[name]
            if isPlaceholder(text) {
                #expect(actual != nil, "\(vector) \(section.name).\(name) missing", sourceLocation: sourceLocation)
                if name.hasSuffix("_on") || name.hasSuffix("_at") {
                    #expect(
                        actual.flatMap(CacheEntry.parseSeconds) != nil, "\(vector) \(section.name).\(name) = \(actual ?? "nil")",
                        sourceLocation: sourceLocation)
                }
            } else {
                #expect(actual == text, "\(vector) \(section.name).\(name)", sourceLocation: sourceLocation)
            }
        }
        let allowed = optionalMembers[section] ?? []
        for field in produced.entry.fields where expected[field.name] == nil {
            #expect(
                allowed.contains(field.name), "\(vector) \(section.name) has unexpected member \(field.name)",
                sourceLocation: sourceLocation)
            if field.name == "extended_expires_on" {
                #expect(produced.entry["extended_expires_on"] == produced.entry["expires_on"], sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: MSAL .NET

    static let dotnet = ((try? CacheFixtures.names("schema-vectors")) ?? []).filter { $0.hasPrefix("dotnet_") }.map { Case(name: $0) }

    @Test("MSAL .NET vectors (default policy)", arguments: dotnet)
    func dotnetVector(vector: Case) throws {
        let data = try CacheFixtures.json("schema-vectors", vector.name)
        let claims = try #require(data["id_token_response"] as? [String: Any])
        let idToken = try CacheFixtures.unsignedJWT(claims)
        var response = try #require(data["token_response"] as? [String: Any])
        response["id_token"] = idToken
        let atValue = try #require(data["at_cache_value"] as? [String: Any])
        let now = try #require(CacheEntry.parseSeconds(try Self.string(atValue, "cached_at")))
        let authority = try MSALAuthority(url: try Self.url(try Self.string(data, "authority")))
        let entries = try TokenCacheEntries(
            response: try TokenResponse(parsing: Array(try JSONSerialization.data(withJSONObject: response))),
            context: TokenCacheWriteContext(
                clientID: try Self.string(data, "client_id"), environment: try Self.string(atValue, "environment"),
                authorityTenant: authority.tenant, requestedScopes: [], now: now))

        func substituted(_ key: String) throws -> [String: Any] {
            var value = try #require(data[key] as? [String: Any])
            if value["secret"] as? String == "{0}" { value["secret"] = idToken }
            return value
        }
        try Self.check(
            entries.accessToken, section: .accessToken, expectedKey: data["at_cache_key"] as? String,
            expected: substituted("at_cache_value"), vector: vector.name)
        try Self.check(
            entries.refreshToken, section: .refreshToken, expectedKey: data["rt_cache_key"] as? String,
            expected: substituted("rt_cache_value"), vector: vector.name)
        try Self.check(
            entries.idToken, section: .idToken, expectedKey: data["id_token_cache_key"] as? String,
            expected: substituted("id_token_cache_value"), vector: vector.name)
        try Self.check(
            entries.account, section: .account, expectedKey: data["account_cache_key"] as? String,
            expected: substituted("account_cache_value"), vector: vector.name)
    }

    // MARK: MSAL Java

    static let java = ((try? CacheFixtures.names("schema-vectors")) ?? []).filter { $0.hasPrefix("java_") }.map { Case(name: $0) }

    @Test("MSAL Java vectors (realm from the authority, scopes as granted)", arguments: java)
    func javaVector(vector: Case) throws {
        let data = try CacheFixtures.json("schema-vectors", vector.name)
        var response = try #require(data["token_response"] as? [String: Any])
        let claims = try #require(data["id_token_claims"] as? [String: Any])
        response["id_token"] = try CacheFixtures.unsignedJWT(claims)
        let authority = try MSALAuthority(url: try Self.url(try Self.string(data, "authority")))
        let expected = try #require(data["expected"] as? [String: Any])
        let entries = try TokenCacheEntries(
            response: try TokenResponse(parsing: Array(try JSONSerialization.data(withJSONObject: response))),
            context: TokenCacheWriteContext(
                clientID: try Self.string(data, "client_id"), environment: authority.host, authorityTenant: authority.tenant,
                requestedScopes: [], now: 1_700_000_000,
                policy: TokenCacheWritePolicy(realmSource: .authorityTenant, targetOrder: .asGranted)))
        let pairs: [(String, CacheSection, KeyedCacheEntry?)] = [
            ("access_token", .accessToken, entries.accessToken), ("refresh_token", .refreshToken, entries.refreshToken),
            ("id_token", .idToken, entries.idToken), ("account", .account, entries.account),
            ("app_metadata", .appMetadata, entries.appMetadata),
        ]
        var checked = 0
        for (name, section, produced) in pairs {
            guard let item = expected[name] as? [String: Any] else { continue }
            try Self.check(
                produced, section: section, expectedKey: item["key"] as? String, expected: item["value"] as? [String: Any] ?? [:],
                vector: vector.name)
            checked += 1
        }
        #expect(checked >= 4)
    }

    // MARK: MSAL Python

    @Test("MSAL Python TokenCache.add vectors (realm from the token endpoint, refresh tokens with target)")
    func pythonVectors() throws {
        let data = try CacheFixtures.json("schema-vectors", "python_token_cache_add.json")
        let vectors = try #require(data["vectors"] as? [[String: Any]])
        #expect(vectors.count == 3)
        for vector in vectors {
            let test = try #require(vector["test"] as? String)
            let input = try #require(vector["input"] as? [String: Any])
            let expected = try #require(vector["expected"] as? [String: Any])
            let now = try #require((input["now"] as? NSNumber)?.int64Value)
            var response = try #require(input["response"] as? [String: Any])
            if response["client_info"] != nil { response["client_info"] = CacheFixtures.clientInfo(uid: "uid", utid: "utid") }
            if response["id_token"] != nil {
                var claims = try #require(input["id_token_claims"] as? [String: Any])
                claims["exp"] = now + 100
                claims["iat"] = now
                response["id_token"] = try CacheFixtures.unsignedJWT(claims)
            }
            if test == "test_refresh_in_should_be_recorded_as_refresh_on" {
                // The vector's response has no identity; a public-client response always has one.
                response["client_info"] = CacheFixtures.clientInfo(uid: "uid", utid: "utid")
            }
            let tokenEndpoint = try Self.url(input["token_endpoint"] as? String ?? "https://login.example.com/contoso/v2/token")
            let tenant = tokenEndpoint.pathComponents.dropFirst().first ?? ""
            let parsed = TokenResponse(
                accessToken: try Self.string(response, "access_token"), tokenType: response["token_type"] as? String ?? "Bearer",
                expiresIn: (response["expires_in"] as? NSNumber)?.int64Value ?? 0,
                refreshIn: (response["refresh_in"] as? NSNumber)?.int64Value, refreshToken: response["refresh_token"] as? String,
                idToken: response["id_token"] as? String, clientInfo: response["client_info"] as? String)
            let entries = try TokenCacheEntries(
                response: parsed,
                context: TokenCacheWriteContext(
                    clientID: input["client_id"] as? String ?? "my_client_id", environment: tokenEndpoint.host ?? "",
                    authorityTenant: tenant, isADFS: tenant == "adfs", requestedScopes: input["scope"] as? [String] ?? [], now: now,
                    policy: TokenCacheWritePolicy(realmSource: .authorityTenant, targetOrder: .sorted, refreshTokenTarget: true)))
            if let refreshOn = expected["AccessToken.refresh_on"] as? String {
                #expect(entries.accessToken.entry["refresh_on"] == refreshOn, "\(test)")
                continue
            }
            func item(_ name: String) throws -> (key: String?, value: [String: Any]) {
                let item = try #require(expected[name] as? [String: Any])
                var value = try #require(item["value"] as? [String: Any])
                if value["secret"] as? String == "<id_token>" { value["secret"] = response["id_token"] }
                return (item["key"] as? String, value)
            }
            let at = try item("AccessToken")
            try Self.check(entries.accessToken, section: .accessToken, expectedKey: at.key, expected: at.value, vector: test)
            let rt = try item("RefreshToken")
            try Self.check(entries.refreshToken, section: .refreshToken, expectedKey: rt.key, expected: rt.value, vector: test)
            let idt = try item("IdToken")
            try Self.check(entries.idToken, section: .idToken, expectedKey: idt.key, expected: idt.value, vector: test)
            let account = try item("Account")
            try Self.check(entries.account, section: .account, expectedKey: account.key, expected: account.value, vector: test)
            let metadata = try item("AppMetadata")
            try Self.check(entries.appMetadata, section: .appMetadata, expectedKey: metadata.key, expected: metadata.value, vector: test)
        }
    }
}
