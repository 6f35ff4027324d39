import Foundation

extension MSALConfidentialClientApplication {
    /// Gets tokens for a downstream API on behalf of the user who called this API: the access
    /// token the caller presented (``MSALOnBehalfOfParameters/userAssertion``) is traded for the
    /// same user's token for ``MSALTokenParameters/scopes`` (the OAuth 2.0 JWT bearer grant with
    /// `requested_token_use=on_behalf_of`).
    ///
    /// Validate the incoming token first; this call does not. The tokens obtained are cached under
    /// the hash of the assertion (`user_assertion_hash`, as MSAL.NET writes it): a later call with
    /// the same assertion is answered from the cache with no network call, and a call with any
    /// other assertion — even the same user's — never sees them. When the access token has expired
    /// the refresh token obtained with the same assertion is used, so a long task keeps working
    /// after the incoming token expires.
    ///
    /// - Throws: ``MSALFailure``: ``MSALError/interactionRequired`` when the user must act
    ///   (consent, multi-factor authentication, a claims challenge: pass ``MSALFailure/claims`` back
    ///   to the caller), or when the assertion is refused (expired, for another audience);
    ///   ``MSALInternalError/internalErrorInvalidClient`` for a credential the service refuses;
    ///   ``MSALInternalError/internalErrorInvalidParameter`` for an assertion that is not a JWT.
    public func acquireTokenOnBehalfOf(with parameters: MSALOnBehalfOfParameters) async throws -> MSALResult {
        let flow = OnBehalfOfFlow(client: client)
        return try await flow.run(try flow.request(parameters))
    }

    /// ``acquireTokenOnBehalfOf(with:)`` for `scopes` with the default parameters.
    public func acquireTokenOnBehalfOf(userAssertion: String, scopes: [String]) async throws -> MSALResult {
        try await acquireTokenOnBehalfOf(with: MSALOnBehalfOfParameters(scopes: scopes, userAssertion: userAssertion))
    }

    /// ``acquireTokenOnBehalfOf(with:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func acquireTokenOnBehalfOf(with parameters: MSALOnBehalfOfParameters, completionBlock: @escaping MSALCompletionBlock) {
        MSALParameters.complete(parameters, completionBlock) { try await self.acquireTokenOnBehalfOf(with: parameters) }
    }
}
