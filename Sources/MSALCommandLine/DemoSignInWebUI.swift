import Foundation
import MSAL
import MSALEmulator

/// The demo's web UI when no `--browser` is given: it answers the emulator's sign-in page over
/// HTTP for one user, as a person in a browser would, and hands the redirect back to the SDK.
struct DemoSignInWebUI: MSALWebUI {
    let username: String

    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        try await MSALEmulator.SignInDriver(username: username).signIn(authorizationURL: authorizationURL)
    }
}
