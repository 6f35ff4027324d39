import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// A web app that runs its own sign-in redirect: `authorizationRequestURL(with:state:nonce:codeChallenge:)`
/// builds the URL with the app's own values, and `acquireTokenByAuthorizationCode(code:scopes:redirectUri:codeVerifier:nonce:)`
/// redeems the code it received, against the emulator.
@Suite("Confidential client: the authorization URL and a raw code, without a flow object")
struct RawAuthorizationCodeTests {
    typealias Web = WebAppTests

    static let verifier = String(repeating: "v", count: 30) + "-._~0123456789abc"

    static func challenge(_ verifier: String) throws -> String {
        Base64URL.encode(try MessageDigest.sha256(Array(verifier.utf8)))
    }

    @Test("The app's own state, nonce and S256 challenge in the URL; the code redeemed with its verifier and nonce; then silent tokens")
    func ownRedirect() async throws {
        try await EmulatorHarness.with(Web.configuration) { harness in
            let app = try Web.app(harness)
            let parameters = MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Web.redirectURI)
            parameters.loginHint = EmulatorHarness.adele
            parameters.extraQueryParameters = ["slice": "testslice"]
            let url = try await app.authorizationRequestURL(
                with: parameters, state: "app-state-1", nonce: "app-nonce-1", codeChallenge: try Self.challenge(Self.verifier))
            let query = Web.query(url)
            #expect(query["state"] == "app-state-1")
            #expect(query["nonce"] == "app-nonce-1")
            #expect(query["code_challenge"] == (try Self.challenge(Self.verifier)))
            #expect(query["code_challenge_method"] == "S256")
            #expect(query["redirect_uri"] == Web.redirectURI)
            #expect(query["login_hint"] == EmulatorHarness.adele)
            #expect(query["slice"] == "testslice")
            #expect(
                Set(query["scope"]?.split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init) ?? []) == [
                    "User.Read", "openid", "profile", "offline_access",
                ])

            let redirect = try await MSALEmulator.SignInDriver(username: EmulatorHarness.adele).signIn(authorizationURL: url)
            let answer = Web.query(redirect)
            #expect(answer["state"] == "app-state-1")
            let code = try #require(answer["code"])
            let result = try await app.acquireTokenByAuthorizationCode(
                code: code, scopes: ["User.Read"], redirectUri: Web.redirectURI, codeVerifier: Self.verifier, nonce: "app-nonce-1")
            #expect(result.account.username == EmulatorHarness.adele)
            #expect(result.tokenSource == .identityProvider)
            let form = try #require(harness.emulator.requests.last { $0.grantType == .authorizationCode }?.form)
            #expect(form["code_verifier"] == "<redacted>")
            #expect(form["client_secret"] == "<redacted>")
            #expect(form["redirect_uri"] == Web.redirectURI)

            let account = try #require(try await app.allAccounts().first)
            #expect(
                try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account)).tokenSource
                    == .cache)

            // A code is used once: the emulator refuses it again, and the cache keeps the user.
            let reused = try #require(
                await Web.msalError {
                    _ = try await app.acquireTokenByAuthorizationCode(
                        code: code, scopes: ["User.Read"], redirectUri: Web.redirectURI, codeVerifier: Self.verifier)
                })
            #expect(reused.oauthError == "invalid_grant")
            #expect(!reused.message.contains(code))
            #expect(try await app.allAccounts().count == 1)
        }
    }

    @Test("Without state, nonce or challenge the URL has none of them; a wrong verifier or nonce is refused and nothing is cached")
    func refusals() async throws {
        try await EmulatorHarness.with(Web.configuration) { harness in
            let app = try Web.app(harness)
            let parameters = MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Web.redirectURI)
            let bare = Web.query(try await app.authorizationRequestURL(with: parameters))
            #expect(bare["state"] == nil && bare["nonce"] == nil && bare["code_challenge"] == nil && bare["code_challenge_method"] == nil)

            let url = try await app.authorizationRequestURL(
                with: parameters, nonce: "right-nonce", codeChallenge: try Self.challenge(Self.verifier))
            let code = try #require(
                Web.query(try await MSALEmulator.SignInDriver(username: EmulatorHarness.ben).signIn(authorizationURL: url))["code"])
            let wrongNonce = try #require(
                await Web.msalError {
                    _ = try await app.acquireTokenByAuthorizationCode(
                        code: code, scopes: ["User.Read"], redirectUri: Web.redirectURI, codeVerifier: Self.verifier, nonce: "other-nonce")
                })
            #expect(wrongNonce.code == .internal)
            #expect(wrongNonce.internalCode == .idTokenNonceMismatch)
            #expect(try await app.allAccounts().isEmpty)

            let url2 = try await app.authorizationRequestURL(with: parameters, codeChallenge: try Self.challenge(Self.verifier))
            let code2 = try #require(
                Web.query(try await MSALEmulator.SignInDriver(username: EmulatorHarness.ben).signIn(authorizationURL: url2))["code"])
            let wrongVerifier = try #require(
                await Web.msalError {
                    _ = try await app.acquireTokenByAuthorizationCode(
                        code: code2, scopes: ["User.Read"], redirectUri: Web.redirectURI, codeVerifier: String(repeating: "w", count: 43))
                })
            #expect(wrongVerifier.oauthError == "invalid_grant")
            #expect(try await app.allAccounts().isEmpty)
        }
    }

    @Test(
        "Malformed input is refused before anything is sent",
        arguments: [
            ("empty code", "", Web.redirectURI, nil as String?, nil as String?, MSALInternalError.internalErrorInvalidParameter),
            ("code with a space", "abc def", Web.redirectURI, nil, nil, .internalErrorInvalidParameter),
            ("http redirect", "abc", "http://app.contoso.example/cb", nil, nil, .internalErrorInvalidRedirectURI),
            ("short verifier", "abc", Web.redirectURI, "short", nil, .internalErrorInvalidParameter),
            ("verifier with '+'", "abc", Web.redirectURI, String(repeating: "a", count: 42) + "+", nil, .internalErrorInvalidParameter),
            ("nonce with a line break", "abc", Web.redirectURI, nil, "a\nb", .internalErrorInvalidParameter),
        ])
    func malformed(
        name: String, code: String, redirectURI: String, verifier: String?, nonce: String?, expected: MSALInternalError
    )
        async throws
    {
        try await EmulatorHarness.with(Web.configuration) { harness in
            let app = try Web.app(harness)
            let error = try #require(
                await Web.msalError {
                    _ = try await app.acquireTokenByAuthorizationCode(
                        code: code, scopes: ["User.Read"], redirectUri: redirectURI, codeVerifier: verifier, nonce: nonce)
                })
            #expect(error.internalCode == expected, "\(name)")
            #expect(error.correlationID != nil)
            #expect(harness.emulator.requests.isEmpty, "\(name): nothing sent")
            let parameters = MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: Web.redirectURI)
            for (state, challenge) in [("a b", nil), (nil, "too-short")] as [(String?, String?)] {
                let refused = try #require(
                    await Web.msalError {
                        _ = try await app.authorizationRequestURL(with: parameters, state: state, codeChallenge: challenge)
                    })
                #expect(refused.internalCode == .internalErrorInvalidParameter)
            }
        }
    }
}
