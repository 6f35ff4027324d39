import Foundation
import Testing

@testable import MSAL

/// On-behalf-of tokens in the cache: kept under the hash of their incoming assertion, apart from
/// the same user's own tokens, and found only for the exact hash.
@Suite("Token cache: on-behalf-of tokens")
struct OnBehalfOfCacheTests {
    typealias Contents = TokenCacheContentsTests
    static let home = "9f4880d8.\(Contents.homeTenant)"
    static let hashA = "qvObV7FRtI7-h7IpM2y-QJ27xCYZ35cEseiwL0d4wXs"
    /// `hashA` with its letters' case swapped: equal to the index's lower-cased bucket, but another hash.
    static let hashACaseSwapped = "QVoBv7frTi7-H7iPm2Y-qj27XcyZ35CeSEIWl0D4WxS"

    static func saveOnBehalfOf(
        _ contents: inout TokenCacheContents, hash: String, accessToken: String, refreshToken: String? = "obo-rt",
        scope: String = "User.Read openid profile"
    ) throws {
        var entries = try TokenCacheEntries(
            response: Contents.response(scope: scope, accessToken: accessToken, refreshToken: refreshToken), context: Contents.context())
        entries.markOnBehalfOf(assertionHash: hash)
        contents.save(entries, clientID: Contents.client)
    }

    static func onBehalfOf(_ contents: TokenCacheContents, hash: String, scopes: [String] = ["User.Read"]) -> CachedAccessToken? {
        contents.onBehalfOfAccessToken(
            hash: hash, environment: "login.microsoftonline.com", clientID: Contents.client, realms: [Contents.homeTenant],
            scopes: TokenCacheContents.lookupScopes(scopes), now: 1_000_100, expiryBuffer: 300)
    }

    @Test("The assertion hash is the base64url SHA-256 of the assertion's bytes (FIPS 180-2 vector)")
    func hash() throws {
        #expect(try OnBehalfOfFlow.assertionHash("abc") == "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0")
        #expect(try OnBehalfOfFlow.assertionHash("").count == 43)
    }

    @Test("A JWT is three or five base64url segments; anything else is refused before the wire")
    func compactJWT() {
        for good in ["a.b.c", "eyJ.eyJ.sig", "a.b.c.d.e", "..", "-_.-_.-_"] { #expect(OnBehalfOfFlow.isCompactJWT(good), "\(good)") }
        for bad in ["", "abc", "a.b", "a.b.c.d", "a.b.c.d.e.f", "Bearer a.b.c", "a.b.c\n", "a.b+/.c", "a.b.c=", "ä.b.c"] {
            #expect(!OnBehalfOfFlow.isCompactJWT(bad), "\(bad)")
        }
    }

    @Test("The user's own lookups never see on-behalf-of tokens, and neither kind replaces the other")
    func apartFromTheUsersOwn() throws {
        var contents = TokenCacheContents()
        try Contents.save(&contents, Contents.response(accessToken: "own-at", refreshToken: "own-rt"))
        try Self.saveOnBehalfOf(&contents, hash: Self.hashA, accessToken: "obo-at")
        #expect(contents.document[.accessToken].count == 2)
        #expect(contents.document[.refreshToken].count == 2)
        #expect(Contents.lookup(contents, scopes: ["User.Read"])?.secret == "own-at")
        let own = contents.refreshToken(homeAccountID: Self.home, environment: "login.windows.net", clientID: Contents.client)
        #expect(own?.entry["secret"] == "own-rt")
        #expect(Self.onBehalfOf(contents, hash: Self.hashA)?.secret == "obo-at")
        let obo = try #require(
            contents.onBehalfOfRefreshToken(hash: Self.hashA, environment: "login.windows.net", clientID: Contents.client))
        #expect(obo.entry["secret"] == "obo-rt")
        #expect(obo.key.hasSuffix("-obo"))

        // A new sign-in of the user replaces only the user's own tokens, and the other way round.
        try Contents.save(&contents, Contents.response(accessToken: "own-at-2", refreshToken: "own-rt-2"))
        #expect(Self.onBehalfOf(contents, hash: Self.hashA)?.secret == "obo-at")
        try Self.saveOnBehalfOf(&contents, hash: Self.hashA, accessToken: "obo-at-2", refreshToken: "obo-rt-2")
        #expect(Contents.lookup(contents, scopes: ["User.Read"])?.secret == "own-at-2")
        #expect(Self.onBehalfOf(contents, hash: Self.hashA)?.secret == "obo-at-2")
        #expect(contents.document[.accessToken].count == 2)
        #expect(contents.document[.refreshToken].count == 2)
        // One ID token and Account entry: they describe the user, whoever asked.
        #expect(contents.document[.idToken].count == 1)
        #expect(contents.document[.account].count == 1)
    }

    @Test("Only the exact hash finds a token: another hash, or the same letters in another case, finds nothing")
    func exactHash() throws {
        var contents = TokenCacheContents()
        try Self.saveOnBehalfOf(&contents, hash: Self.hashA, accessToken: "obo-at")
        #expect(Self.onBehalfOf(contents, hash: Self.hashA) != nil)
        #expect(Self.onBehalfOf(contents, hash: Self.hashACaseSwapped) == nil)
        #expect(Self.onBehalfOf(contents, hash: String(Self.hashA.dropLast()) + "Y") == nil)
        let swapped = contents.onBehalfOfRefreshToken(
            hash: Self.hashACaseSwapped, environment: "login.windows.net", clientID: Contents.client)
        #expect(swapped == nil)
        // The same user's token for another assertion replaces it (one per user and scopes), and is the other's only.
        try Self.saveOnBehalfOf(&contents, hash: Self.hashACaseSwapped, accessToken: "obo-at-b")
        #expect(Self.onBehalfOf(contents, hash: Self.hashA) == nil)
        #expect(Self.onBehalfOf(contents, hash: Self.hashACaseSwapped)?.secret == "obo-at-b")
        #expect(contents.document[.accessToken].count == 1)
    }

    @Test("A token another library wrote under the user's own key with user_assertion_hash loses the member when this library replaces it")
    func hashNotInherited() throws {
        var contents = TokenCacheContents()
        let entries = try TokenCacheEntries(response: Contents.response(accessToken: "dotnet-obo-at"), context: Contents.context())
        var foreign = entries.accessToken.entry
        foreign.members.append(CacheMember(name: "user_assertion_hash", value: .string(Self.hashA)))
        contents.upsert(foreign, key: entries.accessToken.key, in: .accessToken)
        #expect(Contents.lookup(contents, scopes: ["User.Read"]) == nil, "an on-behalf-of token is not the user's own")
        #expect(Self.onBehalfOf(contents, hash: Self.hashA)?.secret == "dotnet-obo-at")
        try Contents.save(&contents, Contents.response(accessToken: "own-at"))
        #expect(contents.entry(entries.accessToken.key, in: .accessToken)?["user_assertion_hash"] == nil)
        #expect(Contents.lookup(contents, scopes: ["User.Read"])?.secret == "own-at")
        #expect(Self.onBehalfOf(contents, hash: Self.hashA) == nil)
    }

    @Test("The index gives the same answers after the document is read back")
    func reindexed() throws {
        var contents = TokenCacheContents()
        try Contents.save(&contents, Contents.response(accessToken: "own-at", refreshToken: "own-rt"))
        try Self.saveOnBehalfOf(&contents, hash: Self.hashA, accessToken: "obo-at")
        let rebuilt = TokenCacheContents(document: contents.document)
        #expect(Contents.lookup(rebuilt, scopes: ["User.Read"])?.secret == "own-at")
        #expect(Self.onBehalfOf(rebuilt, hash: Self.hashA)?.secret == "obo-at")
        #expect(Self.onBehalfOf(rebuilt, hash: Self.hashACaseSwapped) == nil)
    }
}
