import Foundation
import MSAL
import MSALSupport

/// An ``MSALWebUI`` standing for the user at the sign-in page: it checks the authorization request
/// and answers with the redirect the identity provider would send (a code and the request's own
/// `state`), as an embedded web view that captures the redirect does.
final class SigningInUser: MSALWebUI {
    private let presented = Mutex<[URL]>([])

    /// Every authorization URL shown, in order.
    var authorizationURLs: [URL] { presented.withLock { $0 } }

    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        presented.withLock { $0.append(authorizationURL) }
        let query = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        guard value("response_type") == "code", value("code_challenge_method") == "S256",
            value("redirect_uri") == redirectURI.absoluteString, let state = value("state")
        else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "Unexpected authorization request \(authorizationURL)")
        }
        var redirect = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)!
        redirect.queryItems = [URLQueryItem(name: "code", value: "readme-code"), URLQueryItem(name: "state", value: state)]
        return redirect.url
    }
}
