import Foundation

extension MSALFailure {
    /// This error with `correlationID` unless it already names one: errors of layers that know
    /// nothing of requests (the token cache file, for one) get the id of the request they failed.
    package func correlated(_ correlationID: UUID) -> MSALFailure {
        guard self.correlationID == nil else { return self }
        var error = self
        error.correlationID = correlationID
        return error
    }
}

extension MSALFailure {
    /// Whether the service, not the request, failed: a 5xx or a 429, the OAuth `server_error` or
    /// `temporarily_unavailable`, the network, or throttling. MSAL for iOS reports all of these as
    /// ``MSALError/internal``, so the code alone no longer tells; the flows that fall back to a
    /// cached token ask this.
    package var isServiceFailure: Bool {
        if let httpStatusCode, httpStatusCode == 429 || (500..<600).contains(httpStatusCode) { return true }
        switch internalCode {
        case .serverError, .networkFailure, .networkTimeout, .throttled: return true
        default: break
        }
        switch oauthError?.lowercased() {
        case "server_error", "temporarily_unavailable": return true
        default: return false
        }
    }
}
