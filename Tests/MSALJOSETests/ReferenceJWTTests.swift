import Foundation
import MSALJSON
import Testing

@testable import MSALJOSE

/// Real tokens, client_info strings and a JWKS taken from the MSAL.js and MSAL.NET test suites
/// (Fixtures/JWT, see its README). Their signing keys are not available, so tokens are only decoded
/// (`JWT.decodeUnverified`), never verified. Expected values are read with Foundation, independently of
/// the project's JSON reader.
@Suite("Reference JWTs, client_info and JWKS from the MSAL.js / MSAL.NET test suites")
struct ReferenceJWTTests {
    /// One token file and the values MSAL reads from it.
    struct TokenCase: Sendable, CustomTestStringConvertible {
        let file: String
        /// The matching entry of msaljs_id_token_claims.json, when it has one.
        let expectationKey: String?
        let kid: String
        let oid: String
        let tid: String
        let preferredUsername: String?
        let name: String
        let upn: String?
        let email: String?
        let ver: String
        var testDescription: String { file }
    }

    static let tokens: [TokenCase] = [
        // AAD v1.0 token; its payload segment ends in `=` padding.
        TokenCase(
            file: "msaljs_IDTOKEN_V1.txt", expectationKey: nil, kid: "7_Zuf1tvkwLxYaHS3q6lUjUYIGw",
            oid: "05833b6b-aa1d-42d4-9ec0-1b2bb9194438", tid: "fa15d692-e9c7-4460-a743-29f2956fd429",
            preferredUsername: nil, name: "abeli", upn: nil, email: "abeli@microsoft.com", ver: "1.0"),
        TokenCase(
            file: "msaljs_IDTOKEN_V2.txt", expectationKey: "IDTOKEN_V2", kid: "ce52270f46243d9df2a980b4cf6ba407",
            oid: "00000000-0000-0000-66f3-3332eca7ea81", tid: "3338040d-6c67-4c5b-b112-36a304b66dad",
            preferredUsername: "AbeLi@microsoft.com", name: "Abe Lincoln", upn: "AbeLiUpn", email: nil, ver: "2.0"),
        TokenCase(
            file: "msaljs_IDTOKEN_V2_ALT.txt", expectationKey: "IDTOKEN_V2_ALT", kid: "ce52270f46243d9df2a980b4cf6ba407",
            oid: "00000000-0000-0000-0000-000000000000", tid: "72f988bf-86f1-41af-91ab-2d7cd011db47",
            preferredUsername: "AbeLiToo@microsoft.com", name: "Abe Lincoln Too", upn: "AbeLiTooUpn", email: nil, ver: "2.0"),
        // Pretty-printed payload with `=` padding; `email` claim, no `upn`.
        TokenCase(
            file: "msaljs_IDTOKEN_V2_NEWCLAIM.txt", expectationKey: nil, kid: "1LTMzakihiRla_8z2BEJVXeWMqo",
            oid: "00000000-0000-0000-66f3-3332eca7ea81", tid: "3338040d-6c67-4c5b-b112-36a304b66dad",
            preferredUsername: "AbeLi@microsoft.com", name: "Abe Lincoln", upn: nil, email: "AbeLi@microsoft.com", ver: "2.0"),
        TokenCase(
            file: "msaljs_ID_TOKEN_V2_GUEST.txt", expectationKey: "ID_TOKEN_V2_GUEST", kid: "ce52270f46243d9df2a980b4cf6ba407",
            oid: "00000000-0000-0000-1111-000000000000", tid: "72f988bf-86f1-41af-91ab-2d7cd011db47",
            preferredUsername: "AbeLiGuest@microsoft.com", name: "Abe Lincoln Guest", upn: "AbeLiGuestUpn", email: nil, ver: "2.0"),
        // A PPE access token (PoP, `cnf` claim); decodes like any JWT.
        TokenCase(
            file: "msaljs_POP_TOKEN.txt", expectationKey: nil, kid: "vap_ivkHttLFcnnoBXAwJ5HX0K4",
            oid: "be064c37-2617-468c-b627-25b4e4817adf", tid: "19eea2f8-e17a-470f-954d-d897c47f311c",
            preferredUsername: nil, name: "Cloud IDLAB Basic User", upn: "IDLAB@msidlab0.ccsctp.net", email: nil, ver: "1.0"),
    ]

    /// Claim names, in token order, of the tokens that have no entry in msaljs_id_token_claims.json.
    static let claimNamesWithoutExpectation: [String: [String]] = [
        "msaljs_IDTOKEN_V1.txt": [
            "aud", "iss", "iat", "nbf", "exp", "aio", "amr", "email", "family_name", "given_name", "idp", "ipaddr",
            "name", "nonce", "oid", "rh", "sub", "tid", "unique_name", "uti", "ver",
        ],
        "msaljs_IDTOKEN_V2_NEWCLAIM.txt": [
            "ver", "iss", "sub", "aud", "exp", "iat", "nbf", "name", "preferred_username", "oid", "email", "tid", "nonce", "aio",
        ],
        "msaljs_POP_TOKEN.txt": [
            "aud", "iss", "iat", "nbf", "exp", "acct", "acr", "acrs", "aio", "amr", "app_displayname", "appid", "appidacr",
            "cnf", "family_name", "given_name", "idtyp", "ipaddr", "name", "oid", "platf", "puid", "rh", "scp",
            "signin_state", "sub", "tid", "unique_name", "upn", "uti", "ver", "wids", "xms_st", "xms_tcdt",
        ],
    ]

    static func decode(_ file: String) throws -> JWT {
        try JWT.decodeUnverified(FixtureLoader.text("JWT/\(file)"))
    }

    static func jsonObject(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: FixtureLoader.data(path)) as? [String: Any])
    }

    /// Whether a decoded claim equals a value read by Foundation, as JSON values.
    static func jsonEqual(_ value: JSON, _ expected: Any) -> Bool {
        switch value {
        case .null:
            return expected is NSNull
        case .bool(let flag):
            return (expected as? Bool) == flag
        case .number(let text):
            guard let number = expected as? NSNumber else { return false }
            if let integer = Int64(text) { return number.int64Value == integer && number.doubleValue == Double(integer) }
            return Double(text) == number.doubleValue
        case .string(let text):
            return (expected as? String) == text
        case .array(let elements):
            guard let list = expected as? [Any], list.count == elements.count else { return false }
            return zip(elements, list).allSatisfy { jsonEqual($0, $1) }
        case .object(let members):
            guard let object = expected as? [String: Any], object.count == members.count,
                Set(members.map(\.name)).count == members.count
            else { return false }
            return members.allSatisfy { member in object[member.name].map { jsonEqual(member.value, $0) } ?? false }
        }
    }

    /// Whether `jwt`'s claims are exactly `expected`: the same names, each with an equal JSON value.
    static func claimsMatch(_ jwt: JWT, _ expected: [String: Any]) -> Bool {
        jsonEqual(JSON(jwt.claims.root), expected)
    }

    // MARK: - Tokens

    @Test("Every token decodes; header alg/kid and MSAL's ID-token accessors give the expected values", arguments: tokens)
    func decodesWithAccessors(token: TokenCase) throws {
        let jwt = try Self.decode(token.file)
        #expect(!jwt.isSignatureVerified)
        #expect(jwt.algorithmName == "RS256")
        #expect(jwt.keyID == token.kid)
        let idToken = IDToken(jwt: jwt)
        #expect(idToken.objectID == token.oid)
        #expect(idToken.tenantID == token.tid)
        #expect(idToken.preferredUsername == token.preferredUsername)
        #expect(idToken.name == token.name)
        #expect(idToken.userPrincipalName == token.upn)
        #expect(idToken.email == token.email)
        #expect(idToken.version == token.ver)
        #expect(idToken.username == token.preferredUsername ?? token.upn ?? token.email)
    }

    @Test("The V2, V2_ALT and V2_GUEST tokens decode to exactly their entries in msaljs_id_token_claims.json")
    func claimsMatchExpectations() throws {
        let expectations = try Self.jsonObject("JWT/msaljs_id_token_claims.json").filter { !$0.key.hasPrefix("_") }
        #expect(Set(expectations.keys) == Set(Self.tokens.compactMap(\.expectationKey)))
        let decoded = try Self.tokens.map { ($0.file, try Self.decode($0.file)) }
        for token in Self.tokens {
            guard let key = token.expectationKey else { continue }
            let expected = try #require(expectations[key] as? [String: Any])
            let jwt = try #require(decoded.first { $0.0 == token.file }?.1)
            for (name, value) in expected {
                let claim = jwt.claims.root[name]
                #expect(claim.map { Self.jsonEqual(JSON($0), value) } == true, "\(token.file): claim \(name) differs from \(key)")
            }
            #expect(Set(jwt.claimNames) == Set(expected.keys), "\(token.file): claim names differ from \(key)")
            #expect(jwt.claimNames.count == expected.count, "\(token.file): duplicate claim names")
            // The pairing is the only one possible: no other token matches this entry.
            let matching = decoded.filter { Self.claimsMatch($0.1, expected) }.map(\.0)
            #expect(matching == [token.file], "\(key) matches \(matching)")
        }
    }

    @Test("Tokens without an expectation entry decode to exactly their claim names; padded payloads included")
    func claimsOfOtherTokens() throws {
        for (file, names) in Self.claimNamesWithoutExpectation {
            #expect(try Self.decode(file).claimNames == names, "\(file)")
        }
        // V1: padded payload, v1 issuer and array claim.
        let v1 = try Self.decode("msaljs_IDTOKEN_V1.txt")
        let v1Text = try FixtureLoader.text("JWT/msaljs_IDTOKEN_V1.txt")
        #expect(v1Text.split(separator: ".")[1].hasSuffix("="))
        #expect(v1.stringClaim("iss") == "https://sts.windows.net/fa15d692-e9c7-4460-a743-29f2956fd429/")
        #expect(v1.stringClaim("aud") == "b14a7505-96e9-4927-91e8-0601d0fc9caa")
        #expect(v1.stringClaim("unique_name") == "AbeLi@microsoft.com")
        #expect(v1.numberClaim("exp") == 1_536_279_024)
        #expect(v1.stringListClaim("amr") == ["rsa"])

        // V2_NEWCLAIM: everything IDTOKEN_V2 has except iss (another tenant than tid), login_hint and
        // upn, plus email.
        let newClaim = try Self.decode("msaljs_IDTOKEN_V2_NEWCLAIM.txt")
        #expect(try FixtureLoader.text("JWT/msaljs_IDTOKEN_V2_NEWCLAIM.txt").split(separator: ".")[1].hasSuffix("="))
        var expected = try #require(try Self.jsonObject("JWT/msaljs_id_token_claims.json")["IDTOKEN_V2"] as? [String: Any])
        expected["iss"] = "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"
        expected["login_hint"] = nil
        expected["upn"] = nil
        expected["email"] = "AbeLi@microsoft.com"
        #expect(Self.claimsMatch(newClaim, expected))

        // POP: nested objects and arrays, and a `nonce` header member.
        let pop = try Self.decode("msaljs_POP_TOKEN.txt")
        #expect(pop.header.root["nonce"]?.string == "qLffJOnysggVxatlRmXoGGgbLw45y-7lZK0hrVJosx4")
        let cnf = try #require(pop.claims.root["cnf"])
        #expect(Self.jsonEqual(JSON(cnf), ["kid": "V6N_HMPagNpYS_wxM14X73q3eWzbTr9Z31RyHkIcN0Y", "xms_ksl": "sw"]))
        #expect(pop.numberClaim("acct") == 0)
        #expect(pop.stringListClaim("acrs")?.count == 29)
        #expect(pop.stringListClaim("wids") == ["b79fbf4d-3ef9-4689-8143-76b194e85509"])
    }

    // MARK: - client_info

    @Test("client_info vectors decode to their uid/utid and home account id, padded or not")
    func clientInfoVectors() throws {
        let vectors = try Self.jsonObject("JWT/msaljs_client_info_vectors.json")
        func string(_ name: String) throws -> String { try #require(vectors[name] as? String, "\(name)") }
        let uid = try string("TEST_UID")
        let utid = try string("TEST_UTID")

        // Unpadded and `=`-padded forms of the same client_info.
        for name in ["TEST_RAW_CLIENT_INFO", "TEST_RAW_CLIENT_INFO_GUIDS"] {
            let info = try ClientInfo(encoded: string(name))
            #expect(info.uid == uid, "\(name)")
            #expect(info.utid == utid, "\(name)")
            #expect(info.homeAccountID == "\(uid).\(utid)", "\(name)")
            #expect(info.homeAccountID == (try string("TEST_DECODED_HOME_ACCOUNT_ID")), "\(name)")
        }
        #expect(try string("TEST_RAW_CLIENT_INFO_GUIDS").hasSuffix("="))
        // The raw vector is exactly the unpadded base64url of the decoded JSON.
        #expect(Base64URL.encode(Array(try string("TEST_DECODED_CLIENT_INFO").utf8)) == (try string("TEST_RAW_CLIENT_INFO")))

        // `==`-padded, with a space in the JSON.
        let cache = try ClientInfo(encoded: string("TEST_CACHE_RAW_CLIENT_INFO"))
        #expect(try string("TEST_CACHE_RAW_CLIENT_INFO").hasSuffix("=="))
        #expect(cache == ClientInfo(uid: "uid", utid: "utid"))
        #expect(cache.homeAccountID == "uid.utid")
        let cacheDecoded = try #require(
            try JSONSerialization.jsonObject(with: Data(try string("TEST_CACHE_DECODED_CLIENT_INFO").utf8)) as? [String: String])
        #expect(cacheDecoded == ["uid": "uid", "utid": "utid"])

        // Another encoded client_info, checked against Foundation's own decoding of it.
        let other = try string("TEST_CLIENT_INFO_B64ENCODED")
        let otherJSON = try #require(Wycheproof.base64URLDecodeLeniently(other))
        let otherDecoded = try #require(try JSONSerialization.jsonObject(with: otherJSON) as? [String: String])
        let otherInfo = try ClientInfo(encoded: other)
        #expect(otherInfo.uid == otherDecoded["uid"])
        #expect(otherInfo.utid == otherDecoded["utid"])
        #expect(otherInfo.homeAccountID == "12345.67890")

        // TEST_ENCODED_HOME_ACCOUNT_ID is a home account id with each half base64url-encoded (the second
        // padded); as the README notes, it decodes to 123-test-uid.456-test-utid, not to
        // TEST_DECODED_HOME_ACCOUNT_ID. TEST_LOCAL_ACCOUNT_ID (with its upstream trailing "s") is not a
        // client_info value and is not used here.
        let halves = try string("TEST_ENCODED_HOME_ACCOUNT_ID").split(separator: ".").map {
            String(decoding: try Base64URL.decode(String($0), padding: .acceptCanonical), as: UTF8.self)
        }
        #expect(halves == ["123-test-uid", "456-test-utid"])
        #expect(ClientInfo(uid: halves[0], utid: halves[1]).homeAccountID == "123-test-uid.456-test-utid")

        // A dot in either half would make uid.utid ambiguous: refused.
        for (uid, utid) in [("a.b", "c"), ("a", "b.c"), (".", "x")] {
            let encoded = Base64URL.encode(Array(#"{"uid":"\#(uid)","utid":"\#(utid)"}"#.utf8))
            #expect(throws: JOSEError.self, "\(uid) \(utid)") { try ClientInfo(encoded: encoded) }
        }
    }

    @Test("The invalid-JSON client_info vector is refused with invalidClientInfo")
    func invalidClientInfo() throws {
        let vectors = try Self.jsonObject("JWT/msaljs_client_info_vectors.json")
        let invalidJSON = try #require(vectors["TEST_INVALID_JSON_CLIENT_INFO"] as? String)
        // The vector is the decoded (broken) JSON text; encode it as client_info arrives on the wire,
        // and also try it as given (which is not base64url at all).
        for encoded in [Base64URL.encode(Array(invalidJSON.utf8)), invalidJSON] {
            #expect(throws: JOSEError.self) { try ClientInfo(encoded: encoded) }
            do {
                _ = try ClientInfo(encoded: encoded)
            } catch {
                #expect(error.code == .invalidClientInfo, "\(error)")
            }
        }
    }

    // MARK: - JWKS

    @Test("The MSAL.NET generic OIDC JWKS response body parses to one RSA key with its kid")
    func dotnetJWKS() throws {
        let document = try Self.jsonObject("JWT/dotnet_generic_oidc_jwks.json")
        let response = try #require(document["response"] as? [String: Any])
        #expect(response["status"] as? Int == 200)
        let body = try #require(response["body"])
        let keySet = try JSONWebKeySet(json: Wycheproof.jsonBytes(body))
        #expect(keySet.rejectedKeys.isEmpty)
        #expect(keySet.keys.count == 1)
        let key = try #require(keySet.keys.first)
        #expect(key.keyID == "66682C848A3140685FC883FD7EA993CC")
        #expect(key.keyType == .rsa)
        #expect(key.algorithm == .rs256)
        #expect(key.use == "sig")
        #expect(key.bits == 2048)
    }
}
