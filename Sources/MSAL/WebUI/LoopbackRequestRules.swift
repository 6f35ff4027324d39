import Foundation
import MSALJOSE

/// Decides what one HTTP request to the loopback listener is: the redirect, or something to turn away.
///
/// Pure logic, no I/O. Everything that is not the redirect is answered with an error status and the
/// listener keeps waiting, so a stray, stale or hostile request cannot end the sign-in; only a request
/// that carries the expected `state` can.
package struct LoopbackRequestRules: Sendable {
    /// What to do with a request.
    package enum Verdict: Sendable, Equatable {
        /// Answer `status` with a short plain-text `reason` and keep waiting.
        case reject(status: Int, reason: String)
        /// The authorization response: exactly one of `code` and `error`, the expected `state`.
        case redirect(LoopbackRedirect)
        /// The expected `state` but neither `code` nor `error`: the sign-in fails with `invalidRedirect`.
        case unusable(reason: String)
        /// A request for the single-use start path, with its method: the first `GET` is redirected to the
        /// authorization URL; any other request for it ends the sign-in (see ``LoopbackListenerCore/claimStart(method:answering:)``).
        case start(method: String)
    }

    /// The path the redirect must arrive on.
    package var path: String
    /// The `Host` header values accepted (lower case), such as `localhost:53123` and `127.0.0.1:53123`.
    package var acceptedHosts: Set<String>
    /// The `state` sent in the authorization request.
    package var expectedState: String
    /// The redirect URI sent in the authorization request.
    package var redirectURI: URL
    /// The path of the single-use start URL, once one is offered.
    package var startPath: String?

    /// Rules for a listener bound to `port`, receiving on `redirectURI`.
    package init(redirectURI: LoopbackRedirectURI, port: Int, expectedState: String) {
        self.path = redirectURI.path
        self.expectedState = expectedState
        self.redirectURI = redirectURI.url(boundPort: port)
        var hosts: Set<String> = ["localhost:\(port)", "127.0.0.1:\(port)"]
        if port == 80 {
            hosts.formUnion(["localhost", "127.0.0.1"])
        }
        self.acceptedHosts = hosts
    }

    /// The verdict on a request with `method`, request-target `target` and the values of its `Host` headers.
    ///
    /// Checked in order: one `Host` naming the listener (400; this also turns away DNS-rebinding pages),
    /// origin-form target (400), the start path (``Verdict/start(method:)``, any method and query), path (404), `GET` (405), a decodable query without repeated names (400),
    /// `state` present and equal (400), not both `code` and `error` (400). A matching `state` with neither
    /// `code` nor `error` is ``Verdict/unusable(reason:)``.
    package func evaluate(method: String, target: String, hostHeaders: [String]) -> Verdict {
        guard hostHeaders.count == 1, acceptedHosts.contains(hostHeaders[0].lowercased()) else {
            return .reject(status: 400, reason: "Bad Host header.")
        }
        guard target.hasPrefix("/"), !target.contains("#") else {
            return .reject(status: 400, reason: "Bad request target.")
        }
        let requestPath = target.prefix { $0 != "?" }
        if let startPath, requestPath == startPath {
            return .start(method: method)
        }
        guard requestPath == path else {
            return .reject(status: 404, reason: "Not found.")
        }
        guard method == "GET" else {
            return .reject(status: 405, reason: "Only GET is allowed.")
        }
        let query = target.dropFirst(requestPath.count).dropFirst()
        let parameters: [String: String]
        switch LoopbackQuery.parameters(query) {
        case .success(let decoded):
            parameters = decoded
        case .failure(.duplicate(let name)):
            return .reject(status: 400, reason: "Repeated parameter \(LoopbackPages.sanitize(name, limit: 64)).")
        case .failure(.malformed):
            return .reject(status: 400, reason: "Malformed query.")
        }
        guard let state = parameters["state"] else {
            return .reject(status: 400, reason: "Missing state.")
        }
        guard Self.constantTimeEquals(state, expectedState) else {
            return .reject(status: 400, reason: "This response does not belong to the sign-in in progress.")
        }
        let hasCode = parameters["code"] != nil
        let hasError = parameters["error"] != nil
        if hasCode, hasError {
            return .reject(status: 400, reason: "Both code and error.")
        }
        guard hasCode || hasError else {
            return .unusable(reason: "The redirect carried neither a code nor an error.")
        }
        return .redirect(LoopbackRedirect(parameters: parameters, url: url(query: query)))
    }

    /// The redirect URL as requested (Foundation percent-encodes any character a URL cannot hold raw).
    private func url(query: Substring) -> URL {
        let base = redirectURI.absoluteString
        // `URL(string:)` encodes rather than rejects stray characters; the request target was already checked.
        return URL(string: query.isEmpty ? base : "\(base)?\(query)") ?? redirectURI
    }

    /// Compares `a` and `b` in time that depends on their lengths only, not on where they differ
    /// (`MessageDigest.constantTimeEquals`, OpenSSL's `CRYPTO_memcmp`).
    package static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        MessageDigest.constantTimeEquals(Array(a.utf8), Array(b.utf8))
    }
}
