import Foundation

/// The completion block of
/// ``MSALPublicClientApplication/getWPJMetaDataDevice(with:forTenantId:completionBlock:)``: the
/// metadata or an error, never both.
public typealias MSALWPJMetaDataCompletionBlock = @Sendable (MSALWPJMetaData?, (any Error)?) -> Void

/// The completion block of ``MSALPublicClientApplication/getDeviceToken(with:completionBlock:)``
/// and ``MSALPublicClientApplication/getDeviceTokenForSharedDevice(withResource:scopes:completionBlock:)``:
/// a device token or an error, never both (always an error on Linux).
public typealias MSALDeviceTokenResultCompletionBlock = @Sendable (MSALDeviceTokenResult?, (any Error)?) -> Void

// MSAL for iOS's members for its broker (Microsoft Authenticator, the Enterprise SSO extension),
// device registration and app URL schemes. Linux has none of them: each member does what MSAL for
// iOS does on a device without them, and is deprecated so that ported code is warned. (Microsoft's
// Linux identity broker is another program, used through `MSALPublicClientApplicationConfig.linuxBroker`.)
extension MSALPublicClientApplication {
    /// Whether MSAL for iOS recognized `response`, a URL opened in the app, as the answer of its web
    /// session or broker (called from the app delegate).
    ///
    /// Kept so that code written for MSAL for iOS compiles: always `false` on Linux, where apps have
    /// no URL schemes and the sign-in's redirect arrives at swift-msal's loopback listener (or at an
    /// app-supplied ``MSALWebUI``) without the app's help.
    @available(*, deprecated, message: "No app URL schemes on Linux: always false; the redirect arrives at the loopback listener")
    public static func handleMSALResponse(_ response: URL, sourceApplication: String?) -> Bool {
        false
    }

    /// Whether a version of Microsoft Authenticator that can act as MSAL for iOS's broker is
    /// installed. Always `false` on Linux, which has no Authenticator; Microsoft's Linux identity
    /// broker is used through ``MSALPublicClientApplicationConfig/linuxBroker`` instead.
    @available(*, deprecated, message: "No broker on Linux: always false")
    public var isCompatibleAADBrokerAvailable: Bool { false }

    /// The device's workplace-join metadata for `tenantId` (MSAL for iOS's
    /// `getWPJMetaDataDevice`), read from the Apple keychain there.
    ///
    /// Linux has no workplace join, so this answers what MSAL for iOS answers on a device that is
    /// not registered: an ``MSALWPJMetaData`` without information. It never fails.
    @available(*, deprecated, message: "No workplace join on Linux: the metadata is always empty")
    public func wpjMetaDataDevice(with parameters: MSALParameters?, forTenantId tenantId: String?) async throws -> MSALWPJMetaData {
        MSALWPJMetaData(unregisteredDevice: ())
    }

    /// ``wpjMetaDataDevice(with:forTenantId:)`` with a completion block, called once, on the
    /// parameters' ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads
    /// otherwise). On Linux the metadata is always empty.
    @available(*, deprecated, message: "No workplace join on Linux: the metadata is always empty")
    public func getWPJMetaDataDevice(
        with parameters: MSALParameters?, forTenantId tenantId: String?, completionBlock: @escaping MSALWPJMetaDataCompletionBlock
    ) {
        MSALParameters.complete(parameters, completionBlock) { MSALWPJMetaData(unregisteredDevice: ()) }
    }

    /// A token for the device rather than a user (MSAL for iOS's `getDeviceToken`), which MSAL for
    /// iOS gets with the device's workplace-join registration.
    ///
    /// Linux has no broker and no device registration, so this always throws an ``MSALFailure``
    /// with code ``MSALError/internal`` and internal code
    /// ``MSALInternalError/internalBrokerNotAvailable``.
    @available(*, deprecated, message: "No broker on Linux: always fails with internalBrokerNotAvailable")
    public func deviceToken(with parameters: MSALDeviceTokenParameters) async throws -> MSALDeviceTokenResult {
        throw Self.deviceTokenUnavailable(correlationID: parameters.correlationId)
    }

    /// ``deviceToken(with:)`` with a completion block, called once, on the parameters'
    /// ``MSALParameters/completionBlockQueue`` when set (on one of swift-msal's threads otherwise).
    /// On Linux it always receives the error ``MSALInternalError/internalBrokerNotAvailable``.
    @available(*, deprecated, message: "No broker on Linux: always fails with internalBrokerNotAvailable")
    public func getDeviceToken(
        with parameters: MSALDeviceTokenParameters, completionBlock: @escaping MSALDeviceTokenResultCompletionBlock
    ) {
        let failure = Self.deviceTokenUnavailable(correlationID: parameters.correlationId)
        MSALParameters.complete(parameters, completionBlock) { () async throws -> MSALDeviceTokenResult in throw failure }
    }

    /// A device token for `resource` on a device in shared mode (MSAL for iOS's
    /// `getDeviceTokenForSharedDevice`).
    ///
    /// Shared-device mode and device tokens come from the broker, which Linux does not have: this
    /// always throws an ``MSALFailure`` with code ``MSALError/internal`` and internal code
    /// ``MSALInternalError/internalBrokerNotAvailable`` (or, as in MSAL for iOS, with
    /// ``MSALInternalError/internalErrorInvalidParameter`` when `resource` is blank).
    @available(*, deprecated, message: "No broker on Linux: always fails with internalBrokerNotAvailable")
    public func deviceTokenForSharedDevice(withResource resource: String, scopes: [String]?) async throws -> MSALDeviceTokenResult {
        throw Self.sharedDeviceTokenUnavailable(resource: resource)
    }

    /// ``deviceTokenForSharedDevice(withResource:scopes:)`` with a completion block, called once on
    /// one of swift-msal's threads. On Linux it always receives an error (see there).
    @available(*, deprecated, message: "No broker on Linux: always fails with internalBrokerNotAvailable")
    public func getDeviceTokenForSharedDevice(
        withResource resource: String, scopes: [String]?, completionBlock: @escaping MSALDeviceTokenResultCompletionBlock
    ) {
        let failure = Self.sharedDeviceTokenUnavailable(resource: resource)
        MSALParameters.complete(nil, completionBlock) { () async throws -> MSALDeviceTokenResult in throw failure }
    }

    /// The error of every device-token request on Linux.
    private static func deviceTokenUnavailable(correlationID: UUID?) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .internalBrokerNotAvailable,
            message: "Device tokens need a broker and the device's workplace-join registration, which Linux does not have",
            correlationID: correlationID)
    }

    /// The error of a shared-device token request: MSAL for iOS's check of the resource, then
    /// `deviceTokenUnavailable(correlationID:)`.
    private static func sharedDeviceTokenUnavailable(resource: String) -> MSALFailure {
        if resource.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "A resource is required to get a device token for a shared device")
        }
        return deviceTokenUnavailable(correlationID: nil)
    }
}
