import Foundation
import Testing

@testable import MSAL

/// App tokens (client credentials) in the unified cache: entries without a home account, as MSAL
/// for Python (`null`) and other writers (`""`, missing) store them, kept apart from users' tokens
/// and per realm.
@Suite("Token cache: app tokens")
struct AppTokenCacheTests {
    static let client = "3a1f5c7e-9b2d-4f60-8e1a-5c3b7d9f1e20"
    static let environment = "login.microsoftonline.com"
    static let graph = "https://graph.microsoft.com/.default"

    static func appToken(
        _ contents: TokenCacheContents, realm: String, scopes: [String] = [graph], now: Int64 = 1_000_100
    )
        -> CachedAccessToken?
    {
        contents.appToken(
            environment: environment, clientID: client, realms: [realm], scopes: Set(scopes.map { $0.lowercased() }), now: now,
            expiryBuffer: 300)
    }

    static func save(_ contents: inout TokenCacheContents, realm: String, scope: String = graph, secret: String, now: Int64 = 1_000_000) {
        let entries = TokenCacheEntries(
            appTokenResponse: TokenResponse(accessToken: secret, expiresIn: 3600, extendedExpiresIn: 3600), clientID: client,
            environment: environment, realm: realm, requestedScopes: [scope], now: now)
        contents.save(entries, clientID: client)
    }

    @Test(
        "Entries with home_account_id null, empty or missing are app tokens, found per realm; a user's token of the same realm is not one")
    func readsEveryWritersShape() throws {
        func entry(_ home: String?, realm: String, secret: String) -> String {
            let homeMember = home.map { "\"home_account_id\": \($0), " } ?? ""
            return """
                {\(homeMember)"environment": "login.windows.net", "credential_type": "AccessToken", "client_id": "\(Self.client)",
                 "secret": "\(secret)", "realm": "\(realm)", "target": "\(Self.graph)", "cached_at": "1000000",
                 "expires_on": "1003600", "extended_expires_on": "1003600"}
                """
        }
        let quoted = "\"\""
        let userHome = "\"uid.utid\""
        let members = [
            "\"-login.windows.net-accesstoken-\(Self.client)-tenant-a-\(Self.graph)\": "
                + entry("null", realm: "tenant-a", secret: "python"),
            "\"-login.windows.net-accesstoken-\(Self.client)-tenant-b-\(Self.graph)\": "
                + entry(quoted, realm: "tenant-b", secret: "empty"),
            "\"--login.windows.net-accesstoken-\(Self.client)-tenant-c-\(Self.graph)\": "
                + entry(nil, realm: "Tenant-C", secret: "missing"),
            "\"uid.utid-login.windows.net-accesstoken-\(Self.client)-tenant-a-\(Self.graph)\": "
                + entry(userHome, realm: "tenant-a", secret: "user"),
        ]
        let document = "{\"AccessToken\": {" + members.joined(separator: ", ") + "}}"
        let contents = TokenCacheContents(document: try TokenCacheDocument(parsing: Array(document.utf8)))
        // Looked up under another alias of the cloud, and a realm in another case.
        #expect(Self.appToken(contents, realm: "tenant-a")?.secret == "python")
        #expect(Self.appToken(contents, realm: "tenant-b")?.secret == "empty")
        #expect(Self.appToken(contents, realm: "tenant-c")?.secret == "missing")
        #expect(Self.appToken(contents, realm: "tenant-d") == nil)
        #expect(Self.appToken(contents, realm: "tenant-a", scopes: ["api://other/.default"]) == nil)
        #expect(Self.appToken(contents, realm: "tenant-a", now: 1_003_400) == nil, "within the expiry buffer")
        // The user's token is the user's only, and no app token is ever a user's.
        let user = contents.accessToken(
            homeAccountID: "uid.utid", environment: Self.environment, clientID: Self.client, realms: ["tenant-a"],
            scopes: [Self.graph], now: 1_000_100, expiryBuffer: 300)
        #expect(user?.secret == "user")
        #expect(contents.accountKeys(clientID: Self.client, environment: nil).isEmpty)
    }

    @Test("Saved app tokens: per realm and resource, a new one replaces the old for the same resource only; null home in the JSON")
    func savesAndReplaces() throws {
        var contents = TokenCacheContents()
        Self.save(&contents, realm: "tenant-a", secret: "one")
        Self.save(&contents, realm: "tenant-a", scope: "api://backend/.default", secret: "backend")
        Self.save(&contents, realm: "tenant-b", secret: "other tenant")
        Self.save(&contents, realm: "tenant-a", secret: "two")
        #expect(contents.document[.accessToken].count == 3)
        #expect(Self.appToken(contents, realm: "tenant-a")?.secret == "two")
        #expect(Self.appToken(contents, realm: "tenant-a", scopes: ["api://backend/.default"])?.secret == "backend")
        #expect(Self.appToken(contents, realm: "tenant-b")?.secret == "other tenant")

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contents.document.serialized())) as? [String: Any])
        let tokens = try #require(json["AccessToken"] as? [String: [String: Any]])
        let key = "-login.microsoftonline.com-accesstoken-\(Self.client)-tenant-a-\(Self.graph)"
        let entry = try #require(tokens[key])
        #expect(entry["home_account_id"] is NSNull)
        #expect(entry["secret"] as? String == "two")
        #expect((json["AppMetadata"] as? [String: Any])?.count == 1)
        // Read back: the same answers.
        let reread = TokenCacheContents(document: try TokenCacheDocument(parsing: contents.document.serialized()))
        #expect(Self.appToken(reread, realm: "tenant-a")?.secret == "two")
        #expect(Self.appToken(reread, realm: "tenant-b")?.secret == "other tenant")
    }

    @Test("1,000 tenants: every tenant's token is found, and each lookup reads only its realm's entries")
    func manyTenants() throws {
        var contents = TokenCacheContents()
        for index in 0..<1000 { Self.save(&contents, realm: "tenant-\(index)", secret: "token-\(index)") }
        for index in stride(from: 0, to: 1000, by: 97) {
            #expect(Self.appToken(contents, realm: "tenant-\(index)")?.secret == "token-\(index)")
        }
        let bucket = contents.index.accounts[
            TokenCacheIndex.accountKey(
                home: TokenCacheIndex.applicationHome(realm: "tenant-5"), environment: Self.environment, aliases: contents.aliases)]
        #expect(bucket?.count == 1)
    }
}
