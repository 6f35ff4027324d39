import Foundation

extension MSALPublicClientApplication {
    /// Signs a user in with a code they enter on another device (RFC 8628), for machines without
    /// a browser: `deviceCodeCallback` receives the code and instructions to show, then the
    /// method polls until the user finished, declined (``MSALFailure/userCanceled``), the code
    /// expired (``MSALInternalError/deviceCodeExpired``) or the task was canceled.
    public func acquireTokenWithDeviceCode(
        with parameters: MSALTokenParameters, deviceCodeCallback: @escaping @Sendable (MSALDeviceCodeInfo) -> Void
    ) async throws -> MSALResult {
        try await DeviceCodeFlow(client: client).run(parameters, deviceCodeCallback: deviceCodeCallback)
    }

    /// ``acquireTokenWithDeviceCode(with:deviceCodeCallback:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func acquireTokenWithDeviceCode(
        with parameters: MSALTokenParameters, deviceCodeCallback: @escaping @Sendable (MSALDeviceCodeInfo) -> Void,
        completionBlock: @escaping MSALCompletionBlock
    ) {
        MSALParameters.complete(parameters, completionBlock) {
            try await self.acquireTokenWithDeviceCode(with: parameters, deviceCodeCallback: deviceCodeCallback)
        }
    }
}
