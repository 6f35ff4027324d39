// The Swift auth code of the MSAL-for-iOS tutorial (../shared/seeds/001_d06f3893c5a240b0.txt,
// "Use MSAL"), compiled on Linux against swift-msal. Changes from the tutorial, and only these:
// - UIKit is gone: `ViewController` is a plain class, the UI outlets and `initUI()` are removed,
//   `updateLogging` appends to `log` instead of a text view, `updateSignOutButton` records the
//   state instead of enabling a button (both behind a `Mutex` from Synchronization, which stands in
//   for UIKit's main thread: MSAL and URLSession call back on other threads), and the two button actions lose `@objc` (Linux has no
//   Objective-C runtime) and take `AnyObject?` instead of `UIButton`;
// - the constants hold test values (the tutorial tells developers to put their own in), and
//   kGraphURI points at a local stand-in for Microsoft Graph;
// - four lines marked "test wiring" give the configuration the recorded transport, a fixed clock,
//   the in-memory cache and the fixed interactive secrets, so the code runs against
//   Fixtures/Tutorial/tutorial.json instead of the Microsoft identity platform.
// Everything else — initMSAL, callGraphAPI, currentAccount, acquireTokenInteractively,
// acquireTokenSilently with the MSALErrorDomain/interactionRequired fallback, getContentWithToken
// and signOut — is the tutorial's code as written.

import Foundation
import MSAL
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let kClientID = "5a434691-ccb2-4fd1-b97b-b64bcfbc03fc"

// Additional variables for Auth and Graph API
let kGraphURI = GraphStub.url  // the tutorial's "https://graph.microsoft.com/v1.0/me/", served locally
let kScopes: [String] = ["https://graph.microsoft.com/user.read"]
let kAuthority = "https://login.microsoftonline.com/common"

class ViewController {
    var accessToken = String()
    var applicationContext: MSALPublicClientApplication?

    // Not in the tutorial (UIKit): what the text view and button would show.
    let harness: TutorialHarness
    private struct Screen {
        var log: [String] = []
        var signOutEnabled = false
    }
    private let screen = Mutex(Screen())
    var log: [String] {
        get { screen.withLock { $0.log } }
        set { screen.withLock { $0.log = newValue } }
    }
    var signOutEnabled: Bool {
        get { screen.withLock { $0.signOutEnabled } }
        set { screen.withLock { $0.signOutEnabled = newValue } }
    }

    init(harness: TutorialHarness) {
        self.harness = harness
    }

    func initMSAL() throws {

        guard let authorityURL = URL(string: kAuthority) else {
            self.updateLogging(text: "Unable to create authority URL")
            return
        }

        let authority = try MSALAADAuthority(url: authorityURL)

        let msalConfiguration = MSALPublicClientApplicationConfig(clientId: kClientID, redirectUri: nil, authority: authority)
        msalConfiguration.transport = harness.transport  // test wiring
        msalConfiguration.clock = harness.clock  // test wiring
        msalConfiguration.cacheConfig = .memory  // test wiring
        harness.wire(msalConfiguration)  // test wiring: fixed interactive secrets
        self.applicationContext = try MSALPublicClientApplication(configuration: msalConfiguration)
    }

    func callGraphAPI(_ sender: AnyObject?) {

        guard let currentAccount = self.currentAccount() else {
            // We check to see if we have a current logged in account.
            // If we don't, then we need to sign someone in.
            acquireTokenInteractively()
            return
        }

        acquireTokenSilently(currentAccount)
    }

    func currentAccount() -> MSALAccount? {

        guard let applicationContext = self.applicationContext else { return nil }

        // We retrieve our current account by getting the first account from cache
        // In multi-account applications, account should be retrieved by home account identifier or username instead

        do {
            let cachedAccounts = try applicationContext.allAccounts()
            if !cachedAccounts.isEmpty {
                return cachedAccounts.first
            }
        } catch let error as NSError {
            self.updateLogging(text: "Didn't find any accounts in cache: \(error)")
        }

        return nil
    }

    func acquireTokenInteractively() {

        guard let applicationContext = self.applicationContext else { return }
        // #1
        let parameters = MSALInteractiveTokenParameters(scopes: kScopes)
        // #2
        applicationContext.acquireToken(with: parameters) { (result, error) in
            // #3
            if let error = error {
                self.updateLogging(text: "Could not acquire token: \(error)")
                return
            }
            guard let result = result else {
                self.updateLogging(text: "Could not acquire token: No result returned")
                return
            }
            // #4
            self.accessToken = result.accessToken
            self.updateLogging(text: "Access token is \(self.accessToken)")
            self.updateSignOutButton(enabled: true)
            self.getContentWithToken()
        }
    }

    func acquireTokenSilently(_ account: MSALAccount!) {
        guard let applicationContext = self.applicationContext else { return }
        let parameters = MSALSilentTokenParameters(scopes: kScopes, account: account)

        applicationContext.acquireTokenSilent(with: parameters) { (result, error) in
            if let error = error {
                let nsError = error as NSError
                if (nsError.domain == MSALErrorDomain) {
                    if (nsError.code == MSALError.interactionRequired.rawValue) {
                        DispatchQueue.main.async {
                            self.acquireTokenInteractively()
                        }
                        return
                    }
                }
                self.updateLogging(text: "Could not acquire token silently: \(error)")
                return
            }

            guard let result = result else {
                self.updateLogging(text: "Could not acquire token: No result returned")
                return
            }

            self.accessToken = result.accessToken
            self.updateLogging(text: "Refreshed Access token is \(self.accessToken)")
            self.updateSignOutButton(enabled: true)
            self.getContentWithToken()
        }
    }

    func getContentWithToken() {
        // Specify the Graph API endpoint
        let url = URL(string: kGraphURI)
        var request = URLRequest(url: url!)

        // Set the Authorization header for the request. We use Bearer tokens, so we specify Bearer + the token we got from the result
        request.setValue("Bearer \(self.accessToken)", forHTTPHeaderField: "Authorization")

        URLSession.shared.dataTask(with: request) { data, response, error in

            if let error = error {
                self.updateLogging(text: "Couldn't get graph result: \(error)")
                return
            }

            guard let result = try? JSONSerialization.jsonObject(with: data!, options: []) else {

                self.updateLogging(text: "Couldn't deserialize result JSON")
                return
            }

            self.updateLogging(text: "Result from Graph: \(result))")

        }.resume()
    }

    func signOut(_ sender: AnyObject?) {

        guard let applicationContext = self.applicationContext else { return }

        guard let account = self.currentAccount() else { return }

        do {

            /**
             Removes all tokens from the cache for this application for the provided account

             - account:    The account to remove from the cache */

            try applicationContext.remove(account)
            self.log = []
            self.signOutEnabled = false

        } catch let error as NSError {

            self.updateLogging(text: "Received error signing account out: \(error)")
        }
    }

    func updateLogging(text: String) {
        harness.record(text)
        screen.withLock { $0.log.append(text) }
    }

    func updateSignOutButton(enabled: Bool) {
        signOutEnabled = enabled
    }
}
