import Foundation
import Testing

@testable import MSAL

/// The OAuth requests of protocol.md "Requests", built without I/O.
@Suite("Token requests: authorize URL, code, refresh and device code parameters")
struct TokenRequestsTests {
    static let tokenEndpoint = URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token")!
    static let authorizeEndpoint = URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")!
    static let clientID = "6cb04018-a3f5-46a7-b995-940c78f5aef3"

    /// The decoded query of `url`, as (name, value) pairs in order.
    static func query(_ url: URL) -> [(String, String)] {
        MSALFormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
    }

    static func dictionary(_ pairs: [(String, String)]) -> [String: [String]] {
        Dictionary(grouping: pairs, by: \.0).mapValues { $0.map(\.1) }
    }

    /// Extra query parameters that try to override every protocol parameter, in several spellings.
    static let hostileExtras: [String: String] = [
        "client_id": "evil", "CLIENT_ID": "evil", "scope": "evil", "redirect_uri": "https://evil.example", "state": "evil",
        "nonce": "evil", "code_challenge": "evil", "code_challenge_method": "plain", "response_type": "token", "prompt": "none",
        "login_hint": "evil", "domain_hint": "evil", "claims": "{}", "grant_type": "password", "refresh_token": "evil",
        "code": "evil", "code_verifier": "evil", "device_code": "evil", "client_info": "0", "Response_Mode": "fragment",
        "dc": "ESTS-PUB-WUS2-AZ1-FD000-TEST1", "slice": "testslice",
    ]

    @Test("scope: requested scopes trimmed and de-duplicated in order, then extra scopes, then openid profile offline_access once")
    func scopeParameter() {
        #expect(TokenRequests.scopeParameter(["User.Read"]) == "User.Read openid profile offline_access")
        #expect(
            TokenRequests.scopeParameter([" User.Read ", "user.read", "OpenID", "Mail.Send", ""], extra: ["Files.Read", "mail.send"])
                == "User.Read Mail.Send Files.Read openid profile offline_access")
        #expect(TokenRequests.scopeParameter([]) == "openid profile offline_access")
        #expect(
            TokenRequests.resourceScopes(["offline_access", " https://graph.microsoft.com/.default ", "PROFILE"]) == [
                "https://graph.microsoft.com/.default"
            ])
    }

    @Test("Authorize URL: every protocol.md parameter, PKCE S256, client_info=1, the optional ones only when given")
    func authorizeURL() throws {
        let url = TokenRequests.authorizeURL(
            endpoint: Self.authorizeEndpoint, clientID: Self.clientID, redirectURI: "http://localhost:51234",
            scope: "User.Read openid profile offline_access",
            state: "st4te", nonce: "n0nce", codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", prompt: "select_account",
            loginHint: "abe@contoso.com", domainHint: "contoso.com", claims: #"{"id_token":{"acr":null}}"#, extraQueryParameters: nil)
        #expect(url.absoluteString.hasPrefix("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?"))
        let query = Self.dictionary(Self.query(url))
        let expected: [String: String] = [
            "client_id": Self.clientID, "response_type": "code", "redirect_uri": "http://localhost:51234",
            "scope": "User.Read openid profile offline_access", "state": "st4te", "nonce": "n0nce",
            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256", "client_info": "1",
            "prompt": "select_account", "login_hint": "abe@contoso.com", "domain_hint": "contoso.com",
            "claims": #"{"id_token":{"acr":null}}"#,
        ]
        for (name, value) in expected {
            #expect(query[name] == [value], "\(name)")
        }

        let minimal = Self.dictionary(
            Self.query(
                TokenRequests.authorizeURL(
                    endpoint: Self.authorizeEndpoint, clientID: Self.clientID, redirectURI: "http://localhost",
                    scope: "openid profile offline_access",
                    state: "s", nonce: "n", codeChallenge: "c", prompt: nil, loginHint: "", domainHint: nil, claims: nil,
                    extraQueryParameters: nil)))
        for name in ["prompt", "login_hint", "domain_hint", "claims"] {
            #expect(minimal[name] == nil, "\(name) only when given")
        }
    }

    @Test("Authorize URL: extra query parameters are added but can never override a protocol parameter")
    func authorizeExtras() {
        let url = TokenRequests.authorizeURL(
            endpoint: Self.authorizeEndpoint, clientID: Self.clientID, redirectURI: "http://localhost",
            scope: "openid profile offline_access",
            state: "s", nonce: "n", codeChallenge: "c", prompt: nil, loginHint: nil, domainHint: nil, claims: nil,
            extraQueryParameters: Self.hostileExtras)
        let query = Self.dictionary(Self.query(url))
        #expect(query["client_id"] == [Self.clientID])
        #expect(query["CLIENT_ID"] == nil)
        #expect(query["state"] == ["s"])
        #expect(query["nonce"] == ["n"])
        #expect(query["redirect_uri"] == ["http://localhost"])
        #expect(query["code_challenge_method"] == ["S256"])
        #expect(query["response_type"] == ["code"])
        #expect(query["response_mode"] == ["query"])
        #expect(query["Response_Mode"] == nil)
        for name in [
            "prompt", "login_hint", "domain_hint", "claims", "grant_type", "refresh_token", "code", "code_verifier", "device_code",
        ] {
            #expect(query[name] == nil, "\(name) must not be smuggled in")
        }
        #expect(query["client_info"] == ["1"])
        #expect(query["dc"] == ["ESTS-PUB-WUS2-AZ1-FD000-TEST1"])
        #expect(query["slice"] == ["testslice"])
    }

    @Test("Code redemption: the form of protocol.md, never retried")
    func authorizationCode() {
        let request = TokenRequests.authorizationCode(
            tokenEndpoint: Self.tokenEndpoint, clientID: Self.clientID, code: "c0de", redirectURI: "http://localhost:51234",
            scope: "User.Read openid profile offline_access", codeVerifier: "v3rifier", claims: nil, extraQueryParameters: ["slice": "x"])
        #expect(request.method == .post)
        #expect(request.isIdempotent == false)
        #expect(request.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
        #expect(
            Self.dictionary(request.formParameters) == [
                "client_id": [Self.clientID], "grant_type": ["authorization_code"], "code": ["c0de"],
                "redirect_uri": ["http://localhost:51234"],
                "scope": ["User.Read openid profile offline_access"], "code_verifier": ["v3rifier"], "client_info": ["1"],
            ])
        #expect(Self.dictionary(Self.query(request.url)) == ["slice": ["x"]])
    }

    @Test("Refresh: client_id, grant_type, refresh_token, scope, client_info, claims when given; retried once (idempotent)")
    func refresh() {
        let request = TokenRequests.refresh(
            tokenEndpoint: Self.tokenEndpoint, clientID: Self.clientID, refreshToken: "rt",
            scope: "User.Read openid profile offline_access",
            claims: #"{"access_token":{"xms_cc":{"values":["CP1"]}}}"#, extraQueryParameters: nil)
        #expect(request.isIdempotent)
        #expect(request.url == Self.tokenEndpoint)
        #expect(
            Self.dictionary(request.formParameters) == [
                "client_id": [Self.clientID], "grant_type": ["refresh_token"], "refresh_token": ["rt"],
                "scope": ["User.Read openid profile offline_access"], "client_info": ["1"],
                "claims": [#"{"access_token":{"xms_cc":{"values":["CP1"]}}}"#],
            ])
        let noClaims = TokenRequests.refresh(
            tokenEndpoint: Self.tokenEndpoint, clientID: Self.clientID, refreshToken: "rt", scope: "s", claims: nil,
            extraQueryParameters: nil)
        #expect(!noClaims.formParameters.contains { $0.0 == "claims" })
    }

    @Test("Device code: start with client_id and scope (claims when given); poll with the RFC 8628 grant type and client_info")
    func deviceCode() {
        let endpoint = URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode")!
        let start = TokenRequests.deviceCode(
            endpoint: endpoint, clientID: Self.clientID, scope: "User.Read openid profile offline_access", claims: nil,
            extraQueryParameters: nil)
        #expect(start.url == endpoint)
        #expect(
            Self.dictionary(start.formParameters) == ["client_id": [Self.clientID], "scope": ["User.Read openid profile offline_access"]])
        let poll = TokenRequests.deviceCodePoll(
            tokenEndpoint: Self.tokenEndpoint, clientID: Self.clientID, deviceCode: "DEVICE_CODE", extraQueryParameters: nil)
        #expect(
            Self.dictionary(poll.formParameters) == [
                "client_id": [Self.clientID], "grant_type": ["urn:ietf:params:oauth:grant-type:device_code"],
                "device_code": ["DEVICE_CODE"],
                "client_info": ["1"],
            ])
    }

    @Test("Token requests: hostile extra query parameters go to the URL query minus every protocol name; the form is untouched")
    func tokenExtras() {
        let requests = [
            TokenRequests.refresh(
                tokenEndpoint: Self.tokenEndpoint, clientID: Self.clientID, refreshToken: "rt", scope: "s", claims: nil,
                extraQueryParameters: Self.hostileExtras),
            TokenRequests.authorizationCode(
                tokenEndpoint: Self.tokenEndpoint, clientID: Self.clientID, code: "c", redirectURI: "r", scope: "s",
                codeVerifier: "v", claims: nil, extraQueryParameters: Self.hostileExtras),
            TokenRequests.deviceCodePoll(
                tokenEndpoint: Self.tokenEndpoint, clientID: Self.clientID, deviceCode: "d",
                extraQueryParameters: Self.hostileExtras),
        ]
        for request in requests {
            let query = Self.dictionary(Self.query(request.url))
            // "response_mode" is reserved only for the authorize request, where it means something.
            #expect(Set(query.keys) == ["dc", "slice", "Response_Mode"], "\(request.url)")
            let form = Self.dictionary(request.formParameters)
            #expect(form["client_id"] == [Self.clientID])
            #expect(form.values.allSatisfy { $0.count == 1 })
            #expect(!form.values.joined().contains("evil"))
        }
    }

    @Test("An endpoint's own query (B2C ?p=policy) is kept when extra parameters are appended")
    func endpointQueryKept() {
        let endpoint = URL(string: "https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com/oauth2/v2.0/token?p=b2c_1_signin")!
        let request = TokenRequests.refresh(
            tokenEndpoint: endpoint, clientID: Self.clientID, refreshToken: "rt", scope: "s", claims: nil,
            extraQueryParameters: ["slice": "a b&c"])
        #expect(Self.dictionary(Self.query(request.url)) == ["p": ["b2c_1_signin"], "slice": ["a b&c"]])
    }
}
