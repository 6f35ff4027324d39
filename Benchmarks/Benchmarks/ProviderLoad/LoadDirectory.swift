import Foundation
import MSAL
import MSALEmulator

/// The directory the load runs against: one tenant with `users` users and one public client outside
/// the family of client ids, so every account has its own refresh token.
enum LoadDirectory {
    static let tenantID = "6a1f0c3e-2b7d-4c58-9e14-3f5a7b9c1d20"
    static let clientID = "3b8d5f71-0c2e-4a96-b7d3-5e1f9a2c4b60"
    /// What every request asks for; the SDK adds `openid profile offline_access`.
    static let scopes = ["User.Read"]
    /// The `scope` parameter the SDK sends for ``scopes`` (the baselines send the same, so the
    /// emulator signs the same two tokens, access and ID, for every request).
    static let scopeParameter = "User.Read openid profile offline_access"

    static func username(_ index: Int) -> String {
        "user\(index)@load.example"
    }

    /// A GUID made from `index`, for object ids.
    static func objectID(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "0000a11c-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    static func configuration(users: Int) -> MSALEmulator.Configuration {
        let tenant = MSALEmulator.Tenant(id: tenantID, domain: "load.example", displayName: "Load")
        return MSALEmulator.Configuration(
            tenants: [tenant],
            users: (0..<users).map { index in
                MSALEmulator.User(objectID: objectID(index), tenantID: tenantID, username: username(index), name: "Load User \(index)")
            },
            clients: [MSALEmulator.Client(clientID: clientID, displayName: "Load benchmark", redirectURIs: ["http://localhost"])])
    }
}

/// The app's web UI: completes the emulator's sign-in page over HTTP for one user and hands the
/// redirect back, as the emulator tests do.
struct SignInPageWebUI: MSALWebUI {
    let username: String

    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        try await MSALEmulator.SignInDriver(username: username).signIn(authorizationURL: authorizationURL)
    }
}
