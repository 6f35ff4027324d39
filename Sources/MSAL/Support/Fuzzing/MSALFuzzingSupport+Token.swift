// Compiled only with the package trait TestEntryPoints, which FuzzTesting enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
import Foundation

@_spi(Fuzzing) extension MSALFuzzingSupport {
    /// The members of a token response the SDK keeps (`TokenResponse`).
    public struct ParsedTokenResponse: Sendable, Hashable {
        /// `access_token`.
        public var accessToken: String
        /// `expires_in`, clamped.
        public var expiresIn: Int64
        /// `ext_expires_in`, clamped.
        public var extendedExpiresIn: Int64?
        /// `refresh_in`, clamped.
        public var refreshIn: Int64?
        /// `refresh_token`.
        public var refreshToken: String?
        /// `id_token`.
        public var idToken: String?
        /// `client_info`.
        public var clientInfo: String?
        /// `scope`.
        public var scope: String?
        /// `foci`.
        public var familyID: String?
    }

    /// The longest lifetime a token response may give a token, in seconds.
    public static var maximumTokenLifetime: Int64 { TokenResponse.maximumLifetime }

    /// Parses a token endpoint success body.
    ///
    /// - Throws: ``MSALFailure`` (``MSALInternalError/internalErrorInvalidResponse``).
    public static func parseTokenResponse(_ body: [UInt8]) throws(MSALFailure) -> ParsedTokenResponse {
        let response = try TokenResponse(parsing: body)
        return ParsedTokenResponse(
            accessToken: response.accessToken, expiresIn: response.expiresIn, extendedExpiresIn: response.extendedExpiresIn,
            refreshIn: response.refreshIn, refreshToken: response.refreshToken, idToken: response.idToken,
            clientInfo: response.clientInfo, scope: response.scope, familyID: response.familyID)
    }

    /// Parses a token endpoint success body and saves it into an empty cache for `clientID` as the flows
    /// do, then returns the written cache document.
    ///
    /// - Throws: ``MSALFailure`` when the body or the account it names cannot be used.
    public static func cacheDocumentSaving(
        _ body: [UInt8], clientID: String, environment: String, tenant: String, now: Int64
    ) throws(MSALFailure) -> [UInt8] {
        let response = try TokenResponse(parsing: body)
        let context = TokenCacheWriteContext(
            clientID: clientID, environment: environment, authorityTenant: tenant, requestedScopes: ["User.Read"], now: now)
        let entries = try TokenCacheEntries(response: response, context: context)
        var contents = TokenCacheContents()
        contents.save(entries, clientID: clientID)
        return contents.document.serialized()
    }

    /// The grant a token endpoint error answers, for ``tokenEndpointError(status:body:grant:)``.
    public enum Grant: Sendable, CaseIterable {
        /// Code redemption.
        case authorizationCode
        /// A silent refresh.
        case refreshToken
        /// Device code polling.
        case deviceCode
    }

    /// The error the SDK reports for a token endpoint response that is not a success.
    public static func tokenEndpointError(status: Int, body: [UInt8], grant: Grant) -> MSALFailure {
        let response = MSALHTTPResponse(statusCode: status, body: body)
        let mapped: TokenGrant
        switch grant {
        case .authorizationCode: mapped = .authorizationCode
        case .refreshToken: mapped = .refreshToken
        case .deviceCode: mapped = .deviceCode
        }
        return MSALFailure(
            tokenEndpointResponse: response, grant: mapped, correlationID: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)))
    }

    /// The longest `error_description` kept from an error body, in characters.
    public static var maximumErrorDescriptionLength: Int { OAuthErrorResponse.maximumDescriptionLength }

    /// Parses a device authorization body (`DeviceCodeResponse`).
    ///
    /// - Throws: ``MSALFailure`` (``MSALInternalError/internalErrorInvalidResponse``).
    public static func parseDeviceCodeResponse(
        _ body: [UInt8]
    ) throws(MSALFailure) -> (userCode: String, verificationURI: URL, expiresIn: Int64, interval: Int64, message: String) {
        let response = try DeviceCodeResponse(parsing: body)
        return (response.userCode, response.verificationURI, response.expiresIn, response.interval, response.message)
    }

    /// The longest device code lifetime and polling interval honoured, in seconds.
    public static var deviceCodeLimits: (lifetime: Int64, interval: Int64) {
        (DeviceCodeResponse.maximumLifetime, DeviceCodeResponse.maximumInterval)
    }
}
#endif
