import Foundation
import MSAL

/// What the app needs of swift-msal: a token, silently when possible. Its production conformance
/// wraps `MSALPublicClientApplication`; tests give it canned results.
public protocol TokenSource: Sendable {
    /// A token for `scopes`, or an error (such as `MSALFailure` with `interactionRequired`).
    func token(scopes: [String]) async throws -> MSALResult
}

/// A request to the notes API, as the app's HTTP layer takes it.
public struct NotesRequest: Sendable, Equatable {
    /// The notes API URL.
    public var url: URL
    /// The request headers, `Authorization` among them.
    public var headers: [String: String]
}

/// The app's own code under test: builds the request to its notes API from whatever token it gets.
public struct NotesClient: Sendable {
    /// Where tokens come from.
    public let tokens: any TokenSource
    /// The notes API's base URL.
    public let baseURL: URL

    /// A client taking tokens from `tokens` for the API at `baseURL`.
    public init(tokens: any TokenSource, baseURL: URL) {
        self.tokens = tokens
        self.baseURL = baseURL
    }

    /// The request listing the signed-in user's notes.
    public func listRequest() async throws -> NotesRequest {
        let result = try await tokens.token(scopes: ["api://notes/Notes.Read"])
        return NotesRequest(
            url: baseURL.appendingPathComponent("users/\(result.account.username ?? "me")/notes"),
            headers: ["Authorization": result.authorizationHeader, "X-Tenant": result.tenantProfile.tenantId ?? ""])
    }

    /// Whether the user must sign in again: the app's fallback decision.
    public func needsSignIn(after error: any Error) -> Bool {
        (error as? MSALFailure)?.code == .interactionRequired
    }
}
