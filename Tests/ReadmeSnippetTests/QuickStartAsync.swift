// README.md, "Quick start", async/await form; also in the DocC article GettingStarted.md.
// QuickStartTests runs it against Fixtures/Tutorial/tutorial.json.

import Foundation
import MSAL

/// The `Authorization` header for Microsoft Graph: silently from the cache when possible
/// (refreshing the token if needed), else by signing the user in.
func graphAuthorizationHeader(
    _ application: MSALPublicClientApplication,
    webviewParameters: MSALWebviewParameters = MSALWebviewParameters()
) async throws -> String {
    if let account = try await application.currentAccount().0 {
        do {
            let parameters = MSALSilentTokenParameters(scopes: kScopes, account: account)
            return try await application.acquireTokenSilent(with: parameters).authorizationHeader
        } catch let e as MSALFailure where e.code == .interactionRequired {
            // The user has to act (expired session, consent, MFA): fall through to sign-in.
        }
    }
    let parameters = MSALInteractiveTokenParameters(scopes: kScopes, webviewParameters: webviewParameters)
    return try await application.acquireToken(with: parameters).authorizationHeader
}

/// Signs every account out of the application.
func signOutAll(_ application: MSALPublicClientApplication) throws {
    for account in try application.allAccounts() {
        try application.remove(account)
    }
}
