import Foundation

/// What the browser brought back to the loopback listener: the authorization response (RFC 6749 §4.1.2).
///
/// Its `state` matched the expected one. Exactly one of ``code`` and ``error`` is set.
package struct LoopbackRedirect: Sendable, Hashable {
    /// The authorization code, on success.
    package var code: String?
    /// The OAuth `error` (such as `access_denied`, `interaction_required`, `server_error`), on failure.
    package var error: String?
    /// The `error_description`, as sent (not escaped or shortened).
    package var errorDescription: String?
    /// The `error_subcode` Microsoft Entra adds to some errors (such as `cancel`).
    package var errorSubcode: String?
    /// Every query parameter, percent-decoded. No name appeared twice.
    package var parameters: [String: String]
    /// The full redirect URL, as the browser requested it.
    package var url: URL

    /// ``errorDescription`` fit for an error message or a log: control and bidirectional-formatting characters
    /// removed, at most 512 characters. The server's text arrives through the browser and cannot be trusted.
    package var displayErrorDescription: String? {
        errorDescription.map { LoopbackPages.plainText($0) }
    }

    /// Creates a redirect from its decoded query `parameters`.
    package init(parameters: [String: String], url: URL) {
        self.parameters = parameters
        self.url = url
        self.code = parameters["code"]
        self.error = parameters["error"]
        self.errorDescription = parameters["error_description"]
        self.errorSubcode = parameters["error_subcode"]
    }
}
