import Foundation
import MSAL
import MSALEmulator
import MSALSupport
import Testing

/// The calls services use beside the grants: `removeTokensForClient` (MSAL for Python's
/// `remove_tokens_for_client`) and `excludeScopes` (its `exclude_scopes`), against the emulator.
@Suite("Confidential and public clients: removing app tokens, excluding reserved scopes")
struct ServiceCallsTests {
    typealias Grant = ClientCredentialsGrantTests
    typealias Client = ConfidentialClientTests

    @Test("removeTokensForClient removes every tenant's, scope's and FMI path's app token of this client, and nothing else")
    func removeTokensForClient() async throws {
        try await EmulatorHarness.with(Grant.configuration) { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-remove-app-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = MSALCacheConfig(storage: .file(path: folder.appendingPathComponent("cache.json").path))
            let app = try Client.application(harness, cache: cache)
            let other = try Client.application(
                harness, clientID: Grant.certificateClientID, credential: try Client.certificateCredential(), cache: cache)

            let fabrikam = MSALClientCredentialParameters(scopes: [Client.graphDefault])
            fabrikam.authority = try harness.authority(EmulatorHarness.fabrikam)
            let fmi = MSALClientCredentialParameters(scopes: [Client.graphDefault])
            fmi.fmiPath = "agents/a"
            _ = try await app.acquireTokenForClient(scopes: [Client.graphDefault])
            _ = try await app.acquireTokenForClient(with: fabrikam)
            _ = try await app.acquireTokenForClient(with: fmi)
            let kept = try await other.acquireTokenForClient(scopes: [Client.graphDefault])
            #expect(Client.grants(harness) == 4)
            // A user's own tokens (a migrated user) and a caller's (on behalf of) in the same cache.
            let brought = try harness.emulator.mintRefreshToken(of: EmulatorHarness.ben, clientID: Grant.secretClientID)
            let userToken = try await app.acquireToken(byRefreshToken: brought, scopes: ["User.Read"])
            let incoming = try await OnBehalfOfGrantTests.userToken(harness)
            let onBehalf = try await app.acquireTokenOnBehalfOf(userAssertion: incoming, scopes: ["https://graph.microsoft.com/User.Read"])

            #expect(try await app.removeTokensForClient() == 3)
            let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: userToken.account)
            #expect(try await app.acquireTokenSilent(with: silent).accessToken == userToken.accessToken, "the user's token stays")
            let again = try await app.acquireTokenOnBehalfOf(userAssertion: incoming, scopes: ["https://graph.microsoft.com/User.Read"])
            #expect(again.accessToken == onBehalf.accessToken, "the token obtained on behalf of the caller stays")
            #expect(try await app.removeTokensForClient() == 0)
            // The other client's token stays; this client's are asked for again.
            #expect(try await other.acquireTokenForClient(scopes: [Client.graphDefault]).accessToken == kept.accessToken)
            #expect(try await app.acquireTokenForClient(scopes: [Client.graphDefault]).tokenSource == .identityProvider)
            #expect(try await app.acquireTokenForClient(with: fmi).tokenSource == .identityProvider)
            #expect(Client.grants(harness) == 6)

            // The completion-block twin reports the count.
            let (count, error) = await withCheckedContinuation { (continuation: CheckedContinuation<(Int, (any Error)?), Never>) in
                app.removeTokensForClient { count, error in continuation.resume(returning: (count, error)) }
            }
            #expect(count == 2)
            #expect(error == nil)
        }
    }

    @Test("excludeScopes [offline_access]: the sign-in asks for openid profile only, and no refresh token is cached")
    func excludeOfflineAccess() async throws {
        try await EmulatorHarness.with { harness in
            let configuration = MSALPublicClientApplicationConfig(
                clientId: EmulatorHarness.clientID, redirectUri: nil, authority: try harness.authority())
            configuration.cacheConfig = .memory
            configuration.clock = harness.clock
            configuration.excludeScopes = ["offline_access"]
            let app = try MSALPublicClientApplication(configuration: configuration)
            let (parameters, webUI) = EmulatorHarness.interactive(["User.Read"], as: EmulatorHarness.adele)
            let result = try await app.acquireToken(with: parameters)
            let url = try #require(webUI.authorizationURLs.first)
            let scope = try #require(
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "scope" }?.value)
            #expect(scope.split(whereSeparator: { $0 == " " || $0 == "+" }).sorted() == ["User.Read", "openid", "profile"])
            let form = try #require(harness.emulator.requests.last { $0.grantType == .authorizationCode }?.form)
            #expect(form["scope"]?.split(separator: " ").contains("offline_access") == false)
            #expect(result.idToken != nil)

            // With no refresh token, an expired access token needs the user again.
            harness.emulator.advanceClock(by: 7200)
            let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
            let error = try #require(await Client.msalError { _ = try await app.acquireTokenSilent(with: silent) })
            #expect(error.code == .interactionRequired)
        }
    }

    @Test("excludeScopes may not hold openid: creating either application fails with invalidParameter")
    func openIDCannotBeExcluded() throws {
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.example")!)
        let publicConfiguration = MSALPublicClientApplicationConfig(
            clientId: EmulatorHarness.clientID, redirectUri: nil, authority: authority)
        publicConfiguration.cacheConfig = .memory
        publicConfiguration.excludeScopes = ["OpenID"]
        #expect { _ = try MSALPublicClientApplication(configuration: publicConfiguration) } throws: {
            ($0 as? MSALFailure)?.internalCode == .internalErrorInvalidParameter
        }
        let confidential = MSALConfidentialClientApplicationConfig(
            clientId: Grant.secretClientID, clientCredential: .secret(Grant.secret), authority: authority)
        confidential.excludeScopes = ["openid", "offline_access"]
        #expect { _ = try MSALConfidentialClientApplication(configuration: confidential) } throws: {
            ($0 as? MSALFailure)?.internalCode == .internalErrorInvalidParameter
        }
    }
}
