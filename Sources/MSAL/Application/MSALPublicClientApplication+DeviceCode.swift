import Foundation

extension MSALPublicClientApplication {
    /// Signs a user in with a code they enter on another device (RFC 8628), for machines without
    /// a browser: `deviceCodeCallback` receives the code and instructions to show, then the
    /// method polls until the user finished, declined (``MSALError/Code/userCanceled``), the code
    /// expired (``MSALInternalError/deviceCodeExpired``) or the task was canceled.
    public func acquireTokenWithDeviceCode(
        with parameters: MSALTokenParameters, deviceCodeCallback: @escaping @Sendable (MSALDeviceCodeInfo) -> Void
    ) async throws -> MSALResult {
        try await DeviceCodeFlow(client: client).run(parameters, deviceCodeCallback: deviceCodeCallback)
    }

    /// ``acquireTokenWithDeviceCode(with:deviceCodeCallback:)`` with a completion block, called once
    /// on an arbitrary thread.
    public func acquireTokenWithDeviceCode(
        with parameters: MSALTokenParameters, deviceCodeCallback: @escaping @Sendable (MSALDeviceCodeInfo) -> Void,
        completionBlock: @escaping MSALCompletionBlock
    ) {
        Task {
            do {
                completionBlock(try await acquireTokenWithDeviceCode(with: parameters, deviceCodeCallback: deviceCodeCallback), nil)
            } catch {
                completionBlock(nil, error)
            }
        }
    }
}
