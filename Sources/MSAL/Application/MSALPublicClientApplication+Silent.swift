import Foundation

/// The completion block of the token methods: a result or an error, never both.
public typealias MSALCompletionBlock = @Sendable (MSALResult?, (any Error)?) -> Void

extension MSALPublicClientApplication {
    /// Gets a token without showing anything to the user: a cached access token when one is
    /// valid for longer than ``MSALPublicClientApplicationConfig/tokenExpirationBuffer`` (no network
    /// call at all), else one obtained with the account's refresh token.
    ///
    /// When the user must act (no refresh token, `invalid_grant`, `interaction_required`, …) the
    /// error is ``MSALError/interactionRequired``: call ``acquireToken(with:)`` then.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`) until it has to wait: a remembered
    /// cache hit returns without a hop to another executor; a lookup, refresh or token request runs
    /// on the global concurrent executor, as any `async` method does.
    ///
    /// When ``MSALGlobalConfig/telemetryConfig`` has a callback, the call is reported to it when it
    /// ends (``MSALTelemetryConfig``); without one, telemetry costs this call one atomic load.
    nonisolated(nonsending) public func acquireTokenSilent(with parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        // Telemetry off: one relaxed load, then the remembered hit with no clock read and no event.
        guard MSALGlobalConfig.telemetryConfig.isEnabled else {
            if broker != nil, parameters.account?.isKnownToBroker == true { return try await silentThroughBroker(parameters) }
            if let remembered = SilentFlow.memoizedResult(parameters, client: client) { return remembered }
            let flow = SilentFlow(client: client)
            return try await flow.run(try flow.request(parameters))
        }
        return try await acquireTokenSilentReported(parameters)
    }

    /// ``acquireTokenSilent(with:)`` reported to the telemetry callback.
    nonisolated(nonsending) private func acquireTokenSilentReported(_ parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        let telemetry = TelemetryAPICall.start(.acquireTokenSilent, client: client, parameters: parameters)
        do {
            let result: MSALResult
            if broker != nil, parameters.account?.isKnownToBroker == true {
                result = try await silentThroughBroker(parameters)
            } else if let remembered = SilentFlow.memoizedResult(parameters, client: client) {
                result = remembered
            } else {
                let flow = SilentFlow(client: client)
                result = try await flow.run(try flow.request(parameters))
            }
            telemetry?.succeeded(result)
            return result
        } catch {
            telemetry?.failed(error)
            throw error
        }
    }

    /// ``acquireTokenSilent(with:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func acquireTokenSilent(with parameters: MSALSilentTokenParameters, completionBlock: @escaping MSALCompletionBlock) {
        MSALParameters.complete(parameters, completionBlock) { try await self.acquireTokenSilent(with: parameters) }
    }
}
