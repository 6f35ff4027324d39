extension MSALPublicClientApplication {
    /// What MSAL knows about the device (MSAL for iOS's `getDeviceInformation`).
    ///
    /// On Linux there is no broker to ask, so the answer is that of a device without one
    /// (``MSALDeviceInformation``); it never fails.
    public func deviceInformation(with parameters: MSALParameters?) async throws -> MSALDeviceInformation {
        MSALDeviceInformation()
    }

    /// ``deviceInformation(with:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func getDeviceInformation(
        with parameters: MSALParameters?, completionBlock: @escaping @Sendable (MSALDeviceInformation?, (any Error)?) -> Void
    ) {
        MSALParameters.complete(parameters, completionBlock) { try await self.deviceInformation(with: parameters) }
    }

    /// The accounts that `parameters` select, read without blocking the caller (MSAL for iOS's
    /// `accountsFromDevice`).
    ///
    /// MSAL for iOS also asks its broker for the accounts it knows; swift-msal has no broker on
    /// Linux, so these are the accounts in this application's token cache, as
    /// ``accounts(for:)`` returns them.
    public func accountsFromDevice(for parameters: MSALAccountEnumerationParameters) async throws -> [MSALAccount] {
        try await accountsWithoutBlocking(for: parameters)
    }

    /// ``accountsFromDevice(for:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    public func accountsFromDevice(
        for parameters: MSALAccountEnumerationParameters, completionBlock: @escaping @Sendable ([MSALAccount]?, (any Error)?) -> Void
    ) {
        MSALParameters.complete(parameters, completionBlock) { try await self.accountsFromDevice(for: parameters) }
    }
}
