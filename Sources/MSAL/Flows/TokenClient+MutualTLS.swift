import Foundation

extension TokenClient {
    /// The certificate a token request presents in TLS: the request's own (mTLS proof of
    /// possession), else the credential's when it authenticates in TLS; `nil` otherwise.
    package func tlsCertificate(_ presentation: TokenPresentation?) -> MSALClientCertificate? {
        if case .mutualTLS(let certificate) = presentation { return certificate }
        return clientAuthentication?.tlsCertificate
    }

    /// Where a confidential client's token request to `authority` goes: `metadata`'s token
    /// endpoint, or, when the request is made over mutual TLS, the endpoint for it
    /// (``mutualTLSTokenEndpoint(_:authority:region:correlationID:)``, no region).
    package func tokenEndpoint(
        _ metadata: MSALAuthorityMetadata, authority: MSALAuthority, presentation: TokenPresentation? = nil, correlationID: UUID
    ) throws(MSALFailure) -> URL {
        guard tlsCertificate(presentation) != nil else { return metadata.tokenEndpoint }
        return try Self.mutualTLSTokenEndpoint(metadata, authority: authority, region: nil, correlationID: correlationID)
    }

    /// The token endpoint for requests made over mutual TLS.
    ///
    /// - A generic OpenID provider: `mtls_endpoint_aliases` `token_endpoint` when its metadata
    ///   names one (RFC 8705 §5), else `token_endpoint`.
    /// - Microsoft Entra, for a tenant (not `common`, `organizations` or `consumers`): the token
    ///   endpoint's path on the cloud's mTLS host, as MSAL.NET sends it: `mtlsauth.microsoft.com`
    ///   for the public cloud, `login.<cloud>` becoming `mtlsauth.<cloud>` elsewhere, with
    ///   `<region>.` in front when a region applies.
    ///
    /// - Throws: ``MSALInternalError/internalErrorInvalidParameter`` for an authority of another
    ///   kind (AD FS, B2C, CIAM), a multi-tenant one, or a cloud without an mTLS host (Azure
    ///   Government's `login.usgovcloudapi.net`, Azure China's `login.chinacloudapi.cn`, hosts not
    ///   named `login.…`).
    package static func mutualTLSTokenEndpoint(
        _ metadata: MSALAuthorityMetadata, authority: MSALAuthority, region: String?, correlationID: UUID
    ) throws(MSALFailure) -> URL {
        func refuse(_ reason: String) -> MSALFailure {
            MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "Mutual TLS cannot be used here: \(reason)",
                correlationID: correlationID)
        }
        switch authority.kind {
        case .oidc:
            return metadata.mtlsTokenEndpoint ?? metadata.tokenEndpoint
        case .aad:
            let tenant = authority.components.tenant
            guard !isMultiTenant(tenant), tenant.lowercased() != "consumers" else {
                throw refuse("the authority names no tenant (\(tenant)); mutual TLS needs a tenanted authority")
            }
            let endpoint = metadata.tokenEndpoint
            guard let host = endpoint.host?.lowercased(), let mtlsHost = Self.mutualTLSHost(host),
                var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
            else {
                throw refuse("the cloud of \(endpoint.host ?? endpoint.absoluteString) has no mTLS endpoint")
            }
            components.host = region.map { "\($0).\(mtlsHost)" } ?? mtlsHost
            components.port = nil
            guard let url = components.url else { throw refuse("the mTLS token endpoint cannot be formed") }
            return url
        default:
            throw refuse("a \(authority.kind) authority has no mTLS token endpoint (Microsoft Entra and OpenID Connect providers have)")
        }
    }

    /// The mTLS host of a Microsoft cloud's login host, or `nil` for a cloud without one and for
    /// any host that is not one of the Microsoft clouds' (``KnownClouds/trustedHosts``).
    package static func mutualTLSHost(_ host: String) -> String? {
        guard KnownClouds.trustedHosts.contains(host) else { return nil }
        let publicCloud = ["login.microsoftonline.com", "login.microsoft.com", "login.windows.net", "sts.windows.net"]
        if publicCloud.contains(host) { return "mtlsauth.microsoft.com" }
        // Azure Government's and Azure China's older hosts have no mTLS counterpart (MSAL.NET refuses them too).
        if host == "login.usgovcloudapi.net" || host == "login.chinacloudapi.cn" { return nil }
        guard host.hasPrefix("login."), host.count > "login.".count else { return nil }
        return "mtlsauth." + host.dropFirst("login.".count)
    }
}
