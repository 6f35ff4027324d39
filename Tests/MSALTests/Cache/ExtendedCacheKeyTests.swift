import Foundation
import Testing

@testable import MSAL

/// The extended cache key (``CacheExtendedKey``): the hash MSAL for Python 1.39, Go and .NET give a
/// token asked for with non-standard body fields (an FMI path, extra parameters), its `atext`
/// key, and lookups that keep such tokens apart from every other.
@Suite("Token cache: the extended cache key (FMI paths, extra body fields)")
struct ExtendedCacheKeyTests {
    typealias App = AppTokenCacheTests

    /// Values printed by MSAL for Python 1.39's own `msal.token_cache._compute_ext_cache_key`
    /// (`.build/interop-venv`); the interop tests compare with it live.
    @Test(
        "The key is MSAL for Python's for the same fields: standard fields and empty values ignored, names in byte order, lengths in bytes")
    func matchesPython() throws {
        let fmi = "cojvfy5tzae3njpkvcebguvvx5vvmnj8hphqrbogjoi"
        #expect(try CacheExtendedKey.make([("fmi_path", "SomeFmiPath/FmiCredentialPath")]) == fmi)
        #expect(
            try CacheExtendedKey.make([
                ("client_id", "x"), ("scope", "a"), ("fmi_path", "SomeFmiPath/FmiCredentialPath"), ("claims", "{}"), ("client_info", "1"),
            ]) == fmi)
        // Non-ASCII values count bytes; "Beta" sorts before "fmi_path" and "zeta"; "alpha" is empty.
        #expect(
            try CacheExtendedKey.make([("zeta", "1"), ("fmi_path", "agents/é/ü"), ("alpha", ""), ("Beta", "b")])
                == "odoty3-jaedgbxw9m5buuyyr6qj9smg5fcnlrv7zikc")
        // The length prefixes keep "fmi_path"="value" and "fmi_pat"="hvalue" apart.
        #expect(try CacheExtendedKey.make([("fmi_path", "value")]) == "n_lucewkadzv_nybtg-2wtorgf2nrns6ihlfa7vbuzg")
        #expect(try CacheExtendedKey.make([("fmi_pat", "hvalue")]) == "tjtm16m-suk2_bkniblr25lyuki40qyceco7knuyu0k")
        #expect(try CacheExtendedKey.make([("client_id", "x"), ("fmi_path", "")]) == nil)
        #expect(try CacheExtendedKey.make([]) == nil)
    }

    @Test("An app token with an extended key: member ext_cache_key, an atext key, and found only with that key")
    func appTokenIsKeptApart() throws {
        var contents = TokenCacheContents()
        let extended = try #require(try CacheExtendedKey.make([("fmi_path", "agents/a")]))
        let other = try #require(try CacheExtendedKey.make([("fmi_path", "agents/b")]))
        let entries = TokenCacheEntries(
            appTokenResponse: TokenResponse(accessToken: "fmi-a", expiresIn: 3600, extendedExpiresIn: 3600), clientID: App.client,
            environment: App.environment, realm: "tenant-a", requestedScopes: [App.graph], now: 1_000_000, extendedKey: extended)
        #expect(entries.accessToken.key == "-\(App.environment)-atext-\(App.client)-tenant-a-\(App.graph)-\(extended)")
        #expect(entries.accessToken.entry["ext_cache_key"] == extended)
        #expect(entries.accessToken.entry["credential_type"] == "AccessToken")
        contents.save(entries, clientID: App.client)
        App.save(&contents, realm: "tenant-a", secret: "plain")

        func lookup(_ key: String?) -> String? {
            contents.appToken(
                environment: App.environment, clientID: App.client, realms: ["tenant-a"], scopes: [App.graph], now: 1_000_100,
                expiryBuffer: 300, extendedKey: key)?.secret
        }
        #expect(lookup(extended) == "fmi-a")
        #expect(lookup(nil) == "plain")
        #expect(lookup(other) == nil)
        // A new plain token and another path's token replace neither.
        App.save(&contents, realm: "tenant-a", secret: "plain-2")
        contents.save(
            TokenCacheEntries(
                appTokenResponse: TokenResponse(accessToken: "fmi-b", expiresIn: 3600, extendedExpiresIn: 3600), clientID: App.client,
                environment: App.environment, realm: "tenant-a", requestedScopes: [App.graph], now: 1_000_000, extendedKey: other),
            clientID: App.client)
        #expect(lookup(extended) == "fmi-a")
        #expect(lookup(other) == "fmi-b")
        #expect(lookup(nil) == "plain-2")
        // A user's entry keyed the same way from its members (an app token's home is JSON null).
        var user = entries.accessToken.entry
        user["home_account_id"] = "uid.utid"
        #expect(CacheKey.key(for: user, in: .accessToken) == "uid.utid" + entries.accessToken.key)
    }

    @Test("A user's access token that MSAL for Python wrote with ext_cache_key is never a plain silent hit")
    func userTokenWithExtendedKeyIsSkipped() throws {
        let home = "uid.utid"
        func entry(_ secret: String, extended: String?) -> String {
            let member = extended.map { ", \"ext_cache_key\": \"\($0)\"" } ?? ""
            return """
                {"home_account_id": "\(home)", "environment": "\(App.environment)", "credential_type": "AccessToken",
                 "client_id": "\(App.client)", "secret": "\(secret)", "realm": "tenant-a", "target": "user.read",
                 "cached_at": "1000000", "expires_on": "1009000", "extended_expires_on": "1009000"\(member)}
                """
        }
        let document = """
            {"AccessToken": {
              "\(home)-\(App.environment)-atext-\(App.client)-tenant-a-user.read-abc": \(entry("extended", extended: "abc")),
              "\(home)-\(App.environment)-accesstoken-\(App.client)-tenant-a-user.read": \(entry("plain", extended: nil))
            }}
            """
        let contents = TokenCacheContents(document: try TokenCacheDocument(parsing: Array(document.utf8)))
        let found = contents.accessToken(
            homeAccountID: home, environment: App.environment, clientID: App.client, realms: ["tenant-a"], scopes: ["user.read"],
            now: 1_000_100, expiryBuffer: 300)
        #expect(found?.secret == "plain")

        let onlyExtended = """
            {"AccessToken": {"k": \(entry("extended", extended: "abc"))}}
            """
        let second = TokenCacheContents(document: try TokenCacheDocument(parsing: Array(onlyExtended.utf8)))
        #expect(
            second.accessToken(
                homeAccountID: home, environment: App.environment, clientID: App.client, realms: ["tenant-a"], scopes: ["user.read"],
                now: 1_000_100, expiryBuffer: 300) == nil)
    }

    @Test("An app token whose ext_cache_key member is empty or null is not a plain token (MSAL for Python keeps it apart too)")
    func emptyExtendedMemberIsExtended() throws {
        for member in ["\"\"", "null"] {
            let document = """
                {"AccessToken": {"-\(App.environment)-atext-\(App.client)-tenant-a-\(App.graph)-": {
                  "home_account_id": null, "environment": "\(App.environment)", "credential_type": "AccessToken",
                  "client_id": "\(App.client)", "secret": "odd", "realm": "tenant-a", "target": "\(App.graph)",
                  "cached_at": "1000000", "expires_on": "1009000", "extended_expires_on": "1009000", "ext_cache_key": \(member)}}}
                """
            let contents = TokenCacheContents(document: try TokenCacheDocument(parsing: Array(document.utf8)))
            #expect(App.appToken(contents, realm: "tenant-a") == nil, "ext_cache_key \(member)")
        }
    }
}
