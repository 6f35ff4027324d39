extension MSALPublicClientApplication {
    /// What MSAL knows about the device (MSAL for iOS's `getDeviceInformation`).
    ///
    /// With Microsoft's Linux identity broker (``MSALPublicClientApplicationConfig/linuxBroker``),
    /// the broker is asked for its version, reported under ``MSAL_LINUX_BROKER_VERSION``; without
    /// one, or when it does not answer (logged), the answer is that of a device without a broker
    /// (``MSALDeviceInformation``). It never fails.
    public func deviceInformation(with parameters: MSALParameters?) async throws -> MSALDeviceInformation {
        guard let broker else { return MSALDeviceInformation() }
        let correlationID = parameters?.correlationId ?? client.correlationIDs.make()
        do {
            return MSALDeviceInformation(linuxBrokerVersion: try await broker.version(correlationID: correlationID))
        } catch {
            client.logger.warning("The identity broker did not tell its version: \(error: error)", correlationID: correlationID)
            return MSALDeviceInformation()
        }
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
    /// MSAL for iOS also asks its broker for the accounts it knows; so does swift-msal with
    /// Microsoft's Linux identity broker (``MSALPublicClientApplicationConfig/linuxBroker``),
    /// waiting for it on a thread of its own. These are the accounts ``accounts(for:)`` returns.
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
