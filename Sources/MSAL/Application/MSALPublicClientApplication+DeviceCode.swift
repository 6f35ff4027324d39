import Foundation

extension MSALPublicClientApplication {
    /// Signs a user in with a code they enter on another device (RFC 8628), for machines without
    /// a browser: `deviceCodeCallback` receives the code and instructions to show, then the
    /// method polls until the user finished, declined (``MSALError/userCanceled``), the code
    /// expired (``MSALInternalError/deviceCodeExpired``) or the task was canceled.
    ///
    /// When ``MSALGlobalConfig/telemetryConfig`` has a callback, the call is reported to it when it
    /// ends, with swift-msal's `msal.api_id` `1001` (``MSALTelemetryConfig``).
    public func acquireTokenWithDeviceCode(
        with parameters: MSALTokenParameters, deviceCodeCallback: @escaping @Sendable (MSALDeviceCodeInfo) -> Void
    ) async throws -> MSALResult {
        guard let telemetry = TelemetryAPICall.start(.acquireTokenWithDeviceCode, client: client, parameters: parameters) else {
            return try await DeviceCodeFlow(client: client).run(parameters, deviceCodeCallback: deviceCodeCallback)
        }
        do {
            let result = try await DeviceCodeFlow(client: client).run(parameters, deviceCodeCallback: deviceCodeCallback)
            telemetry.succeeded(result)
            return result
        } catch {
            telemetry.failed(error)
            throw error
        }
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
