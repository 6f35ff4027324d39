import Foundation

/// One sign-in in progress in a web app: the URL to redirect the user's browser to, and the
/// secrets the answer is checked and redeemed with (`state`, `nonce`, the PKCE code verifier).
///
/// Keep it on the server, in the user's session, between
/// ``MSALConfidentialClientApplication/initiateAuthorizationCodeFlow(with:)`` and
/// ``MSALConfidentialClientApplication/acquireTokenByAuthorizationCode(flow:redirectURL:)``, and
/// use it once: it is `Codable` for a session store, and its code verifier must never reach the
/// browser. The `description` shows none of its secrets.
public struct MSALAuthorizationCodeFlow: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where to redirect the user's browser (the authority's authorization endpoint with the
    /// request's parameters).
    public let authorizationURL: URL
    /// The `state` sent, which the redirect must carry back.
    public let state: String
    /// The `nonce` sent, which the ID token must carry.
    public let nonce: String
    /// The PKCE code verifier (RFC 7636), sent only with the code redemption.
    public let codeVerifier: String
    /// The redirect URI the code is bound to.
    public let redirectUri: String
    /// The resource scopes asked for.
    public let scopes: [String]
    /// The canonical URL of the authority the flow went to.
    public let authority: String
    /// The claims sent, if any.
    public let claims: String?
    /// When the flow was created.
    public let createdAt: Date
    /// For a sign-in asked with ``MSALAuthenticationSchemeDPoP``: the RFC 7638 thumbprint of the
    /// application's DPoP key, sent as `dpop_jkt` so that the code can be redeemed only with a proof
    /// of that key; `nil` for a bearer sign-in (and in flows stored before it existed).
    public let dpopKeyThumbprint: String?

    package init(
        authorizationURL: URL, state: String, nonce: String, codeVerifier: String, redirectUri: String, scopes: [String],
        authority: String, claims: String?, createdAt: Date, dpopKeyThumbprint: String? = nil
    ) {
        self.dpopKeyThumbprint = dpopKeyThumbprint
        self.authorizationURL = authorizationURL
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirectUri = redirectUri
        self.scopes = scopes
        self.authority = authority
        self.claims = claims
        self.createdAt = createdAt
    }

    /// The authority, the redirect URI and the scopes; never the state, nonce or code verifier.
    public var description: String {
        "MSALAuthorizationCodeFlow(authority: \(authority), redirectUri: \(redirectUri), scopes: \(scopes.joined(separator: " ")))"
    }
}
