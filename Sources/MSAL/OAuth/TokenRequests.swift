import Foundation

/// The OAuth 2.0 requests of a public client (protocol.md "Requests"), built without I/O.
package enum TokenRequests {
    /// The scopes every request adds: an ID token, the profile, and a refresh token.
    package static let reservedScopes = ["openid", "profile", "offline_access"]

    /// The `scope` value: the requested scopes (reserved ones and duplicates dropped, order kept),
    /// then `extra`, then the reserved scopes but those in `excluding` (lower-cased; MSAL for
    /// Python's `exclude_scopes`, such as `offline_access` for an app that wants no refresh token).
    package static func scopeParameter(_ scopes: [String], extra: [String] = [], excluding: Set<String> = []) -> String {
        let reserved = excluding.isEmpty ? reservedScopes : reservedScopes.filter { !excluding.contains($0) }
        return (resourceScopes(scopes + extra) + reserved).joined(separator: " ")
    }

    /// `scope` without surrounding whitespace; `scope` itself when it starts and ends with a visible
    /// ASCII character (Foundation's trimming bridges to `NSString`, which showed in silent requests).
    private static func trimmed(_ scope: String) -> String {
        guard let first = scope.utf8.first, let last = scope.utf8.last else { return scope }
        if first > 0x20, first < 0x7F, last > 0x20, last < 0x7F { return scope }
        return scope.trimmingCharacters(in: .whitespaces)
    }

    /// The requested scopes as the cache and results use them: trimmed, reserved ones and duplicates dropped.
    package static func resourceScopes(_ scopes: [String]) -> [String] {
        if scopes.count == 1 {
            // The common case, without the set: one scope has no duplicate.
            let trimmed = trimmed(scopes[0])
            return trimmed.isEmpty || reservedScopes.contains(trimmed.lowercased()) ? [] : [trimmed]
        }
        var seen = Set<String>()
        return scopes.compactMap { scope in
            let trimmed = trimmed(scope)
            let folded = trimmed.lowercased()
            guard !trimmed.isEmpty, !reservedScopes.contains(folded), seen.insert(folded).inserted else { return nil }
            return trimmed
        }
    }

    /// `url` with `parameters` appended to its query (existing items kept).
    package static func appendingQuery(_ url: URL, _ parameters: [(String, String)]) -> URL {
        guard !parameters.isEmpty else { return url }
        let encoded = MSALFormEncoding.encode(parameters)
        var text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        text += (text.contains("?") ? "&" : "?") + encoded
        return URL(string: text) ?? url
    }

    /// Extra query parameters in a stable order, minus any that would override a protocol parameter.
    package static func extraParameters(_ extra: [String: String]?, reserved: Set<String>) -> [(String, String)] {
        (extra ?? [:]).filter { !reserved.contains($0.key.lowercased()) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Parameters an app may not override through extra query parameters.
    package static let protocolParameters: Set<String> = [
        "client_id", "response_type", "redirect_uri", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method", "code", "code_verifier", "grant_type", "refresh_token", "device_code",
        "client_info", "claims", "prompt", "login_hint", "domain_hint", "client_secret", "client_assertion",
        "client_assertion_type", "assertion", "requested_token_use", "token_type", "req_cnf", "dpop_jkt",
    ]

    /// The authorization request URL (authorization code flow with PKCE). `dpopKeyThumbprint` binds
    /// the authorization code to the DPoP key whose proof will redeem it (`dpop_jkt`, RFC 9449 §10).
    ///
    /// `state`, `nonce` and `codeChallenge` are left out when `nil`: a web app that builds the URL
    /// itself (``MSALConfidentialClientApplication/authorizationRequestURL(with:state:nonce:codeChallenge:)``)
    /// may manage them its own way.
    package static func authorizeURL(
        endpoint: URL, clientID: String, redirectURI: String, scope: String, state: String?, nonce: String?,
        codeChallenge: String?, prompt: String?, loginHint: String?, domainHint: String?, claims: String?,
        extraQueryParameters: [String: String]?, microsoft: Bool = true, dpopKeyThumbprint: String? = nil
    ) -> URL {
        var parameters: [(String, String)] = [
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI), ("scope", scope),
        ]
        if let state { parameters.append(("state", state)) }
        if let nonce { parameters.append(("nonce", nonce)) }
        if let codeChallenge { parameters += [("code_challenge", codeChallenge), ("code_challenge_method", "S256")] }
        if microsoft { parameters.append(("client_info", "1")) }
        parameters.append(("response_mode", "query"))
        if let prompt { parameters.append(("prompt", prompt)) }
        if let loginHint, !loginHint.isEmpty { parameters.append(("login_hint", loginHint)) }
        if let domainHint, !domainHint.isEmpty { parameters.append(("domain_hint", domainHint)) }
        if let claims { parameters.append(("claims", claims)) }
        if let dpopKeyThumbprint { parameters.append(("dpop_jkt", dpopKeyThumbprint)) }
        if microsoft { parameters += [("x-client-SKU", "MSAL.Swift.Linux"), ("x-client-Ver", MSALVersion)] }
        parameters += extraParameters(extraQueryParameters, reserved: protocolParameters.union(["response_mode"]))
        return appendingQuery(endpoint, parameters)
    }

    /// The code redemption request. Never retried: a code is single-use.
    /// `codeVerifier` `nil` sends none (a confidential client's code obtained without PKCE).
    package static func authorizationCode(
        tokenEndpoint: URL, clientID: String, code: String, redirectURI: String, scope: String,
        codeVerifier: String?, claims: String?, extraQueryParameters: [String: String]?, microsoft: Bool = true,
        authentication: [(String, String)] = [], schemeFields: [(String, String)] = []
    ) -> MSALHTTPRequest {
        var parameters: [(String, String)] = [
            ("client_id", clientID), ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", redirectURI), ("scope", scope),
        ]
        if let codeVerifier { parameters.append(("code_verifier", codeVerifier)) }
        return tokenRequest(
            tokenEndpoint, parameters, clientInfo: microsoft, claims: claims, authentication: authentication + schemeFields,
            extraQueryParameters, idempotent: false, microsoft: microsoft)
    }

    /// The refresh token request. Retried once on a network failure or 5xx: redeeming a refresh
    /// token twice is harmless.
    ///
    /// `scope` `nil` leaves the parameter out, which RFC 6749 §6 defines as the scope originally
    /// granted: what a generic OpenID Connect provider is asked (it may refuse a wider one).
    ///
    /// A confidential client adds its `authentication` fields; a proof-of-possession request its
    /// `schemeFields` (``TokenClient/tokenRequestFields(_:)``).
    package static func refresh(
        tokenEndpoint: URL, clientID: String, refreshToken: String, scope: String?, claims: String?,
        extraQueryParameters: [String: String]?, microsoft: Bool = true, authentication: [(String, String)] = [],
        schemeFields: [(String, String)] = []
    ) -> MSALHTTPRequest {
        var parameters: [(String, String)] = [
            ("client_id", clientID), ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
        ]
        if let scope { parameters.append(("scope", scope)) }
        return tokenRequest(
            tokenEndpoint, parameters, clientInfo: microsoft, claims: claims, authentication: authentication + schemeFields,
            extraQueryParameters, idempotent: true, microsoft: microsoft)
    }

    /// The client credentials request (RFC 6749 §4.4) for an app token, with the client's
    /// authentication fields. Retried once on a network failure or 5xx: asking twice is harmless.
    /// `client_info=1` is sent as MSAL for Python and .NET send it (the answer has none).
    ///
    /// `bodyFields` (the FMI path, extra body parameters: ``RequestBodyExtras``) follow the scope.
    package static func clientCredentials(
        tokenEndpoint: URL, clientID: String, scope: String, claims: String?, bodyFields: [(String, String)] = [],
        authentication: [(String, String)], extraQueryParameters: [String: String]?
    ) -> MSALHTTPRequest {
        tokenRequest(
            tokenEndpoint, [("client_id", clientID), ("grant_type", "client_credentials"), ("scope", scope)] + bodyFields, clientInfo: true,
            claims: claims, authentication: authentication, extraQueryParameters, idempotent: true)
    }

    /// The on-behalf-of request (the JWT bearer grant of RFC 7523 §2.1 with Entra's
    /// `requested_token_use=on_behalf_of`): the middle tier's `assertion` (the access token it was
    /// called with) traded for the same user's tokens for `scope`, with the client's
    /// authentication fields. Retried once on a network failure or 5xx: presenting the same
    /// assertion twice is harmless.
    package static func onBehalfOf(
        tokenEndpoint: URL, clientID: String, assertion: String, scope: String, claims: String?, authentication: [(String, String)],
        extraQueryParameters: [String: String]?, microsoft: Bool = true
    ) -> MSALHTTPRequest {
        let parameters: [(String, String)] = [
            ("client_id", clientID), ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion),
            ("requested_token_use", "on_behalf_of"), ("scope", scope),
        ]
        return tokenRequest(
            tokenEndpoint, parameters, clientInfo: microsoft, claims: claims, authentication: authentication, extraQueryParameters,
            idempotent: true, microsoft: microsoft)
    }

    /// Checks a value the app passes through to the service without quoting it (a code, a refresh
    /// token, a state or nonce): 1 to `limit` bytes of visible ASCII, the characters of every
    /// provider's codes and tokens (no space, line break or control character).
    ///
    /// - Throws: ``MSALInternalError/internalErrorInvalidParameter`` naming `name`, never the value.
    package static func checkVisibleASCII(_ value: String, _ name: String, limit: Int) throws(MSALFailure) {
        guard !value.isEmpty, value.utf8.count <= limit, value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: value.isEmpty
                    ? "The \(name) is empty" : "The \(name) is not 1 to \(limit) bytes of visible ASCII (\(value.utf8.count) bytes)")
        }
    }

    /// The user federated identity credential request (`grant_type=user_fic`): `parameters` (the
    /// client id, grant, scope, credential and the user's name or object id), `client_info=1`,
    /// the claims and the client's authentication fields. Retried once on a network failure or
    /// 5xx: presenting the credential twice is harmless.
    package static func userFederatedCredential(
        tokenEndpoint: URL, parameters: [(String, String)], claims: String?, authentication: [(String, String)],
        extraQueryParameters: [String: String]?, microsoft: Bool = true
    ) -> MSALHTTPRequest {
        tokenRequest(
            tokenEndpoint, parameters, clientInfo: true, claims: claims, authentication: authentication, extraQueryParameters,
            idempotent: true, microsoft: microsoft)
    }

    /// The device authorization request (RFC 8628 §3.1).
    package static func deviceCode(
        endpoint: URL, clientID: String, scope: String, claims: String?, extraQueryParameters: [String: String]?, microsoft: Bool = true
    ) -> MSALHTTPRequest {
        tokenRequest(
            endpoint, [("client_id", clientID), ("scope", scope)], clientInfo: false, claims: claims, extraQueryParameters,
            idempotent: true, microsoft: microsoft)
    }

    /// One device code poll (RFC 8628 §3.4).
    package static func deviceCodePoll(
        tokenEndpoint: URL, clientID: String, deviceCode: String, extraQueryParameters: [String: String]?, microsoft: Bool = true,
        schemeFields: [(String, String)] = []
    ) -> MSALHTTPRequest {
        let parameters: [(String, String)] = [
            ("client_id", clientID), ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
        ]
        return tokenRequest(
            tokenEndpoint, parameters, clientInfo: microsoft, claims: nil, authentication: schemeFields, extraQueryParameters,
            idempotent: true, microsoft: microsoft)
    }

    /// A form POST of `parameters`, then `client_info=1` when `clientInfo`, the claims, and the
    /// client's authentication fields; the extra parameters go in the query.
    private static func tokenRequest(
        _ endpoint: URL, _ parameters: [(String, String)], clientInfo: Bool, claims: String?, authentication: [(String, String)] = [],
        _ extra: [String: String]?, idempotent: Bool, microsoft: Bool = true
    ) -> MSALHTTPRequest {
        var parameters = parameters
        if clientInfo { parameters.append(("client_info", "1")) }
        if let claims { parameters.append(("claims", claims)) }
        parameters += authentication
        let url = appendingQuery(endpoint, extraParameters(extra, reserved: protocolParameters))
        var request = MSALHTTPRequest.form(url: url, parameters: parameters)
        request.isIdempotent = idempotent
        request.sendsMicrosoftHeaders = microsoft
        return request
    }
}
