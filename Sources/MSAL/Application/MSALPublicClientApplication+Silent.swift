import Foundation

/// The completion block of the token methods: a result or an error, never both.
public typealias MSALCompletionBlock = @Sendable (MSALResult?, (any Error)?) -> Void

extension MSALPublicClientApplication {
    /// Gets a token without showing anything to the user: a cached access token when one is
    /// valid for longer than ``MSALPublicClientApplicationConfig/tokenExpirationBuffer`` (no network
    /// call at all), else one obtained with the account's refresh token.
    ///
    /// When the user must act (no refresh token, `invalid_grant`, `interaction_required`, …) the
    /// error is ``MSALFailure/interactionRequired``: call ``acquireToken(with:)`` then.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`) until it has to wait: a remembered
    /// cache hit returns without a hop to another executor; a lookup, refresh or token request runs
    /// on the global concurrent executor, as any `async` method does.
    nonisolated(nonsending) public func acquireTokenSilent(with parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        if let remembered = SilentFlow.memoizedResult(parameters, client: client) { return remembered }
        let flow = SilentFlow(client: client)
        return try await flow.run(try flow.request(parameters))
    }

    /// ``acquireTokenSilent(with:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func acquireTokenSilent(with parameters: MSALSilentTokenParameters, completionBlock: @escaping MSALCompletionBlock) {
        MSALParameters.complete(parameters, completionBlock) { try await self.acquireTokenSilent(with: parameters) }
    }
}
