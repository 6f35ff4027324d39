import Foundation
import MSALJOSE

/// A web app's sign-in: ``start(_:)`` builds the authorization URL with fresh `state`, `nonce`
/// and PKCE; ``redeem(_:redirect:correlationID:)`` checks the redirect the browser came back
/// with (state in constant time, RFC 9207 `iss`, an error, exactly one code) and redeems the code
/// with the client's credential and the code verifier; the ID token's signature, issuer, audience,
/// lifetime and nonce are verified before anything is cached.
package struct AuthorizationCodeFlow: Sendable {
    package let client: TokenClient

    /// Whether `text` is a redirect URI a web app may use: `https` with a host, or `http` on a
    /// loopback host (development), without a fragment.
    static func isAcceptableRedirectURI(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), components.fragment == nil, let host = components.host, !host.isEmpty
        else { return false }
        switch components.scheme?.lowercased() {
        case "https": return true
        case "http": return LoopbackRedirectURI.isLoopback(text)
        default: return false
        }
    }

    package func start(_ parameters: MSALAuthorizationCodeParameters) async throws -> MSALAuthorizationCodeFlow {
        let values = parameters.snapshot
        let correlationID = values.correlationId ?? client.correlationIDs.make()
        do {
            let scopes = TokenRequests.resourceScopes(values.scopes)
            try Self.checkRedirectURI(parameters.redirectUri, correlationID: correlationID)
            // Bearer or DPoP tokens: MSAL's PoP and Entra's mTLS PoP come from acquireTokenSilent and
            // acquireTokenForClient.
            let presentation = try client.tokenScheme(values.authenticationScheme, correlationID: correlationID).presentation
            guard presentation == nil || presentation?.dpopKey != nil else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message:
                        "A web app's sign-in gives bearer or DPoP tokens; ask for a proof-of-possession token with acquireTokenSilent",
                    correlationID: correlationID)
            }
            let dpopKeyThumbprint = presentation?.dpopKey?.thumbprint
            let authority = client.defaultAuthority
            let metadata = try await client.resolver.resolve(authority, correlationID: correlationID)
            let secrets = try client.interactiveSecrets(correlationID: correlationID)
            let claims = client.claimsParameter(values.claimsRequest)
            let url = TokenRequests.authorizeURL(
                endpoint: metadata.authorizationEndpoint, clientID: client.clientID, redirectURI: parameters.redirectUri,
                scope: TokenRequests.scopeParameter(scopes, excluding: client.excludedScopes), state: secrets.state, nonce: secrets.nonce,
                codeChallenge: secrets.pkce.challenge,
                prompt: parameters.promptType.parameterValue, loginHint: parameters.loginHint, domainHint: parameters.domainHint,
                claims: claims, extraQueryParameters: values.extraQueryParameters, microsoft: authority.kind.isMicrosoft,
                dpopKeyThumbprint: dpopKeyThumbprint)
            client.logger.info("Web sign-in started: sign-in page on \(host: url)", correlationID: correlationID)
            return MSALAuthorizationCodeFlow(
                authorizationURL: url, state: secrets.state, nonce: secrets.nonce, codeVerifier: secrets.pkce.verifier,
                redirectUri: parameters.redirectUri, scopes: scopes, authority: authority.url.absoluteString, claims: claims,
                createdAt: client.clock.now(), dpopKeyThumbprint: dpopKeyThumbprint)
        } catch let error as MSALFailure {
            throw error.correlated(correlationID)
        }
    }

    /// The redirect the browser came back with, as a full URL (query, or fragment for `response_mode=fragment`).
    package func redirect(_ url: URL, flow: MSALAuthorizationCodeFlow, correlationID: UUID) throws -> LoopbackRedirect {
        try LoopbackRedirect.parse(url, expectedState: flow.state, correlationID: correlationID)
    }

    /// The redirect the browser came back with, as its parameters (a `form_post` body, or a web
    /// framework's decoded query).
    package func redirect(_ parameters: [String: String], flow: MSALAuthorizationCodeFlow, correlationID: UUID) throws -> LoopbackRedirect {
        guard let state = parameters["state"], LoopbackRequestRules.constantTimeEquals(state, flow.state) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidState,
                message: "The redirect's state does not match the one sent: it does not answer this sign-in", correlationID: correlationID)
        }
        let redirect = LoopbackRedirect(parameters: parameters, url: URL(string: flow.redirectUri) ?? flow.authorizationURL)
        if redirect.code != nil, redirect.error != nil {
            throw MSALFailure(
                .internal, internalCode: .invalidRedirect, message: "The redirect carries both a code and an error",
                correlationID: correlationID)
        }
        return redirect
    }

    package func redeem(_ flow: MSALAuthorizationCodeFlow, redirect: LoopbackRedirect, correlationID: UUID) async throws -> MSALResult {
        do {
            let authority = client.defaultAuthority
            guard authority.url.absoluteString == flow.authority else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "The sign-in flow was started for another authority (\(flow.authority)) than this application's",
                    correlationID: correlationID)
            }
            // A DPoP sign-in's code is bound to the key named when it started (`dpop_jkt`): redeemed
            // only with a proof of that key, which must still be this application's.
            var presentation: TokenPresentation?
            if let thumbprint = flow.dpopKeyThumbprint {
                let key = try client.proofKeys.key(.dpop)
                guard key.thumbprint == thumbprint else {
                    throw MSALFailure(
                        .internal, internalCode: .internalErrorInvalidParameter,
                        message:
                            "The sign-in was started with another DPoP key than this application's: start it again (a service's replicas share the key only through a shared cache file)",
                        correlationID: correlationID)
                }
                presentation = .dpop(key: key)
            }
            let metadata = try await client.resolver.resolve(authority, correlationID: correlationID)
            let code = try InteractiveFlow.authorizationCode(redirect, metadata: metadata, correlationID: correlationID)
            return try await exchange(
                code: code, redirectURI: flow.redirectUri, scopes: flow.scopes, codeVerifier: flow.codeVerifier, nonce: flow.nonce,
                claims: flow.claims, metadata: metadata, presentation: presentation, correlationID: correlationID)
        } catch let error as MSALFailure {
            throw error.correlated(correlationID)
        }
    }

    /// Redeems `code` at the application's authority with the client's credential and caches the
    /// user's tokens, the ID token verified first (its `nonce` when one is given).
    private func exchange(
        code: String, redirectURI: String, scopes: [String], codeVerifier: String?, nonce: String?, claims: String?,
        metadata: MSALAuthorityMetadata, presentation: TokenPresentation?, correlationID: UUID
    ) async throws -> MSALResult {
        let authority = client.defaultAuthority
        let request = TokenRequests.authorizationCode(
            tokenEndpoint: try client.tokenEndpoint(metadata, authority: authority, correlationID: correlationID),
            clientID: client.clientID, code: code, redirectURI: redirectURI,
            scope: TokenRequests.scopeParameter(scopes, excluding: client.excludedScopes), codeVerifier: codeVerifier, claims: claims,
            extraQueryParameters: nil, microsoft: authority.kind.isMicrosoft,
            authentication: try await client.authenticationFields(
                tokenEndpoint: metadata.tokenEndpoint, authority: authority, claims: claims))
        let result = try await client.redeem(
            request,
            TokenRedemption(
                authority: authority, metadata: metadata, scopes: scopes, nonce: nonce, expectedAccount: nil, grant: .authorizationCode,
                correlationID: correlationID,
                scheme: presentation.flatMap { $0.dpopKey.map { TokenScheme.dpop(keyID: $0.thumbprint) } } ?? .bearer,
                presentation: presentation))
        return try client.present(result, presentation)
    }

    /// The largest authorization code, state, nonce and code challenge or verifier accepted.
    static let maximumCodeSize = 32 * 1024
    static let maximumValueSize = 1024

    /// Redeems a code the web app received itself (it checked the redirect's `state`), with its own
    /// PKCE `codeVerifier` and `nonce` when it sent them: MSAL.NET's `AcquireTokenByAuthorizationCode`,
    /// MSAL for Python's `acquire_token_by_authorization_code`.
    package func redeem(
        code: String, scopes: [String], redirectURI: String, codeVerifier: String?, nonce: String?, correlationID: UUID
    ) async throws -> MSALResult {
        do {
            try Self.checkRedirectURI(redirectURI, correlationID: correlationID)
            try TokenRequests.checkVisibleASCII(code, "authorization code", limit: Self.maximumCodeSize)
            if let codeVerifier {
                // RFC 7636 §4.1: 43 to 128 unreserved characters.
                guard (43...128).contains(codeVerifier.utf8.count),
                    codeVerifier.utf8.allSatisfy({ Base64URL.isAlphabet($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "~") })
                else {
                    throw MSALFailure(
                        .internal, internalCode: .internalErrorInvalidParameter,
                        message: "The code verifier is not 43 to 128 unreserved characters (RFC 7636)", correlationID: correlationID)
                }
            }
            if let nonce { try TokenRequests.checkVisibleASCII(nonce, "nonce", limit: Self.maximumValueSize) }
            let metadata = try await client.resolver.resolve(client.defaultAuthority, correlationID: correlationID)
            return try await exchange(
                code: code, redirectURI: redirectURI, scopes: TokenRequests.resourceScopes(scopes), codeVerifier: codeVerifier,
                nonce: nonce,
                claims: client.claimsParameter(nil), metadata: metadata, presentation: nil, correlationID: correlationID)
        } catch let error as MSALFailure {
            throw error.correlated(correlationID)
        }
    }

    /// The authorization request URL for `parameters` with the web app's own `state`, `nonce` and
    /// PKCE `codeChallenge` (S256), each left out when `nil`: MSAL.NET's
    /// `GetAuthorizationRequestUrl`, MSAL for Python's `get_authorization_request_url`.
    package func requestURL(
        _ parameters: MSALAuthorizationCodeParameters, state: String?, nonce: String?, codeChallenge: String?
    ) async throws -> URL {
        let values = parameters.snapshot
        let correlationID = values.correlationId ?? client.correlationIDs.make()
        do {
            try Self.checkRedirectURI(parameters.redirectUri, correlationID: correlationID)
            if let state { try TokenRequests.checkVisibleASCII(state, "state", limit: Self.maximumValueSize) }
            if let nonce { try TokenRequests.checkVisibleASCII(nonce, "nonce", limit: Self.maximumValueSize) }
            if let codeChallenge {
                // The S256 challenge: the base64url SHA-256 of the verifier, 43 characters.
                guard codeChallenge.utf8.count == 43, codeChallenge.utf8.allSatisfy(Base64URL.isAlphabet) else {
                    throw MSALFailure(
                        .internal, internalCode: .internalErrorInvalidParameter,
                        message: "The code challenge is not an S256 challenge (43 base64url characters)", correlationID: correlationID)
                }
            }
            let authority = client.defaultAuthority
            let metadata = try await client.resolver.resolve(authority, correlationID: correlationID)
            return TokenRequests.authorizeURL(
                endpoint: metadata.authorizationEndpoint, clientID: client.clientID, redirectURI: parameters.redirectUri,
                scope: TokenRequests.scopeParameter(TokenRequests.resourceScopes(values.scopes), excluding: client.excludedScopes),
                state: state, nonce: nonce, codeChallenge: codeChallenge, prompt: parameters.promptType.parameterValue,
                loginHint: parameters.loginHint, domainHint: parameters.domainHint, claims: client.claimsParameter(values.claimsRequest),
                extraQueryParameters: values.extraQueryParameters, microsoft: authority.kind.isMicrosoft)
        } catch let error as MSALFailure {
            throw error.correlated(correlationID)
        }
    }

    private static func checkRedirectURI(_ redirectURI: String, correlationID: UUID) throws {
        guard isAcceptableRedirectURI(redirectURI) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidRedirectURI,
                message: "A web app's redirect URI must be https (http only on a loopback host): "
                    + OAuthErrorResponse.sanitized(redirectURI, limit: 200),
                correlationID: correlationID)
        }
    }
}
