// README.md, "Quick start": the MSAL-for-iOS tutorial's auth code (initMSAL, callGraphAPI,
// currentAccount, acquireTokenInteractively, acquireTokenSilently with the MSALErrorDomain /
// interactionRequired fallback, getContentWithToken, signOut) as a Swift 6 app writes it on Linux.
// The README shows this file's code from `let kClientID` on; QuickStartTests runs it against
// Fixtures/Tutorial/tutorial.json.

import Foundation
import MSAL

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let kClientID = "Your_Application_Id_Here"
let kScopes: [String] = ["https://graph.microsoft.com/user.read"]
let kAuthority = "https://login.microsoftonline.com/common"
let kGraphURI = "https://graph.microsoft.com/v1.0/me/"

func initMSAL() throws -> MSALPublicClientApplication {
    guard let authorityURL = URL(string: kAuthority) else {
        throw MSALFailure(.internal, internalCode: .invalidAuthority, message: "Unable to create authority URL")
    }
    let authority = try MSALAADAuthority(url: authorityURL)
    let msalConfiguration = MSALPublicClientApplicationConfig(clientId: kClientID, redirectUri: nil, authority: authority)
    return try MSALPublicClientApplication(configuration: msalConfiguration)
}

/// The tutorial's view controller without UIKit: what it showed in a text view goes to `updateLogging`.
final class GraphController: Sendable {
    let applicationContext: MSALPublicClientApplication
    let webviewParameters: MSALWebviewParameters
    let graphURL: URL
    let updateLogging: @Sendable (String) -> Void

    init(
        applicationContext: MSALPublicClientApplication,
        webviewParameters: MSALWebviewParameters = MSALWebviewParameters(),  // the system browser
        graphURL: URL = URL(string: kGraphURI)!,
        updateLogging: @escaping @Sendable (String) -> Void = { print($0) }
    ) {
        self.applicationContext = applicationContext
        self.webviewParameters = webviewParameters
        self.graphURL = graphURL
        self.updateLogging = updateLogging
    }

    func callGraphAPI() {
        guard let currentAccount = self.currentAccount() else {
            // No account in the cache: sign someone in.
            acquireTokenInteractively()
            return
        }
        acquireTokenSilently(currentAccount)
    }

    func currentAccount() -> MSALAccount? {
        // A single-account app takes the first account; a multi-account one picks by identifier or username.
        do {
            return try applicationContext.allAccounts().first
        } catch {
            updateLogging("Didn't find any accounts in cache: \(error)")
            return nil
        }
    }

    func acquireTokenInteractively() {
        let parameters = MSALInteractiveTokenParameters(scopes: kScopes, webviewParameters: webviewParameters)
        applicationContext.acquireToken(with: parameters) { result, error in
            if let error {
                self.updateLogging("Could not acquire token: \(error)")
                return
            }
            guard let result else {
                self.updateLogging("Could not acquire token: No result returned")
                return
            }
            self.updateLogging("Access token is \(result.accessToken)")
            self.getContentWithToken(result)
        }
    }

    func acquireTokenSilently(_ account: MSALAccount) {
        let parameters = MSALSilentTokenParameters(scopes: kScopes, account: account)
        applicationContext.acquireTokenSilent(with: parameters) { result, error in
            if let error {
                let nsError = error as NSError
                if nsError.domain == MSALErrorDomain, nsError.code == MSALError.interactionRequired.rawValue {
                    // The refresh token was rejected, or the user must consent or do MFA: ask the user.
                    self.acquireTokenInteractively()
                    return
                }
                self.updateLogging("Could not acquire token silently: \(error)")
                return
            }
            guard let result else {
                self.updateLogging("Could not acquire token: No result returned")
                return
            }
            self.updateLogging("Refreshed Access token is \(result.accessToken)")
            self.getContentWithToken(result)
        }
    }

    func getContentWithToken(_ result: MSALResult) {
        var request = URLRequest(url: graphURL)
        request.setValue(result.authorizationHeader, forHTTPHeaderField: "Authorization")  // "Bearer <access token>"
        URLSession.shared.dataTask(with: request) { data, _, error in
            guard let data, let json = try? JSONSerialization.jsonObject(with: data) else {
                self.updateLogging("Couldn't get graph result: \(error.map { "\($0)" } ?? "not JSON")")
                return
            }
            self.updateLogging("Result from Graph: \(json)")
        }.resume()
    }

    func signOut() {
        guard let account = currentAccount() else { return }
        do {
            // Removes the account's tokens for this application; the browser session stays.
            try applicationContext.remove(account)
            updateLogging("Signed out")
        } catch {
            updateLogging("Received error signing account out: \(error)")
        }
    }
}
