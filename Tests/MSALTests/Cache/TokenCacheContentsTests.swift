import Foundation
import Testing

@testable import MSAL

/// The indexed in-memory cache: what a token response writes, what lookups find, what removal takes.
@Suite("Token cache contents")
struct TokenCacheContentsTests {
    static let client = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let sibling = "11111111-2222-3333-4444-555555555555"
    static let homeTenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let guestTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    static func response(
        uid: String = "9f4880d8", utid: String = homeTenant, tid: String? = nil, scope: String = "User.Read openid profile",
        accessToken: String = "at", refreshToken: String? = "rt", expiresIn: Int64 = 3600, foci: String? = nil,
        username: String = "user@contoso.com"
    ) throws -> TokenResponse {
        var claims: [String: Any] = ["oid": uid, "sub": "sub-" + uid, "tid": tid ?? utid, "preferred_username": username, "name": "User"]
        claims["iss"] = "https://login.microsoftonline.com/\(tid ?? utid)/v2.0"
        return TokenResponse(
            accessToken: accessToken, expiresIn: expiresIn, extendedExpiresIn: expiresIn * 2, refreshToken: refreshToken,
            idToken: try CacheFixtures.unsignedJWT(claims), clientInfo: CacheFixtures.clientInfo(uid: uid, utid: utid), scope: scope,
            familyID: foci)
    }

    static func context(
        client: String = client, tenant: String = "common", now: Int64 = 1_000_000, scopes: [String] = ["User.Read"]
    ) -> TokenCacheWriteContext {
        TokenCacheWriteContext(
            clientID: client, environment: "login.windows.net", authorityTenant: tenant, requestedScopes: scopes, now: now)
    }

    static func save(_ contents: inout TokenCacheContents, _ response: TokenResponse, _ context: TokenCacheWriteContext = context()) throws
    {
        contents.save(try TokenCacheEntries(response: response, context: context), clientID: context.clientID)
    }

    static func lookup(
        _ contents: TokenCacheContents, home: String = "9f4880d8.\(homeTenant)", environment: String = "login.microsoftonline.com",
        client: String = client, realm: String = homeTenant, scopes: [String], now: Int64 = 1_000_100
    ) -> CachedAccessToken? {
        contents.accessToken(
            homeAccountID: home, environment: environment, clientID: client, realms: [realm],
            scopes: TokenCacheContents.lookupScopes(scopes),
            now: now, expiryBuffer: 300)
    }

    @Test("A saved access token is found under any alias of its cloud, for a subset of its scopes, ignoring case and OIDC scopes")
    func lookupRules() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(scope: "User.Read Mail.Read openid profile offline_access"))
        for environment in ["login.microsoftonline.com", "login.windows.net", "LOGIN.MICROSOFT.COM", "sts.windows.net"] {
            #expect(Self.lookup(contents, environment: environment, scopes: ["user.read"])?.secret == "at", "\(environment)")
        }
        #expect(Self.lookup(contents, scopes: ["User.Read", "Mail.Read", "openid", "offline_access"]) != nil)
        #expect(Self.lookup(contents, scopes: ["User.Read", "Calendars.Read"]) == nil)
        #expect(Self.lookup(contents, environment: "login.microsoftonline.us", scopes: ["User.Read"]) == nil)
        #expect(Self.lookup(contents, client: Self.sibling, scopes: ["User.Read"]) == nil)
        #expect(Self.lookup(contents, realm: Self.guestTenant, scopes: ["User.Read"]) == nil)
        #expect(Self.lookup(contents, home: "other.\(Self.homeTenant)", scopes: ["User.Read"]) == nil)
        let found = try #require(Self.lookup(contents, scopes: ["User.Read"]))
        #expect(found.target == "Mail.Read offline_access openid profile User.Read")
        #expect(found.expiresOn == 1_003_600)
        #expect(found.extendedExpiresOn == 1_007_200)
        #expect(found.realm == Self.homeTenant)
    }

    @Test("A token read from a document gives every member as written, whether the lookup read it or left it in the entry")
    func membersReadFromTheEntry() throws {
        let home = "9f4880d8.\(Self.homeTenant)"
        let document = """
            {"AccessToken": {"k1": {"home_account_id": "\(home)", "environment": "login.windows.net",
            "credential_type": "AccessToken", "client_id": "\(Self.client)", "secret": "at-\\u00e9",
            "realm": "\(Self.homeTenant.uppercased())", "target": "User.Read Mail.Read", "token_type": "bearer",
            "cached_at": "1000000", "expires_on": "1003600", "ext_expires_on": "1007200", "refresh_on": "1001800"},
            "k2": {"home_account_id": "\(home)", "environment": "login.windows.net", "credential_type": "AccessToken",
            "client_id": "\(Self.client)", "secret": "at2", "realm": "\(Self.homeTenant)", "target": "Files.Read",
            "expires_on": "1003600"}}}
            """
        let contents = TokenCacheContents(document: try TokenCacheDocument(parsing: Array(document.utf8)))
        let found = try #require(Self.lookup(contents, scopes: ["mail.read"]))
        #expect(found.key == "k1" && found.secret == "at-\u{e9}" && found.target == "User.Read Mail.Read")
        #expect(found.realm == Self.homeTenant.uppercased() && found.expiresOn == 1_003_600)
        // As written (lower case), not the schema's default: a bearer lookup takes any case (TokenSchemeTests).
        #expect(found.tokenType == "bearer" && found.homeAccountID == home && found.environment == "login.windows.net")
        #expect(found.cachedAt == 1_000_000 && found.extendedExpiresOn == 1_007_200 && found.refreshOn == 1_001_800)
        // Members a writer left out: the defaults the unified schema implies.
        let bare = try #require(Self.lookup(contents, scopes: ["files.read"]))
        #expect(bare.tokenType == "Bearer" && bare.cachedAt == nil && bare.extendedExpiresOn == nil && bare.refreshOn == nil)
        #expect(bare.realm == Self.homeTenant && bare != found)
    }

    @Test("An access token within the expiry buffer is not returned, and the read deletes nothing")
    func expiry() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(expiresIn: 3600))
        try Self.save(&contents, Self.response(uid: "other", accessToken: "other-at", expiresIn: 10))
        #expect(Self.lookup(contents, scopes: ["User.Read"], now: 1_003_600 - 301) != nil)
        #expect(Self.lookup(contents, scopes: ["User.Read"], now: 1_003_600 - 300) == nil)
        #expect(Self.lookup(contents, scopes: ["User.Read"], now: 2_000_000) == nil)
        #expect(contents.document[.accessToken].count == 2)
        let revision = contents.revision
        _ = Self.lookup(contents, home: "other.\(Self.homeTenant)", scopes: ["User.Read"], now: 2_000_000)
        #expect(contents.revision == revision)
    }

    @Test("A new access token replaces the account's tokens whose scopes overlap it, and keeps the others")
    func replacement() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(scope: "User.Read Mail.Read", accessToken: "first"))
        try Self.save(&contents, Self.response(scope: "Calendars.Read", accessToken: "calendar"))
        try Self.save(&contents, Self.response(uid: "someone", scope: "User.Read", accessToken: "theirs"))
        try Self.save(&contents, Self.response(scope: "User.Read", accessToken: "second"))
        #expect(Self.lookup(contents, scopes: ["User.Read"])?.secret == "second")
        #expect(Self.lookup(contents, scopes: ["Mail.Read"]) == nil)
        #expect(Self.lookup(contents, scopes: ["Calendars.Read"])?.secret == "calendar")
        #expect(Self.lookup(contents, home: "someone.\(Self.homeTenant)", scopes: ["User.Read"])?.secret == "theirs")
        #expect(contents.document[.accessToken].count == 3)
    }

    @Test("Refresh tokens rotate in place; a response without one keeps the old one")
    func refreshRotation() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(refreshToken: "rt1"))
        try Self.save(&contents, Self.response(refreshToken: "rt2"))
        #expect(contents.document[.refreshToken].count == 1)
        let home = "9f4880d8.\(Self.homeTenant)"
        #expect(
            contents.refreshToken(homeAccountID: home, environment: "login.microsoftonline.com", clientID: Self.client)?.entry["secret"]
                == "rt2")
        try Self.save(&contents, Self.response(refreshToken: nil))
        #expect(
            contents.refreshToken(homeAccountID: home, environment: "login.windows.net", clientID: Self.client)?.entry["secret"] == "rt2")
        try Self.save(&contents, Self.response(refreshToken: ""))
        #expect(
            contents.refreshToken(homeAccountID: home, environment: "login.windows.net", clientID: Self.client)?.entry["secret"] == "rt2")
    }

    @Test(
        "A new refresh token replaces the account's others for the client under every alias and key shape; other clients' and accounts' stay"
    )
    func refreshReplacesEveryShape() throws {
        let home = "9f4880d8.\(Self.homeTenant)"
        var contents = TokenCacheContents()
        func rt(
            _ environment: String, client: String = Self.client, target: String = "", family: String? = nil, home: String = home,
            secret: String
        ) {
            var entry = CacheEntry([
                "home_account_id": home, "environment": environment, "client_id": client, "credential_type": "RefreshToken",
                "secret": secret, "last_modification_time": "100",
            ])
            if let family { entry["family_id"] = family }
            let key = CacheText.lowercased("\(home)-\(environment)-refreshtoken-\(family ?? client)--\(target)")
            contents.upsert(entry, key: key, in: .refreshToken)
        }
        rt("login.microsoftonline.com", secret: "python-old")  // MSAL for Python: the configured host
        rt("login.windows.net", target: "user.read openid profile", secret: "dotnet-with-target")  // another key shape
        rt("sts.windows.net", secret: "alias-old")
        rt("login.microsoftonline.com", client: Self.sibling, secret: "sibling-own")  // another client
        rt("login.microsoftonline.com", client: Self.sibling, family: "1", secret: "family")  // a family the response is not in
        rt("login.microsoftonline.com", home: "other.\(Self.homeTenant)", secret: "other-account")
        rt("login.microsoftonline.us", secret: "other-cloud")  // another alias group
        try Self.save(
            &contents, Self.response(refreshToken: "rt-new"),
            TokenCacheWriteContext(
                clientID: Self.client, environment: "login.microsoftonline.com", authorityTenant: "common", requestedScopes: ["User.Read"],
                now: 2_000))
        let secrets = Set(contents.document[.refreshToken].values.compactMap { $0["secret"] })
        #expect(secrets == ["rt-new", "sibling-own", "family", "other-account", "other-cloud"])

        // A family refresh token replaces the family's under every alias and the client's own (which
        // it supersedes), not another client's.
        rt("login.windows.net", client: Self.sibling, family: "1", secret: "family-alias")
        try Self.save(
            &contents, Self.response(refreshToken: "family-new", foci: "1"),
            TokenCacheWriteContext(
                clientID: Self.sibling, environment: "login.microsoftonline.com", authorityTenant: "common", requestedScopes: ["User.Read"],
                now: 3_000))
        let after = Set(contents.document[.refreshToken].values.compactMap { $0["secret"] })
        #expect(after == ["rt-new", "family-new", "other-account", "other-cloud"])
    }

    @Test("Of several matching refresh tokens the newest by last_modification_time is used; equal times: the last in the document")
    func newestRefreshToken() throws {
        let home = "9f4880d8.\(Self.homeTenant)"
        var contents = TokenCacheContents()
        for (environment, time, secret) in [
            ("login.windows.net", "300", "newest"), ("login.microsoftonline.com", "100", "older"), ("sts.windows.net", nil, "no-time"),
        ] {
            var entry = CacheEntry([
                "home_account_id": home, "environment": environment, "client_id": Self.client, "credential_type": "RefreshToken",
                "secret": secret,
            ])
            if let time { entry["last_modification_time"] = time }
            contents.upsert(entry, key: "\(home)-\(environment)-refreshtoken-\(Self.client)--", in: .refreshToken)
        }
        #expect(
            contents.refreshToken(homeAccountID: home, environment: "login.microsoftonline.com", clientID: Self.client)?.entry["secret"]
                == "newest")
        var tie = CacheEntry([
            "home_account_id": home, "environment": "login.microsoft.com", "client_id": Self.client, "credential_type": "RefreshToken",
            "secret": "tie-later", "last_modification_time": "300",
        ])
        contents.upsert(tie, key: "\(home)-login.microsoft.com-refreshtoken-\(Self.client)--", in: .refreshToken)
        #expect(
            contents.refreshToken(homeAccountID: home, environment: "login.windows.net", clientID: Self.client)?.entry["secret"]
                == "tie-later")
        // The environment a new token is written under: the newest refresh token's host.
        #expect(
            contents.existingEnvironment(homeAccountID: home, environment: "login.windows.net", clientID: Self.client, familyID: nil)
                == "login.microsoft.com")
        tie["last_modification_time"] = "1"
        contents.upsert(tie, key: "\(home)-login.microsoft.com-refreshtoken-\(Self.client)--", in: .refreshToken)
        #expect(
            contents.existingEnvironment(homeAccountID: home, environment: "login.windows.net", clientID: Self.client, familyID: nil)
                == "login.windows.net")
    }

    @Test("A FOCI response stores a family refresh token that a sibling of the family can use")
    func familyRefreshToken() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(refreshToken: "frt", foci: "1"))
        let (key, entry) = try #require(contents.document[.refreshToken].first)
        #expect(key.hasSuffix("-refreshtoken-1--"))
        #expect(entry["family_id"] == "1")
        #expect(entry["client_id"] == Self.client)
        #expect(contents.document[.appMetadata].values.first?["family_id"] == "1")
        let home = "9f4880d8.\(Self.homeTenant)"
        #expect(
            contents.refreshToken(homeAccountID: home, environment: "login.windows.net", clientID: Self.client)?.entry["secret"] == "frt")
        // A sibling without AppMetadata is assumed to be in family "1" (as MSAL for iOS and Python do):
        // it finds the family token and lists the account.
        #expect(
            contents.refreshToken(homeAccountID: home, environment: "login.windows.net", clientID: Self.sibling)?.entry["secret"] == "frt")
        #expect(contents.accounts(clientID: Self.sibling, environment: nil, signedInOnly: true).count == 1)
        // Once its AppMetadata says it is in no family (client_mismatch), it finds and lists nothing.
        let siblingMetadata = CacheKey.appMetadata(environment: "login.windows.net", clientID: Self.sibling)
        contents.upsert(
            CacheEntry(["client_id": Self.sibling, "environment": "login.windows.net", "family_id": ""]), key: siblingMetadata,
            in: .appMetadata)
        #expect(contents.refreshToken(homeAccountID: home, environment: "login.windows.net", clientID: Self.sibling) == nil)
        #expect(contents.accounts(clientID: Self.sibling, environment: nil, signedInOnly: true).isEmpty)
        // Signing the account out of the sibling then leaves the family's token alone.
        #expect(contents.removeAccount(homeAccountID: home, environment: "login.windows.net", clientID: Self.sibling) == 0)
        #expect(contents.document[.refreshToken].count == 1)
        // A later non-FOCI response for the first client does not drop the family membership.
        try Self.save(&contents, Self.response(refreshToken: nil))
        #expect(contents.document[.appMetadata].values.first { $0["client_id"] == Self.client }?["family_id"] == "1")
        #expect(contents.accounts(clientID: Self.client, environment: nil, signedInOnly: true).count == 1)
    }

    @Test("A guest tenant adds a tenant profile to the same account; the home profile comes first")
    func guestProfiles() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(tid: Self.guestTenant, accessToken: "guest-at"), Self.context(tenant: Self.guestTenant))
        try Self.save(&contents, Self.response(accessToken: "home-at"))
        let accounts = contents.accounts(clientID: Self.client, environment: "login.microsoftonline.com", signedInOnly: true)
        #expect(accounts.count == 1)
        let account = try #require(accounts.first)
        #expect(account.identifier == "9f4880d8.\(Self.homeTenant)")
        #expect(account.homeAccountId?.objectId == "9f4880d8")
        #expect(account.homeAccountId?.tenantId == Self.homeTenant)
        #expect(account.username == "user@contoso.com")
        #expect(account.environment == "login.windows.net")
        let profiles = try #require(account.tenantProfiles)
        #expect(profiles.map(\.tenantId) == [Self.homeTenant, Self.guestTenant])
        #expect(profiles.map(\.isHomeTenantProfile) == [true, false])
        #expect(profiles[1].claims?["tid"] as? String == Self.guestTenant)
        #expect(account.accountClaims?["tid"] as? String == Self.homeTenant)
        #expect(Self.lookup(contents, realm: Self.guestTenant, scopes: ["User.Read"])?.secret == "guest-at")
        #expect(Self.lookup(contents, scopes: ["User.Read"])?.secret == "home-at")
    }

    @Test("Removing an account takes this client's tokens; the account stays while another client holds one")
    func removal() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response())
        try Self.save(&contents, Self.response(tid: Self.guestTenant), Self.context(tenant: Self.guestTenant))
        try Self.save(&contents, Self.response(accessToken: "sibling-at", refreshToken: "sibling-rt"), Self.context(client: Self.sibling))
        try Self.save(&contents, Self.response(uid: "bystander"))
        let home = "9f4880d8.\(Self.homeTenant)"
        contents.removeAccount(homeAccountID: home, environment: "login.microsoftonline.com", clientID: Self.client)
        #expect(Self.lookup(contents, scopes: ["User.Read"]) == nil)
        #expect(contents.refreshToken(homeAccountID: home, environment: "login.windows.net", clientID: Self.client) == nil)
        #expect(
            contents.accounts(clientID: Self.client, environment: nil, signedInOnly: false).map(\.identifier) == [
                "bystander.\(Self.homeTenant)"
            ])
        #expect(contents.accounts(clientID: Self.sibling, environment: nil, signedInOnly: true).count == 1)
        #expect(Self.lookup(contents, client: Self.sibling, scopes: ["User.Read"])?.secret == "sibling-at")
        #expect(contents.document[.account].count == 3)  // two profiles of the account, one of the bystander

        contents.removeAccount(homeAccountID: home, environment: "login.windows.net", clientID: Self.sibling)
        #expect(contents.document[.account].count == 1)
        #expect(contents.document[.accessToken].values.allSatisfy { $0["home_account_id"] == "bystander.\(Self.homeTenant)" })
        #expect(contents.document[.refreshToken].count == 1)
        #expect(contents.document[.idToken].count == 1)
    }

    @Test("signedInOnly leaves out accounts known only from an ID token")
    func signedInOnly() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(refreshToken: nil))
        #expect(contents.accounts(clientID: Self.client, environment: nil, signedInOnly: true).isEmpty)
        #expect(contents.accounts(clientID: Self.client, environment: nil, signedInOnly: false).count == 1)
    }

    @Test("Updating an entry keeps members a newer writer added, and replaces the token's own members")
    func mergeKeepsUnknownMembers() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(accessToken: "old"))
        let (key, entry) = try #require(contents.document[.accessToken].first)
        var extended = entry
        extended.fields.append(CacheField(name: "future_field", value: .raw(Array(#"{"a":[1,2]}"#.utf8))))
        contents.upsert(extended, key: key, in: .accessToken)
        try Self.save(&contents, Self.response(accessToken: "new"))
        let updated = try #require(contents.document[.accessToken][key])
        #expect(updated["secret"] == "new")
        #expect(updated.fields.contains { $0.name == "future_field" && $0.value == .raw(Array(#"{"a":[1,2]}"#.utf8)) })
        #expect(updated.fields.filter { $0.name == "secret" }.count == 1)
    }

    @Test("A token response without client_info or a sub claim is rejected, not cached under an empty account")
    func unidentifiedResponse() throws {
        let response = TokenResponse(accessToken: "at", expiresIn: 3600)
        #expect(throws: MSALFailure.self) { try TokenCacheEntries(response: response, context: Self.context()) }
        let badClientInfo = TokenResponse(accessToken: "at", expiresIn: 3600, clientInfo: "%%%")
        let error = try #require(throws: MSALFailure.self) { try TokenCacheEntries(response: badClientInfo, context: Self.context()) }
        #expect(error.internalCode == .invalidClientInfo)
    }

    @Test("The writer's output reads back to the same contents")
    func writeReadBack() throws {
        var contents = TokenCacheContents()
        try Self.save(&contents, Self.response(foci: "1"))
        try Self.save(&contents, Self.response(uid: "b", tid: Self.guestTenant), Self.context(tenant: Self.guestTenant))
        let bytes = contents.document.serialized()
        let reread = try TokenCacheDocument(parsing: bytes)
        #expect(reread == contents.document)
        _ = try CacheFixtures.foundationJSON(bytes)
    }
}
