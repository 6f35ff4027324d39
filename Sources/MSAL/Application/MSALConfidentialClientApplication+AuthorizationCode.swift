import Foundation

extension MSALConfidentialClientApplication {
    /// Redeems an authorization code the web app received and checked itself — for an app that
    /// runs its own sign-in redirect (its own `state`, and PKCE when it sent a challenge) rather
    /// than an ``MSALAuthorizationCodeFlow``: MSAL.NET's `AcquireTokenByAuthorizationCode`, MSAL
    /// for Python's `acquire_token_by_authorization_code`. The code is redeemed at the
    /// application's authority with its credential, the ID token verified (signature, issuer,
    /// audience, lifetime, and `nonce` when given), and the user's tokens cached as a sign-in's.
    ///
    /// Prefer ``initiateAuthorizationCodeFlow(with:)``, which makes and checks `state`, `nonce`
    /// and PKCE for you.
    ///
    /// - Parameters:
    ///   - code: the `code` of the redirect, after the app checked its `state`.
    ///   - scopes: the scopes the authorization request asked for.
    ///   - redirectUri: the redirect URI the authorization request named (`https`, or `http` on a loopback host).
    ///   - codeVerifier: the PKCE verifier of the challenge the request sent (RFC 7636: 43 to 128
    ///     unreserved characters); `nil` when it sent none.
    ///   - nonce: the nonce the request sent, which the ID token must carry; `nil` when it sent none.
    /// - Throws: ``MSALFailure``: ``MSALInternalError/internalErrorInvalidParameter`` or
    ///   ``MSALInternalError/internalErrorInvalidRedirectURI`` before anything is sent for a
    ///   malformed code, verifier, nonce or redirect URI (never quoting the code); the token
    ///   endpoint's errors (a used or expired code is ``MSALError/internal`` with
    ///   ``MSALInternalError/internalErrorInvalidGrant``) and the ID token's. Nothing is cached
    ///   unless every check passed.
    public func acquireTokenByAuthorizationCode(
        code: String, scopes: [String], redirectUri: String, codeVerifier: String? = nil, nonce: String? = nil
    ) async throws -> MSALResult {
        try await AuthorizationCodeFlow(client: client).redeem(
            code: code, scopes: scopes, redirectURI: redirectUri, codeVerifier: codeVerifier, nonce: nonce,
            correlationID: client.correlationIDs.make())
    }

    /// ``acquireTokenByAuthorizationCode(code:scopes:redirectUri:codeVerifier:nonce:)`` with a
    /// completion block, called once on one of swift-msal's threads.
    public func acquireTokenByAuthorizationCode(
        code: String, scopes: [String], redirectUri: String, codeVerifier: String? = nil, nonce: String? = nil,
        completionBlock: @escaping MSALCompletionBlock
    ) {
        MSALParameters.complete(nil, completionBlock) {
            try await self.acquireTokenByAuthorizationCode(
                code: code, scopes: scopes, redirectUri: redirectUri, codeVerifier: codeVerifier, nonce: nonce)
        }
    }

    /// The authorization request URL to send a user's browser to, for a web app that runs its own
    /// sign-in redirect: `parameters`' scopes, redirect URI, prompt, login and domain hints,
    /// claims and extra query parameters, with the app's own `state`, `nonce` and PKCE
    /// `codeChallenge` (S256) — each left out when `nil`. MSAL.NET's `GetAuthorizationRequestUrl`,
    /// MSAL for Python's `get_authorization_request_url`. Redeem the code with
    /// ``acquireTokenByAuthorizationCode(code:scopes:redirectUri:codeVerifier:nonce:)``.
    ///
    /// Prefer ``initiateAuthorizationCodeFlow(with:)``, which makes all three and checks them.
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/internalErrorInvalidRedirectURI`` or
    ///   ``MSALInternalError/internalErrorInvalidParameter`` (a state or nonce that is not 1 to
    ///   1,024 visible ASCII characters, a challenge that is not 43 base64url characters), or the
    ///   authority metadata's errors.
    public func authorizationRequestURL(
        with parameters: MSALAuthorizationCodeParameters, state: String? = nil, nonce: String? = nil, codeChallenge: String? = nil
    ) async throws -> URL {
        try await AuthorizationCodeFlow(client: client).requestURL(parameters, state: state, nonce: nonce, codeChallenge: codeChallenge)
    }
}
