extension MSALEmulator {
    /// The emulator's endpoints, for fault injection and the request log.
    public enum Endpoint: String, Sendable, Hashable, CaseIterable {
        /// `GET /common/discovery/instance`.
        case instanceDiscovery = "instance_discovery"
        /// `GET /{tenant}/v2.0/.well-known/openid-configuration`.
        case openIDConfiguration = "openid_configuration"
        /// `GET /{tenant}/discovery/v2.0/keys`.
        case keys
        /// `GET`/`POST /{tenant}/oauth2/v2.0/authorize`.
        case authorize
        /// `POST /{tenant}/oauth2/v2.0/token`.
        case token
        /// `POST /{tenant}/oauth2/v2.0/devicecode`.
        case deviceCode = "devicecode"
        /// `GET`/`POST /devicelogin`, the page where a user enters a device code.
        case deviceLogin = "devicelogin"
        /// `GET`/`POST /{tenant}/oauth2/v2.0/logout`.
        case logout
        /// `GET /resource/me`, the protected resource.
        case resource
        /// `GET /metadata/identity/oauth2/token`: the Azure Instance Metadata Service (IMDS)
        /// managed-identity token endpoint.
        case imds
        /// `GET /msi/token`: the App Service (and Azure Functions) managed-identity token endpoint, API 2019-08-01.
        case appService = "app_service"
        /// `GET /arc/metadata/identity/oauth2/token`: the Azure Arc managed-identity token endpoint
        /// with its key-file challenge.
        case azureArc = "azure_arc"
        /// `GET /`, the emulator's home page.
        case home
        /// Anything else (answered 404).
        case unknown
    }

    /// The grant types of the token endpoint.
    public enum GrantType: String, Sendable, Hashable, CaseIterable {
        /// `authorization_code`.
        case authorizationCode = "authorization_code"
        /// `refresh_token`.
        case refreshToken = "refresh_token"
        /// `urn:ietf:params:oauth:grant-type:device_code`.
        case deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
        /// `client_credentials` (RFC 6749 §4.4): a confidential client's own app token.
        case clientCredentials = "client_credentials"
        /// `urn:ietf:params:oauth:grant-type:jwt-bearer` (RFC 7523 §2.1) with
        /// `requested_token_use=on_behalf_of`: a middle-tier API's token for its caller's user.
        case jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
        /// `user_fic`: a user's tokens for an agent identity presenting a federated identity
        /// credential (Microsoft Entra's agent identities).
        case userFederatedCredential = "user_fic"
    }
}
