import Foundation
import MSALJOSE
import Testing

@testable import MSAL

/// Where requests over mutual TLS go (RFC 8705 §5 and Microsoft Entra's mTLS hosts), and what a
/// provider's `mtls_endpoint_aliases` may name.
@Suite("Mutual TLS: token endpoints, Entra's mTLS hosts and mtls_endpoint_aliases")
struct MutualTLSEndpointTests {
    static let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    static func metadata(
        authority: MSALAuthority, tokenEndpoint: String, mtlsTokenEndpoint: String? = nil
    ) -> MSALAuthorityMetadata {
        let url = authority.url
        return MSALAuthorityMetadata(
            authority: url, kind: authority.kind, tenant: authority.components.tenant, cacheEnvironment: url.host ?? "",
            networkHost: url.host ?? "", aliases: [url.host ?? ""], isValidated: false, authorizationEndpoint: url,
            tokenEndpoint: URL(string: tokenEndpoint)!, deviceCodeEndpoint: nil, endSessionEndpoint: nil, jwksURI: url, issuer: "x",
            mtlsTokenEndpoint: mtlsTokenEndpoint.map { URL(string: $0)! })
    }

    static func endpoint(_ authorityURL: String, tokenEndpoint: String, region: String? = nil) throws -> URL {
        let authority = try MSALAuthority(url: URL(string: authorityURL)!)
        return try TokenClient.mutualTLSTokenEndpoint(
            metadata(authority: authority, tokenEndpoint: tokenEndpoint), authority: authority, region: region, correlationID: UUID())
    }

    @Test(
        "Entra's mTLS hosts: the public cloud's aliases become mtlsauth.microsoft.com, login.<cloud> becomes mtlsauth.<cloud>, the clouds without one are nil",
        arguments: [
            ("login.microsoftonline.com", "mtlsauth.microsoft.com"), ("login.microsoft.com", "mtlsauth.microsoft.com"),
            ("login.windows.net", "mtlsauth.microsoft.com"), ("sts.windows.net", "mtlsauth.microsoft.com"),
            ("login.microsoftonline.us", "mtlsauth.microsoftonline.us"),
            ("login.partner.microsoftonline.cn", "mtlsauth.partner.microsoftonline.cn"),
            ("login.sovcloud-identity.fr", "mtlsauth.sovcloud-identity.fr"),
        ])
    func hosts(login: String, mtls: String) {
        #expect(TokenClient.mutualTLSHost(login) == mtls)
    }

    @Test("Clouds without an mTLS host: Azure Government's and Azure China's older hosts, and hosts not named login.…")
    func hostsWithout() {
        for host in [
            "login.usgovcloudapi.net", "login.chinacloudapi.cn", "login-us.microsoftonline.com", "idp.example.com", "login.",
            "login.contoso.com", "login.microsoftonline.com.evil.example",
        ] {
            #expect(TokenClient.mutualTLSHost(host) == nil, "\(host)")
        }
    }

    @Test("A tenanted Entra authority: the token endpoint's path on the mTLS host, regional when a region applies")
    func entraEndpoint() throws {
        let token = "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token"
        let global = try Self.endpoint("https://login.microsoftonline.com/\(Self.tenant)", tokenEndpoint: token)
        #expect(global.absoluteString == "https://mtlsauth.microsoft.com/\(Self.tenant)/oauth2/v2.0/token")
        let regional = try Self.endpoint("https://login.microsoftonline.com/\(Self.tenant)", tokenEndpoint: token, region: "westus2")
        #expect(regional.absoluteString == "https://westus2.mtlsauth.microsoft.com/\(Self.tenant)/oauth2/v2.0/token")
        let government = try Self.endpoint(
            "https://login.microsoftonline.us/\(Self.tenant)",
            tokenEndpoint: "https://login.microsoftonline.us/\(Self.tenant)/oauth2/v2.0/token")
        #expect(government.host == "mtlsauth.microsoftonline.us")
    }

    @Test("Refused before any request: a multi-tenant authority, a cloud without an mTLS host, B2C, AD FS")
    func refusals() throws {
        let cases: [(String, String, String)] = [
            ("https://login.microsoftonline.com/common", "https://login.microsoftonline.com/common/oauth2/v2.0/token", "no tenant"),
            (
                "https://login.microsoftonline.com/organizations", "https://login.microsoftonline.com/organizations/oauth2/v2.0/token",
                "no tenant"
            ),
            ("https://login.microsoftonline.com/consumers", "https://login.microsoftonline.com/consumers/oauth2/v2.0/token", "no tenant"),
            (
                "https://login.chinacloudapi.cn/\(Self.tenant)", "https://login.chinacloudapi.cn/\(Self.tenant)/oauth2/v2.0/token",
                "no mTLS endpoint"
            ),
            (
                "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin",
                "https://contoso.b2clogin.com/contoso.onmicrosoft.com/b2c_1_signin/oauth2/v2.0/token", "no mTLS token endpoint"
            ),
            ("https://adfs.contoso.com/adfs", "https://adfs.contoso.com/adfs/oauth2/token", "no mTLS token endpoint"),
        ]
        for (authority, token, reason) in cases {
            let error = #expect(throws: MSALFailure.self) { try Self.endpoint(authority, tokenEndpoint: token) }
            #expect(error?.internalCode == .internalErrorInvalidParameter, "\(authority)")
            #expect(error?.message.contains(reason) == true, "\(authority): \(error?.message ?? "")")
        }
    }

    @Test("A generic OpenID provider: mtls_endpoint_aliases' token_endpoint when its metadata names one, else token_endpoint")
    func genericProvider() throws {
        let authority = try MSALOIDCAuthority(url: URL(string: "https://idp.example.com/realms/a")!)
        let aliased = Self.metadata(
            authority: authority, tokenEndpoint: "https://idp.example.com/realms/a/token",
            mtlsTokenEndpoint: "https://idp.example.com/realms/a/mtls/token")
        let plain = Self.metadata(authority: authority, tokenEndpoint: "https://idp.example.com/realms/a/token")
        #expect(
            try TokenClient.mutualTLSTokenEndpoint(aliased, authority: authority, region: nil, correlationID: UUID()).path
                == "/realms/a/mtls/token")
        #expect(
            try TokenClient.mutualTLSTokenEndpoint(plain, authority: authority, region: nil, correlationID: UUID()).path
                == "/realms/a/token")
    }

    @Test(
        "mtls_endpoint_aliases in a generic provider's metadata: kept on a host it owns over https; ignored on a foreign host, over http, or malformed, without failing discovery; ignored for Microsoft authorities"
    )
    func aliasesInMetadata() throws {
        func validated(_ aliases: String, microsoft: Bool = false) throws -> MSALAuthorityMetadata {
            let authority: MSALAuthority =
                microsoft
                ? try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/\(Self.tenant)")!)
                : try MSALOIDCAuthority(url: URL(string: "https://idp.example.com/realms/a")!)
            let base = microsoft ? "https://login.microsoftonline.com/\(Self.tenant)" : "https://idp.example.com/realms/a"
            let issuer = microsoft ? base + "/v2.0" : base
            let body = """
                {"issuer":"\(issuer)","authorization_endpoint":"\(base)/auth","token_endpoint":"\(base)/token",\
                "jwks_uri":"\(base)/keys"\(aliases)}
                """
            let configuration = try OpenIDConfiguration.parse(Array(body.utf8), correlationID: nil)
            let host = authority.components.hostAndPort
            let group =
                KnownClouds.group(containing: authority.components.host)
                ?? KnownClouds.Group(preferredNetwork: host, preferredCache: host, aliases: [host])
            return try AuthorityMetadataValidator(
                authority: authority, group: group, policy: AuthorityValidationPolicy(), isValidated: false
            )
            .validate(configuration, correlationID: nil)
        }
        let entra = try validated(
            #","mtls_endpoint_aliases":{"token_endpoint":"https://login.microsoftonline.com/\#(Self.tenant)/mtls/token"}"#,
            microsoft: true)
        #expect(entra.mtlsTokenEndpoint == nil)
        #expect(
            try validated(#","mtls_endpoint_aliases":{"token_endpoint":"https://idp.example.com/realms/a/mtls/token"}"#)
                .mtlsTokenEndpoint?.absoluteString == "https://idp.example.com/realms/a/mtls/token")
        for ignored in [
            #","mtls_endpoint_aliases":{"token_endpoint":"https://evil.example.net/token"}"#,
            #","mtls_endpoint_aliases":{"token_endpoint":"http://idp.example.com/realms/a/mtls/token"}"#,
            #","mtls_endpoint_aliases":{"token_endpoint":42}"#, #","mtls_endpoint_aliases":["https://idp.example.com/x"]"#,
            #","mtls_endpoint_aliases":null"#, "",
        ] {
            let metadata = try validated(ignored)
            #expect(metadata.mtlsTokenEndpoint == nil, "\(ignored)")
            #expect(metadata.tokenEndpoint.absoluteString == "https://idp.example.com/realms/a/token")
        }
    }

    @Test("MSALClientCertificate.x5tS256 is the base64url SHA-256 of the certificate's DER (RFC 8705 §3.1), matching the hex thumbprint")
    func thumbprint() throws {
        let generated = try ClientCertificate.generateSelfSigned(commonName: "mtls test")
        let certificate = try MSALClientCertificate(
            privateKeyPEM: String(decoding: generated.privateKeyPEM, as: UTF8.self),
            certificatePEM: String(decoding: generated.certificatePEM, as: UTF8.self))
        let bytes = try Base64URL.decode(certificate.x5tS256)
        #expect(bytes.count == 32)
        #expect(bytes.map { String(format: "%02x", $0) }.joined() == certificate.sha256Thumbprint)
        let der = certificate.certificate.chain[0]
        #expect(try MessageDigest.sha256(der) == bytes)
    }

    @Test("A request with a client certificate that is not https is refused with tlsFailure before anything is sent")
    func certificateNeedsHTTPS() async throws {
        let generated = try ClientCertificate.generateSelfSigned(commonName: "mtls test")
        var request = MSALHTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:1/token")!)
        request.clientCertificate = try MSALClientCertificate(
            privateKeyPEM: String(decoding: generated.privateKeyPEM, as: UTF8.self),
            certificatePEM: String(decoding: generated.certificatePEM, as: UTF8.self))
        let error = await expectMSALError { try await MSALCurlTransport().send(request, limits: .default) }
        #expect(error?.internalCode == .tlsFailure && error?.message.contains("not https") == true, "\(String(describing: error))")
    }

}
