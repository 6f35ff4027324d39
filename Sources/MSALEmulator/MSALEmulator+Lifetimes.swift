extension MSALEmulator {
    /// How long what the emulator issues stays valid, in seconds.
    ///
    /// Change them at run time with ``MSALEmulator/setLifetimes(_:)`` — for example a 60-second
    /// access token makes every silent request past the SDK's five-minute expiry buffer refresh.
    public struct Lifetimes: Sendable, Hashable {
        /// Access tokens (`expires_in`). Default 3600.
        public var accessToken: Int
        /// The extended lifetime of access tokens (`ext_expires_in`). Default 3600.
        public var extendedAccessToken: Int
        /// ID tokens (`exp` − `iat`). Default 3600.
        public var idToken: Int
        /// Refresh tokens, counted from their issue (each use issues a new one). Default 90 days.
        public var refreshToken: Int
        /// Authorization codes. Default 600.
        public var authorizationCode: Int
        /// Device codes (`expires_in` of the device authorization response). Default 900.
        public var deviceCode: Int
        /// The polling interval the device authorization response asks for (`interval`); polls closer
        /// together than this get `slow_down`. Default 5; 0 turns `slow_down` off.
        public var deviceCodeInterval: Int
        /// The `refresh_in` of app-token responses (client credentials), in seconds: when the
        /// client should get a new token although the one it has is still valid. Default `nil`:
        /// none is sent, as Microsoft Entra ID usually sends none.
        public var appTokenRefreshIn: Int?
        /// Tokens of the managed-identity endpoints (IMDS, App Service, Azure Arc). Default 86400:
        /// managed-identity tokens are long-lived.
        public var managedIdentityToken: Int

        /// Creates lifetimes; every value is clamped to at least 1 second (the interval to at least 0).
        public init(
            accessToken: Int = 3600, extendedAccessToken: Int = 3600, idToken: Int = 3600, refreshToken: Int = 90 * 86_400,
            authorizationCode: Int = 600, deviceCode: Int = 900, deviceCodeInterval: Int = 5, appTokenRefreshIn: Int? = nil,
            managedIdentityToken: Int = 86_400
        ) {
            self.accessToken = max(1, accessToken)
            self.extendedAccessToken = max(1, extendedAccessToken)
            self.idToken = max(1, idToken)
            self.refreshToken = max(1, refreshToken)
            self.authorizationCode = max(1, authorizationCode)
            self.deviceCode = max(1, deviceCode)
            self.deviceCodeInterval = max(0, deviceCodeInterval)
            self.appTokenRefreshIn = appTokenRefreshIn.map { max(1, $0) }
            self.managedIdentityToken = max(1, managedIdentityToken)
        }

        /// The lifetimes with every value in range, as the initializer clamps them.
        var clamped: Lifetimes {
            Lifetimes(
                accessToken: accessToken, extendedAccessToken: extendedAccessToken, idToken: idToken, refreshToken: refreshToken,
                authorizationCode: authorizationCode, deviceCode: deviceCode, deviceCodeInterval: deviceCodeInterval,
                appTokenRefreshIn: appTokenRefreshIn, managedIdentityToken: managedIdentityToken)
        }
    }
}
