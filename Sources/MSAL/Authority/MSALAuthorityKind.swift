/// The kind of identity provider an authority names.
public enum MSALAuthorityKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Microsoft Entra ID (Azure AD), including personal Microsoft accounts: `https://login.microsoftonline.com/<tenant>`.
    case aad
    /// Azure AD B2C: `https://<tenant>.b2clogin.com/<tenant>.onmicrosoft.com/<policy>`.
    case b2c
    /// Microsoft Entra External ID for customers: `https://<tenant>.ciamlogin.com[/<tenant>]`.
    case ciam
    /// Active Directory Federation Services: `https://<host>/adfs`.
    case adfs
    /// Any OpenID Connect issuer that serves `/.well-known/openid-configuration`.
    case oidc

    /// The raw value.
    public var description: String { rawValue }

    /// Whether the provider is Microsoft's identity platform, which understands its extensions
    /// (`client_info`, the `x-client-*` telemetry headers, `client-request-id`). A generic OpenID
    /// Connect provider is sent standard OAuth 2.0 and OpenID Connect only.
    package var isMicrosoft: Bool { self != .oidc }
}
