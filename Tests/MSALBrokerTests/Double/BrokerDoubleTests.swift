import Foundation
import MSALDBus
import MSALEmulator
import MSALJOSE
import MSALJSON
import MSALSupport
import Testing

/// The local provider's broker double (``MSALEmulator/Broker``) on a private bus, called through
/// swift-msal's D-Bus client as the runtime calls it: accounts of the device, tokens signed by the
/// emulator (its resource takes them), MSAL's PoP as a signed HTTP request of the broker's key
/// (the resource checks it), each injected fault, and bad requests answered in the runtime's error
/// shape.
@Suite("The local provider's broker double")
struct BrokerDoubleTests {
    typealias Broker = MSALEmulator.Broker
    static let clientID = MSALEmulator.Configuration.sampleClientID
    static let adele = "adele@contoso.example"

    /// An emulator listening on loopback and its broker double on a private bus.
    struct Setup {
        let bus: PrivateBus
        let emulator: MSALEmulator
        let broker: Broker

        /// Calls `method` with the request `json`; the answer's one string, parsed.
        func call(_ method: Broker.Method, _ json: String, timeout: Duration = .seconds(10)) async throws -> [String: Any] {
            let text = try await raw(method, ["0.0", UUID().uuidString, json], timeout: timeout)
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
        }

        /// Calls `method` with `arguments`; the answer's one string.
        func raw(_ method: Broker.Method, _ arguments: [String], timeout: Duration = .seconds(10)) async throws -> String {
            let address = bus.address
            let strings = try await PrivateBus.blocking {
                try DBusConnection(address: address).call(
                    destination: Broker.busName, path: Broker.objectPath, interface: Broker.interface, method: method.rawValue,
                    arguments: arguments, timeout: timeout)
            }
            try #require(strings.count == 1, "\(strings)")
            return strings[0]
        }

        /// `authParameters` for `username` (as the runtime sends them), with `popParams` when given.
        static func parameters(
            username: String?, account: Bool = false, pop: [String: String]? = nil, clientID: String = clientID
        )
            throws -> String
        {
            var parameters: [String: Any] = [
                "clientId": clientID, "authority": "https://login.microsoftonline.com/organizations", "authorizationType": 1,
                "requestedScopes": ["User.Read"], "redirectUri": "https://login.microsoftonline.com/common/oauth2/nativeclient",
                "username": username ?? "", "account": NSNull(), "popParams": pop ?? NSNull(),
            ]
            if account, let username { parameters["account"] = ["username": username] }
            return String(decoding: try JSONSerialization.data(withJSONObject: ["authParameters": parameters]), as: UTF8.self)
        }
    }

    static func with(_ body: (Setup) async throws -> Void) async throws {
        try await PrivateBus.with { bus in
            let emulator = try MSALEmulator(configuration: .sample)
            try await emulator.start()
            let broker = try emulator.startBroker(busAddress: bus.address)
            do {
                try await body(Setup(bus: bus, emulator: emulator, broker: broker))
            } catch {
                broker.stop()
                try await emulator.shutdown()
                throw error
            }
            broker.stop()
            try await emulator.shutdown()
        }
    }

    /// The `error` object of an answer (`status`, `context`).
    static func error(_ answer: [String: Any]) -> (status: Int?, context: String)? {
        guard let error = answer["error"] as? [String: Any] else { return nil }
        return (error["status"] as? Int, error["context"] as? String ?? "")
    }

    /// The claims of a compact JWS, unverified.
    static func claims(_ token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        return try #require(try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(String(parts[1])))) as? [String: Any])
    }

    /// The emulator's protected resource's answer to `authorization`.
    static func resource(_ setup: Setup, _ authorization: String) async throws -> Int {
        let url = setup.emulator.baseURL.appendingPathComponent("resource/me")
        return try await EmulatorHTTPClient().send("GET", url, headers: [("Authorization", authorization)]).status
    }

    @Test(
        "A device without accounts: the version, no accounts, a silent call is interaction_required (status 2); an interactive call signs the hinted user in and answers a token the emulator's resource takes; then the account is listed and silent calls answer; removeAccount signs it out"
    )
    func lifecycle() async throws {
        try await Self.with { setup in
            #expect(try await setup.call(.getLinuxBrokerVersion, #"{"msalCppVersion":"1.0"}"#)["linuxBrokerVersion"] as? String == "2.0.4")
            #expect((try await setup.call(.getAccounts, #"{"clientId":"\#(Self.clientID)"}"#)["accounts"] as? [Any])?.isEmpty == true)
            let notYet = try await setup.call(.acquireTokenSilently, try Setup.parameters(username: Self.adele, account: true))
            #expect(Self.error(notYet)?.status == 2, "\(notYet)")

            let signedIn = try await setup.call(.acquireTokenInteractively, try Setup.parameters(username: Self.adele))
            let response = try #require(signedIn["brokerTokenResponse"] as? [String: Any], "\(signedIn)")
            for member in [
                "accessToken", "accessTokenType", "account", "clientInfo", "expiresOn", "extendedExpiresOn", "idToken", "grantedScopes",
            ] {
                #expect(response[member] != nil, "no \(member)")
            }
            #expect(response["accessTokenType"] as? Int == 0)
            let expiresOn = try #require(response["expiresOn"] as? Int)
            #expect(Double(expiresOn) / 1000 > Date().timeIntervalSince1970 + 600, "milliseconds since 1970, in the future")
            let account = try #require(response["account"] as? [String: Any])
            #expect(account["username"] as? String == Self.adele)
            #expect(
                account["homeAccountId"] as? String
                    == "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a.\(MSALEmulator.Configuration.sampleContosoTenantID)")
            #expect(account["realm"] as? String == MSALEmulator.Configuration.sampleContosoTenantID)
            let accessToken = try #require(response["accessToken"] as? String)
            #expect(try Self.claims(accessToken)["preferred_username"] as? String == Self.adele)
            #expect(try Self.claims(try #require(response["idToken"] as? String))["aud"] as? String == Self.clientID)
            #expect(try await Self.resource(setup, "Bearer \(accessToken)") == 200, "the emulator's resource takes the broker's token")
            #expect((response["grantedScopes"] as? String)?.split(separator: " ").contains("User.Read") == true)

            #expect(setup.broker.accounts == [Self.adele])
            let listed = try #require(
                try await setup.call(.getAccounts, #"{"clientId":"\#(Self.clientID)"}"#)["accounts"] as? [[String: Any]])
            #expect(listed.map { $0["username"] as? String } == [Self.adele])
            let silent = try await setup.call(.acquireTokenSilently, try Setup.parameters(username: Self.adele, account: true))
            #expect((silent["brokerTokenResponse"] as? [String: Any])?["accessToken"] is String, "\(silent)")

            let removed = try await setup.call(.removeAccount, #"{"clientId":"\#(Self.clientID)","account":{"username":"\#(Self.adele)"}}"#)
            #expect(removed.isEmpty)
            #expect(setup.broker.accounts.isEmpty)
            #expect(
                Self.error(try await setup.call(.acquireTokenSilently, try Setup.parameters(username: Self.adele, account: true)))?.status
                    == 2)
            #expect(
                setup.broker.calls.map(\.method) == [
                    .getLinuxBrokerVersion, .getAccounts, .acquireTokenSilently, .acquireTokenInteractively, .getAccounts,
                    .acquireTokenSilently, .removeAccount, .acquireTokenSilently,
                ])
        }
    }

    @Test(
        "MSAL's PoP: with popParams the token is bound to the broker's key (cnf.kid) and answered as a signed HTTP request for that request (accessTokenType 1), which the emulator's resource accepts for its own method, host and path, and refuses as Bearer"
    )
    func proofOfPossession() async throws {
        try await Self.with { setup in
            try setup.broker.signIn(username: Self.adele)
            let host = "127.0.0.1:\(setup.emulator.port)"
            let answer = try await setup.call(
                .acquireTokenSilently,
                try Setup.parameters(
                    username: Self.adele, account: true,
                    pop: [
                        "httpMethod": "GET", "uriHost": host, "uriPath": "/resource/me", "nonce": "nonce-1", "clientClaims": "",
                        "homeAccountId": "",
                    ]))
            let response = try #require(answer["brokerTokenResponse"] as? [String: Any], "\(answer)")
            #expect(response["accessTokenType"] as? Int == 1)
            let signed = try #require(response["accessToken"] as? String)
            let claims = try Self.claims(signed)
            #expect(claims["m"] as? String == "GET" && claims["u"] as? String == host && claims["p"] as? String == "/resource/me")
            #expect(claims["nonce"] as? String == "nonce-1")
            let inner = try #require(claims["at"] as? String)
            #expect((try Self.claims(inner)["cnf"] as? [String: Any])?["kid"] != nil)
            #expect(try await Self.resource(setup, "PoP \(signed)") == 200)
            #expect(try await Self.resource(setup, "Bearer \(inner)") == 401, "a PoP token is not a bearer token")
        }
    }

    @Test(
        "Injected faults, one call each: busy (status 15), user cancel (status 7), interaction required (status 2), no answer (the caller's deadline), an answer that is not JSON, a D-Bus error; an old version; then normal answers again"
    )
    func faults() async throws {
        try await Self.with { setup in
            try setup.broker.signIn(username: Self.adele)
            let silent = try Setup.parameters(username: Self.adele, account: true)
            setup.broker.inject(.busy, for: .acquireTokenSilently)
            #expect(Self.error(try await setup.call(.acquireTokenSilently, silent))?.status == 15)
            setup.broker.inject(.userCanceled)
            #expect(Self.error(try await setup.call(.acquireTokenInteractively, try Setup.parameters(username: Self.adele)))?.status == 7)
            setup.broker.inject(.interactionRequired, for: .acquireTokenSilently)
            #expect(Self.error(try await setup.call(.acquireTokenSilently, silent))?.status == 2)

            setup.broker.inject(.neverAnswers, for: .acquireTokenSilently)
            let started = ContinuousClock.now
            let silence = await DBusConnectionTests.failure {
                try await setup.raw(.acquireTokenSilently, ["0.0", "c", silent], timeout: .milliseconds(500))
            }
            #expect(silence?.kind == .noReply && ContinuousClock.now - started < .seconds(15))

            setup.broker.inject(.malformedAnswer, for: .acquireTokenSilently)
            let malformed = try await setup.raw(.acquireTokenSilently, ["0.0", "c", silent])
            #expect((try? JSONSerialization.jsonObject(with: Data(malformed.utf8))) == nil, "\(malformed)")
            setup.broker.inject(.dbusError(name: "com.microsoft.identity.Error.Busy"), for: .getAccounts)
            let refused = await DBusConnectionTests.failure { try await setup.raw(.getAccounts, ["0.0", "c", "{}"]) }
            #expect(refused?.kind == .remoteError && refused?.name == "com.microsoft.identity.Error.Busy")

            setup.broker.version = "1.0.0"
            #expect(try await setup.call(.getLinuxBrokerVersion, "{}")["linuxBrokerVersion"] as? String == "1.0.0")
            #expect((try await setup.call(.acquireTokenSilently, silent)["brokerTokenResponse"]) != nil, "faults are used up")
        }
    }

    @Test(
        "Bad requests get the runtime's error shape: not JSON (status 6), no clientId (6), an unknown client (9, AADSTS700016), an authority with no known tenant (9), scopes of two resources (9, invalid_scope); a wrong argument count or an unknown method is a D-Bus error"
    )
    func badRequests() async throws {
        try await Self.with { setup in
            #expect(Self.error(try await setup.call(.acquireTokenSilently, "not json"))?.status == 6)
            #expect(Self.error(try await setup.call(.acquireTokenSilently, #"{"authParameters":{}}"#))?.status == 6)
            let unknown = try await setup.call(
                .acquireTokenInteractively, try Setup.parameters(username: Self.adele, clientID: "not-registered"))
            #expect(Self.error(unknown)?.status == 9 && Self.error(unknown)?.context.contains("AADSTS700016") == true, "\(unknown)")
            let tenant = try await setup.call(
                .acquireTokenInteractively,
                try Setup.parameters(username: Self.adele).replacingOccurrences(of: "organizations", with: "nowhere.example"))
            #expect(Self.error(tenant)?.status == 9, "\(tenant)")

            let badScope = try await setup.call(
                .acquireTokenInteractively,
                try Setup.parameters(username: Self.adele).replacingOccurrences(of: "\"User.Read\"", with: "\"api://a/x api://b/y\""))
            #expect(Self.error(badScope)?.status == 9 && Self.error(badScope)?.context.contains("invalid_scope") == true, "\(badScope)")

            let address = setup.bus.address
            let twoArguments = await DBusConnectionTests.failure { try await setup.raw(.getAccounts, ["0.0", "{}"]) }
            #expect(twoArguments?.name == "org.freedesktop.DBus.Error.InvalidArgs")
            let unknownMethod = await DBusConnectionTests.failure {
                try await PrivateBus.blocking {
                    try DBusConnection(address: address).call(
                        destination: Broker.busName, path: Broker.objectPath, interface: Broker.interface, method: "getEverything",
                        arguments: ["0.0", "c", "{}"], timeout: .seconds(5))
                }
            }
            #expect(unknownMethod?.name == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(setup.broker.accounts.isEmpty, "nothing signed in by a bad request")
        }
    }

    /// `token`'s signature checked with `jwk` (RS256), and its claims.
    static func verified(_ token: String, with jwk: [String: Any]) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let key = try JSONWebKey(json: Array(try JSONSerialization.data(withJSONObject: jwk)))
        #expect(try key.verify(signature: try Base64URL.decode(parts[2]), over: Array("\(parts[0]).\(parts[1])".utf8), algorithm: .rs256))
        return try claims(token)
    }

    @Test(
        "The device's primary refresh token: silent calls come from it; revoked at the provider (revokeRefreshTokens) or expired, a silent call is InteractionRequired naming AADSTS50173 / AADSTS700082, and a new interactive sign-in gives the device a new one; removeAccount revokes it"
    )
    func primaryRefreshToken() async throws {
        try await Self.with { setup in
            let silent = try Setup.parameters(username: Self.adele, account: true)
            try setup.broker.signIn(username: Self.adele)
            #expect(Self.error(try await setup.call(.acquireTokenSilently, silent)) == nil)

            #expect(try setup.emulator.revokeRefreshTokens(of: Self.adele) >= 1)
            let revoked = try await setup.call(.acquireTokenSilently, silent)
            #expect(Self.error(revoked)?.status == 2 && Self.error(revoked)?.context.contains("AADSTS50173") == true, "\(revoked)")
            let again = try await setup.call(.acquireTokenInteractively, try Setup.parameters(username: Self.adele))
            #expect(Self.error(again) == nil, "\(again)")
            #expect(Self.error(try await setup.call(.acquireTokenSilently, silent)) == nil)

            try setup.emulator.expireRefreshTokens(of: Self.adele)
            let expired = try await setup.call(.acquireTokenSilently, silent)
            #expect(Self.error(expired)?.status == 2 && Self.error(expired)?.context.contains("AADSTS700082") == true, "\(expired)")

            try setup.broker.signIn(username: Self.adele)
            #expect(Self.error(try await setup.call(.acquireTokenSilently, silent)) == nil)
            // Every refresh token of hers is revoked now but the device's new PRT: revoking again finds one.
            #expect(try setup.emulator.revokeRefreshTokens(of: Self.adele) == 1)
            try setup.broker.signIn(username: Self.adele)
            let account = #"{"homeAccountId":"a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a.\#(MSALEmulator.Configuration.sampleContosoTenantID)"}"#
            #expect(try await setup.call(.removeAccount, #"{"clientId":"\#(Self.clientID)","account":\#(account)}"#).isEmpty)
            // removeAccount revoked the PRT: nothing of hers is left to revoke.
            #expect(try setup.emulator.revokeRefreshTokens(of: Self.adele) == 0)
        }
    }

    @Test(
        "acquirePrtSsoCookie and generateSignedHttpRequest (shapes read from sso-mib and linux-entra-sso): the cookie x-ms-RefreshTokenCredential in cookieItems, a JWT of the broker's device key with the PRT, is_primary and the ssoUrl's sso_nonce; the signed request has m, u, p, nonce, cnf.jwk and no at, and its key verifies the cookie; an unknown account, a revoked PRT, no ssoUrl and an unknown client are refused"
    )
    func deviceMethods() async throws {
        try await Self.with { setup in
            try setup.broker.signIn(username: Self.adele)
            let home = "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a.\(MSALEmulator.Configuration.sampleContosoTenantID)"
            let account = #"{"homeAccountId":"\#(home)","username":"\#(Self.adele)"}"#
            let cookieRequest =
                #"{"account":\#(account),"authParameters":{"clientId":"\#(Self.clientID)"},"ssoUrl":"https://login.microsoftonline.com/?sso_nonce=n-42"}"#
            let signRequest =
                #"{"clientId":"\#(Self.clientID)","popParams":{"httpMethod":"POST","uriHost":"api.example","uriPath":"/orders","nonce":"n-7","homeAccountId":"\#(home)"}}"#

            let signed = try #require(try await setup.call(.generateSignedHttpRequest, signRequest)["signedHttpRequest"] as? String)
            let shr = try Self.claims(signed)
            #expect(shr["at"] == nil && shr["m"] as? String == "POST" && shr["u"] as? String == "api.example")
            #expect(shr["p"] as? String == "/orders" && shr["nonce"] as? String == "n-7" && shr["ts"] is Int)
            let jwk = try #require((shr["cnf"] as? [String: Any])?["jwk"] as? [String: Any])
            _ = try Self.verified(signed, with: jwk)

            let answer = try await setup.call(.acquirePrtSsoCookie, cookieRequest)
            let item = try #require((answer["cookieItems"] as? [[String: Any]])?.first, "\(answer)")
            #expect(item["cookieName"] as? String == "x-ms-RefreshTokenCredential")
            let cookie = try Self.verified(try #require(item["cookieContent"] as? String), with: jwk)
            #expect((cookie["refresh_token"] as? String)?.isEmpty == false && cookie["is_primary"] as? String == "true")
            #expect(cookie["request_nonce"] as? String == "n-42")

            let stranger = cookieRequest.replacingOccurrences(of: home, with: "0000.1111").replacingOccurrences(of: Self.adele, with: "x@y")
            #expect(Self.error(try await setup.call(.acquirePrtSsoCookie, stranger))?.status == 2)
            let noURL = cookieRequest.replacingOccurrences(of: "https://login.microsoftonline.com/?sso_nonce=n-42", with: "")
            #expect(Self.error(try await setup.call(.acquirePrtSsoCookie, noURL))?.status == 6)
            let unknownClient = signRequest.replacingOccurrences(of: Self.clientID, with: "not-registered")
            #expect(Self.error(try await setup.call(.generateSignedHttpRequest, unknownClient))?.status == 9)
            _ = try setup.emulator.revokeRefreshTokens(of: Self.adele)
            let revoked = try await setup.call(.acquirePrtSsoCookie, cookieRequest)
            #expect(Self.error(revoked)?.status == 2 && Self.error(revoked)?.context.contains("AADSTS50173") == true)
            #expect(Self.error(try await setup.call(.generateSignedHttpRequest, signRequest))?.status == 2)
        }
    }
}
