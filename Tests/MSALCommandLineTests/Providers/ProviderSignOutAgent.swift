import Foundation
import MSAL
import MSALSupport

/// A web UI for browser sign-out against a local provider: requests the end-session URL once,
/// as a browser would, without following the provider's redirect, and records what it saw.
final class ProviderSignOutAgent: MSALWebUI {
    struct Visit: Sendable {
        var url: URL
        var status: Int
    }

    private let recorded = Mutex<[Visit]>([])

    var visits: [Visit] { recorded.withLock { $0 } }

    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        let response = try await MSALCurlTransport().send(MSALHTTPRequest(method: .get, url: authorizationURL), limits: .default)
        recorded.withLock { $0.append(Visit(url: authorizationURL, status: response.statusCode)) }
        return nil
    }
}
