import Foundation

extension LoopbackRedirect {
    /// A redirect URL an app-supplied web UI captured itself, checked as the listener checks one:
    /// parameters decoded once each (a repeated name is refused), `state` equal to the one sent
    /// (compared in constant time), and not both a code and an error.
    ///
    /// The query is read, and the fragment too when the query carries no parameters (a web view may
    /// hand back a `response_mode=fragment` redirect).
    package static func parse(_ url: URL, expectedState: String, correlationID: UUID) throws(MSALFailure) -> LoopbackRedirect {
        let text = url.absoluteString
        var query = Substring("")
        if let questionMark = text.firstIndex(of: "?") {
            let afterMark = text[text.index(after: questionMark)...]
            query = afterMark.prefix { $0 != "#" }
        }
        if query.isEmpty, let hash = text.firstIndex(of: "#") {
            query = text[text.index(after: hash)...]
        }
        let parameters: [String: String]
        switch LoopbackQuery.parameters(query) {
        case .success(let decoded):
            parameters = decoded
        case .failure(.duplicate(let name)):
            throw invalid("The redirect names \(LoopbackPages.plainText(name, limit: 64)) more than once", correlationID)
        case .failure(.malformed):
            throw invalid("The redirect's parameters are not valid percent-encoded UTF-8", correlationID)
        }
        guard let state = parameters["state"], LoopbackRequestRules.constantTimeEquals(state, expectedState) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidState,
                message: "The redirect's state does not match the one sent: it does not answer this request", correlationID: correlationID)
        }
        let redirect = LoopbackRedirect(parameters: parameters, url: url)
        if redirect.code != nil, redirect.error != nil {
            throw invalid("The redirect carries both a code and an error", correlationID)
        }
        return redirect
    }

    private static func invalid(_ message: String, _ correlationID: UUID) -> MSALFailure {
        MSALFailure(.internal, internalCode: .invalidRedirect, message: message, correlationID: correlationID)
    }
}
