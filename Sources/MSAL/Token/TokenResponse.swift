/// A successful token endpoint response (RFC 6749 §5.1 plus the Microsoft identity platform's
/// members), with the values the cache and the result need.
package struct TokenResponse: Sendable, Equatable {
    package var accessToken: String
    package var tokenType: String
    /// Seconds the access token lives.
    package var expiresIn: Int64
    /// Seconds the access token may still be used when the service is down (`ext_expires_in`).
    package var extendedExpiresIn: Int64?
    /// Seconds after which a proactive refresh should start (`refresh_in`).
    package var refreshIn: Int64?
    /// The refresh token; `nil` when absent or empty (an empty one is never stored).
    package var refreshToken: String?
    /// The raw ID token.
    package var idToken: String?
    /// The raw `client_info`.
    package var clientInfo: String?
    /// The granted scopes as returned, space-separated; `nil` when the response has none.
    package var scope: String?
    /// The family of client IDs (`foci`), such as "1".
    package var familyID: String?

    package init(
        accessToken: String, tokenType: String = "Bearer", expiresIn: Int64, extendedExpiresIn: Int64? = nil,
        refreshIn: Int64? = nil, refreshToken: String? = nil, idToken: String? = nil, clientInfo: String? = nil,
        scope: String? = nil, familyID: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.extendedExpiresIn = extendedExpiresIn
        self.refreshIn = refreshIn
        self.refreshToken = refreshToken.flatMap { $0.isEmpty ? nil : $0 }
        self.idToken = idToken.flatMap { $0.isEmpty ? nil : $0 }
        self.clientInfo = clientInfo.flatMap { $0.isEmpty ? nil : $0 }
        self.scope = scope
        self.familyID = familyID.flatMap { $0.isEmpty ? nil : $0 }
    }
}
