import Foundation
import MSALJOSE
import Testing

@testable import MSAL

/// One cache file refreshed in turn by swift-msal and the real MSAL for Python 1.39.0, five times
/// each: after every refresh the other side's silent call returns the newest access token with no
/// token request, the refresh it makes next sends the newest refresh token, and the file holds no
/// redeemed refresh token for the account under any alias or key shape.
@Suite("Token cache round trips with MSAL for Python", .serialized)
struct PythonRoundTripTests {
    /// Alice of `write_cache.py`, application 1 ("Contoso Notes"), signed in by MSAL for Python.
    static let client = "5a9c3e7b-2d4f-4a6c-8e0b-1c3d5e7f9a2b"
    static let tenant = "4d3b1f0e-8c2a-4e6b-9f7d-0a1c2e3b4d5f"
    static let authority = "https://login.microsoftonline.com/\(tenant)"

    /// The refresh tokens of `home` for the client in the file, any host, any key shape.
    static func refreshTokens(_ url: URL, home: String) throws -> [String] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let section = document["RefreshToken"] as? [String: [String: Any]] ?? [:]
        return section.values.filter {
            ($0["home_account_id"] as? String)?.lowercased() == home.lowercased() && ($0["client_id"] as? String) == client
        }.compactMap { $0["secret"] as? String }
    }

    /// A swift-msal application on the cache file, whose token endpoint answers with `accessToken`
    /// and `refreshToken` (and records what it was sent).
    struct SwiftSide {
        let transport: FlowTransport
        let app: MSALPublicClientApplication

        init(cache: URL, home: String, accessToken: String, refreshToken: String) throws {
            let (uid, utid) = (String(home.split(separator: ".")[0]), String(home.split(separator: ".")[1]))
            let recorder = Recorder<String>()
            transport = FlowTransport(token: { request in
                let form = Dictionary(request.formParameters, uniquingKeysWith: { first, _ in first })
                recorder.append(form["refresh_token"] ?? "")
                let info = Base64URL.encode(Array(#"{"uid":"\#(uid)","utid":"\#(utid)"}"#.utf8))
                return FlowTokens.success(
                    accessToken: accessToken, refreshToken: refreshToken, scope: "openid profile User.Read email",
                    expiresIn: 10 * 365 * 24 * 3600, idToken: .some(nil), clientInfo: .some(info))
            })
            self.sentStorage = recorder
            let config = MSALPublicClientApplicationConfig(
                clientId: PythonRoundTripTests.client, redirectUri: nil,
                authority: try MSALAADAuthority(url: URL(string: PythonRoundTripTests.authority)!))
            config.cacheConfig = MSALCacheConfig(storage: .file(path: cache.path))
            config.transport = transport
            app = try MSALPublicClientApplication(configuration: config)
        }

        private let sentStorage: Recorder<String>
        var refreshTokensSent: [String] { sentStorage.values }

        func silent(_ home: String, forceRefresh: Bool) async throws -> MSALResult {
            let account = try app.account(forIdentifier: home)
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
            parameters.forceRefresh = forceRefresh
            return try await app.acquireTokenSilent(with: parameters)
        }
    }

    @Test(
        "Python → Swift → Python …: five refreshes on each side, each side's newest token found by the other with 0 requests, no stale refresh token, unknown members kept"
    )
    func alternatingRefreshes() async throws {
        let written = try await PythonSelfCheckTests.WrittenCache.make()
        defer { written.remove() }
        let home = try #require(
            written.expectedAccounts.first { $0["username"] as? String == "alice@contoso.com" }?["home_account_id"] as? String)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: written.cacheURL)) as? [String: Any])
        // Members neither library knows, which both must keep.
        document["XUnknownSection"] = ["k": ["v": "kept"]]
        var accounts = document["Account"] as? [String: [String: Any]] ?? [:]
        let accountKey = try #require(accounts.first { ($0.value["home_account_id"] as? String) == home }?.key)
        accounts[accountKey]?["x_unknown_field"] = "kept too"
        document["Account"] = accounts
        try JSONSerialization.data(withJSONObject: document).write(to: written.cacheURL)
        // A token cache file is the user's alone (swift-msal refuses a group- or world-readable one).
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: written.cacheURL.path)

        var newestRefreshToken = try #require(try Self.refreshTokens(written.cacheURL, home: home).first)
        let queries = written.directory.appendingPathComponent("queries.json")
        try JSONSerialization.data(withJSONObject: [
            "client_id": Self.client, "authority": Self.authority,
            "queries": [["id": "alice", "home_account_id": home, "scopes": ["User.Read"]]],
        ]).write(to: queries)
        let spec = written.directory.appendingPathComponent("spec.json")

        for round in 1...5 {
            // swift-msal refreshes, with the refresh token MSAL for Python left.
            let swift = try SwiftSide(
                cache: written.cacheURL, home: home, accessToken: "swift-at-\(round)", refreshToken: "swift-rt-\(round)")
            let refreshed = try await swift.silent(home, forceRefresh: true)
            #expect(refreshed.accessToken == "swift-at-\(round)")
            #expect(swift.refreshTokensSent == [newestRefreshToken], "round \(round): swift-msal sent a stale refresh token")
            #expect(
                try Self.refreshTokens(written.cacheURL, home: home) == ["swift-rt-\(round)"], "round \(round): stale refresh tokens left")

            // MSAL for Python, offline, finds swift-msal's token.
            let read = try await PythonMSAL.runChecked("read_cache.py", [written.cacheURL.path, queries.path]).jsonObject()
            let result = try #require((read["results"] as? [[String: Any]])?.first)
            #expect(result["access_token"] as? String == "swift-at-\(round)", "round \(round): \(result)")
            #expect(result["token_source"] as? String == "cache")
            #expect(result["refresh_token"] as? String == "swift-rt-\(round)")
            #expect(read["token_endpoint_calls"] as? Int == 0)

            // MSAL for Python refreshes, with swift-msal's refresh token.
            try JSONSerialization.data(withJSONObject: [
                "client_id": Self.client, "authority": Self.authority, "home_account_id": home, "scopes": ["User.Read"],
                "access_token": "python-at-\(round)", "refresh_token": "python-rt-\(round)",
            ]).write(to: spec)
            let python = try await PythonMSAL.runChecked("refresh_cache.py", [written.cacheURL.path, spec.path]).jsonObject()
            #expect(python["access_token"] as? String == "python-at-\(round)", "round \(round): \(python)")
            #expect(
                python["refresh_tokens_sent"] as? [String] == ["swift-rt-\(round)"],
                "round \(round): MSAL for Python sent a stale refresh token")
            #expect(try Self.refreshTokens(written.cacheURL, home: home) == ["python-rt-\(round)"], "round \(round)")
            newestRefreshToken = "python-rt-\(round)"

            // swift-msal, offline, finds MSAL for Python's token.
            let offline = try SwiftSide(cache: written.cacheURL, home: home, accessToken: "unexpected", refreshToken: "unexpected")
            let hit = try await offline.silent(home, forceRefresh: false)
            #expect(hit.accessToken == "python-at-\(round)", "round \(round)")
            #expect(hit.tokenSource == .cache)
            #expect(offline.transport.tokenRequests.isEmpty)
        }

        let final = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: written.cacheURL)) as? [String: Any])
        #expect((final["XUnknownSection"] as? [String: Any])?["k"] as? [String: String] == ["v": "kept"])
        let finalAccount = (final["Account"] as? [String: [String: Any]])?.values.first { ($0["home_account_id"] as? String) == home }
        #expect(finalAccount?["x_unknown_field"] as? String == "kept too")
    }
}
