import Foundation
import Testing

@testable import MSAL

/// The token scheme is carried by the cache lookup and the response check: a bearer request never
/// takes a token of another `token_type`, whoever wrote it.
@Suite("Token scheme: cache lookups and token responses")
struct TokenSchemeTests {
    static let client = "3a1f5c7e-9b2d-4f60-8e1a-5c3b7d9f1e20"
    static let resource = "https://graph.microsoft.com/.default"

    @Test("token_type is compared ignoring ASCII case (RFC 6749 §5.1)")
    func accepts() {
        #expect(TokenScheme.bearer.accepts(tokenType: "Bearer"))
        #expect(TokenScheme.bearer.accepts(tokenType: "bearer"))
        #expect(TokenScheme.bearer.accepts(tokenType: "BEARER"))
        for other in ["pop", "PoP", "DPoP", "mtls_pop", "Bearer ", "bearers", ""] {
            #expect(!TokenScheme.bearer.accepts(tokenType: other), "\(other)")
        }
    }

    /// A document with one app token and one user token per `token_type` (nil: the member left out).
    static func contents(_ tokenTypes: [String?]) throws -> TokenCacheContents {
        var members: [String] = []
        for (index, tokenType) in tokenTypes.enumerated() {
            let type = tokenType.map { "\"token_type\": \"\($0)\", " } ?? ""
            let expires = 1_003_600 + index  // the longest-lived match wins: later entries are preferred
            for home in ["", "uid.utid"] {
                members.append(
                    """
                    "\(home)-login.microsoftonline.com-accesstoken-\(client)-tenant-\(index)-\(resource)": {"home_account_id": "\(home)",
                     "environment": "login.microsoftonline.com", "credential_type": "AccessToken", "client_id": "\(client)",
                     "secret": "\(home.isEmpty ? "app" : "user")-\(tokenType ?? "none")", "realm": "tenant", \(type)"target": "\(resource)",
                     "cached_at": "1000000", "expires_on": "\(expires)"}
                    """)
            }
        }
        let document = "{\"AccessToken\": {" + members.joined(separator: ", ") + "}}"
        return TokenCacheContents(document: try TokenCacheDocument(parsing: Array(document.utf8)))
    }

    static func lookups(_ contents: TokenCacheContents) -> (app: String?, user: String?) {
        let scopes: Set<String> = [resource]
        let app = contents.appToken(
            environment: "login.microsoftonline.com", clientID: client, realms: ["tenant"], scopes: scopes, scheme: .bearer,
            now: 1_000_100, expiryBuffer: 300)
        let user = contents.accessTokenAndIDToken(
            homeAccountID: "uid.utid", environment: "login.microsoftonline.com", clientID: client, realms: ["tenant"], scopes: scopes,
            scheme: .bearer, now: 1_000_100, expiryBuffer: 300)
        return (app?.secret, user?.token.secret)
    }

    @Test("A bearer lookup passes over tokens of another token_type, even when they live longer")
    func lookupSkipsOtherSchemes() throws {
        let found = Self.lookups(try Self.contents(["Bearer", "pop", "DPoP"]))
        #expect(found.app == "app-Bearer")
        #expect(found.user == "user-Bearer")
        let none = Self.lookups(try Self.contents(["pop", "mtls_pop"]))
        #expect(none.app == nil)
        #expect(none.user == nil)
    }

    @Test("An entry without token_type, with an empty one, or with bearer in any case, is a bearer token")
    func lookupTakesUnmarkedAndAnyCase() throws {
        #expect(Self.lookups(try Self.contents([nil])).app == "app-none")
        #expect(Self.lookups(try Self.contents([""])).user == "user-")
        #expect(Self.lookups(try Self.contents(["bearer"])).user == "user-bearer")
        #expect(Self.lookups(try Self.contents(["BEARER", "pop"])).app == "app-BEARER")
    }

    @Test("A token response of another token_type is refused for a bearer request; bearer in any case is cached as Bearer")
    func responseCheck() throws {
        func body(_ tokenType: String) -> [UInt8] {
            Array(#"{"access_token": "at", "token_type": "\#(tokenType)", "expires_in": 3600}"#.utf8)
        }
        for other in ["pop", "DPoP", "mtls_pop"] {
            let error = #expect(throws: MSALFailure.self) { try TokenResponse(parsing: body(other), scheme: .bearer) }
            #expect(error?.internalCode == .internalErrorInvalidResponse)
            #expect(error?.message.contains("token_type") == true)
        }
        #expect(try TokenResponse(parsing: body("bearer"), scheme: .bearer).tokenType == "Bearer")
        let identity = #expect(throws: MSALFailure.self) {
            try ManagedIdentityResponse.parse(body("pop"), now: 1_000_000, source: .imds, scheme: .bearer)
        }
        #expect(identity?.message.contains("token_type") == true)
        #expect(try ManagedIdentityResponse.parse(body("BEARER"), now: 1_000_000, source: .imds).tokenType == "Bearer")
    }

    @Test("MSAL's PoP: a pop response is accepted in any case and cached as pop; a bearer answer to a pop request is refused")
    func popResponseCheck() throws {
        func body(_ tokenType: String) -> [UInt8] {
            Array(#"{"access_token": "at", "token_type": "\#(tokenType)", "expires_in": 3600}"#.utf8)
        }
        let scheme = TokenScheme.pop(keyID: "thumbprint")
        #expect(try TokenResponse(parsing: body("PoP"), scheme: scheme).tokenType == "pop")
        for other in ["Bearer", "DPoP", "mtls_pop"] {
            let error = #expect(throws: MSALFailure.self) { try TokenResponse(parsing: body(other), scheme: scheme) }
            #expect(error?.internalCode == .internalErrorInvalidResponse)
        }
    }

    @Test("A PoP lookup takes only a pop token bound to the same key (key_id, else kid); a bearer lookup never takes one")
    func popLookupMatchesTheKey() throws {
        func document(_ binding: String) throws -> TokenCacheContents {
            let json = """
                {"AccessToken": {"uid.utid-login.microsoftonline.com-accesstoken_with_authscheme-\(Self.client)-tenant-\(Self.resource)-pop":
                 {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "credential_type": "AccessToken",
                  "client_id": "\(Self.client)", "secret": "bound", "realm": "tenant", "token_type": "pop", \(binding)
                  "target": "\(Self.resource)", "cached_at": "1000000", "expires_on": "1003600"}}}
                """
            return TokenCacheContents(document: try TokenCacheDocument(parsing: Array(json.utf8)))
        }
        func lookup(_ contents: TokenCacheContents, _ scheme: TokenScheme) -> String? {
            contents.accessTokenAndIDToken(
                homeAccountID: "uid.utid", environment: "login.microsoftonline.com", clientID: Self.client, realms: ["tenant"],
                scopes: [Self.resource], scheme: scheme, now: 1_000_100, expiryBuffer: 300)?.token.secret
        }
        let byKeyID = try document(#""key_id": "k1","#)
        #expect(lookup(byKeyID, .pop(keyID: "k1")) == "bound")
        #expect(lookup(byKeyID, .pop(keyID: "k2")) == nil)
        #expect(lookup(byKeyID, .bearer) == nil)
        #expect(lookup(try document(#""kid": "k1","#), .pop(keyID: "k1")) == "bound")
        #expect(lookup(try document(""), .pop(keyID: "k1")) == nil)
    }

    @Test(
        "Saving a token replaces only overlapping tokens of its own scheme: a bearer and a bound token for the same scopes live side by side"
    )
    func saveKeepsSchemesApart() throws {
        var contents = TokenCacheContents()
        func save(_ tokenType: String, _ scheme: TokenScheme, secret: String) throws {
            let response = try TokenResponse(
                parsing: Array(
                    #"{"access_token": "\#(secret)", "token_type": "\#(tokenType)", "expires_in": 3600, "client_info": "eyJ1aWQiOiJ1aWQiLCJ1dGlkIjoidXRpZCJ9"}"#
                        .utf8), scheme: scheme)
            let context = TokenCacheWriteContext(
                clientID: Self.client, environment: "login.microsoftonline.com", authorityTenant: "tenant",
                requestedScopes: [Self.resource],
                now: 1_000_000, scheme: scheme)
            contents.save(try TokenCacheEntries(response: response, context: context), clientID: Self.client)
        }
        try save("Bearer", .bearer, secret: "bearer-1")
        try save("pop", .pop(keyID: "k1"), secret: "bound-1")
        #expect(contents.document.sections[CacheSection.accessToken.rawValue].count == 2)
        try save("Bearer", .bearer, secret: "bearer-2")
        let secrets = contents.document[.accessToken].values.compactMap { $0["secret"] }.sorted()
        #expect(secrets == ["bearer-2", "bound-1"])
    }
}
