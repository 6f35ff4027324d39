import Foundation
import Testing

@testable import MSAL

@Suite("Authority parsing: kinds, canonical form, subclasses")
struct AuthorityParsingTests {
    // MARK: Kind detection

    @Test(
        "MSALAuthority.authority(url:) detects the kind and returns its subclass",
        arguments: [
            ("https://login.microsoftonline.com/common", MSALAuthorityKind.aad, "https://login.microsoftonline.com/common"),
            (
                "https://login.microsoftonline.com/contoso.onmicrosoft.com", .aad,
                "https://login.microsoftonline.com/contoso.onmicrosoft.com"
            ),
            ("https://login.chinacloudapi.cn/organizations", .aad, "https://login.chinacloudapi.cn/organizations"),
            (
                "https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com/B2C_1_SignIn", .b2c,
                "https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com/B2C_1_SignIn"
            ),
            (
                "https://login.microsoftonline.com/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_SignIn", .b2c,
                "https://login.microsoftonline.com/fabrikamb2c.onmicrosoft.com/B2C_1_SignIn"
            ),
            ("https://contoso.ciamlogin.com", .ciam, "https://contoso.ciamlogin.com/contoso.onmicrosoft.com"),
            ("https://contoso.ciamlogin.com/contoso.onmicrosoft.com", .ciam, "https://contoso.ciamlogin.com/contoso.onmicrosoft.com"),
            ("https://fs.contoso.com/adfs", .adfs, "https://fs.contoso.com/adfs"),
            ("https://fs.contoso.com/ADFS/", .adfs, "https://fs.contoso.com/adfs"),
        ])
    func kindDetection(text: String, kind: MSALAuthorityKind, canonical: String) throws {
        let authority = try MSALAuthority.authority(url: url(text))
        #expect(authority.kind == kind)
        #expect(authority.url.absoluteString == canonical)
        #expect(authority.description == canonical)
        switch kind {
        case .aad: #expect(authority is MSALAADAuthority)
        case .b2c: #expect(authority is MSALB2CAuthority)
        case .ciam: #expect(authority is MSALCIAMAuthority)
        case .adfs: #expect(authority is MSALADFSAuthority)
        case .oidc: #expect(authority is MSALOIDCAuthority)
        }
        let plain = try MSALAuthority(url: url(text))
        #expect(plain.kind == kind)
        #expect(plain == authority)
    }

    // MARK: Canonicalization

    @Test("Host and tenant are lower-cased, the trailing slash and :443 dropped")
    func canonicalization() throws {
        let authority = try MSALAuthority(url: url("HTTPS://LOGIN.MicrosoftOnline.COM:443/Contoso.OnMicrosoft.com/"))
        #expect(authority.url.absoluteString == "https://login.microsoftonline.com/contoso.onmicrosoft.com")
        #expect(authority.host == "login.microsoftonline.com")
        #expect(authority.tenant == "contoso.onmicrosoft.com")
        #expect(authority.components.rawTenant == "Contoso.OnMicrosoft.com")
        #expect(authority.components.port == nil)
    }

    @Test("A non-default port is kept; http's :80 is dropped")
    func ports() throws {
        let https = try MSALAuthority(url: url("https://login.microsoftonline.com:8443/common"))
        #expect(https.url.absoluteString == "https://login.microsoftonline.com:8443/common")
        #expect(https.components.hostAndPort == "login.microsoftonline.com:8443")
        let http = try MSALAuthority(url: url("http://localhost:80/tenant"), options: .allowInsecureLoopback)
        #expect(http.url.absoluteString == "http://localhost/tenant")
    }

    @Test("http loopback authorities are accepted with .allowInsecureLoopback")
    func loopbackWithOptIn() throws {
        for (text, canonical) in [
            ("http://127.0.0.1:8080/tenant", "http://127.0.0.1:8080/tenant"),
            ("http://LOCALHOST:8080/Tenant/", "http://localhost:8080/tenant"),
            ("http://[::1]:8080/tenant", "http://[::1]:8080/tenant"),
        ] {
            let authority = try MSALAuthority.authority(url: url(text), options: .allowInsecureLoopback)
            #expect(authority.url.absoluteString == canonical)
            #expect(authority.components.isLoopback)
            #expect(authority.components.scheme == "http")
            #expect(authority.options == .allowInsecureLoopback)
            #expect(authority is MSALAADAuthority)
        }
        // https needs no opt-in, loopback or not.
        let secure = try MSALAuthority(url: url("https://localhost:8443/tenant"))
        #expect(secure.components.isLoopback)
    }

    @Test("B2C keeps the policy as written, lower-cases the tenant and drops /tfp")
    func b2cCanonicalForm() throws {
        let authority = try MSALB2CAuthority(url: url("https://FabrikamB2C.b2clogin.com/tfp/FabrikamB2C.onmicrosoft.com/B2C_1_SignIn/"))
        #expect(authority.url.absoluteString == "https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com/B2C_1_SignIn")
        #expect(authority.policy == "B2C_1_SignIn")
        #expect(authority.tenant == "fabrikamb2c.onmicrosoft.com")
        let custom = try MSALB2CAuthority(url: url("https://login.contoso.com/contoso.onmicrosoft.com/B2C_1_SignIn"))
        #expect(custom.kind == .b2c)
        #expect(custom.url.absoluteString == "https://login.contoso.com/contoso.onmicrosoft.com/B2C_1_SignIn")
    }

    @Test("A CIAM authority without a path gets <label>.onmicrosoft.com")
    func ciamWithoutPath() throws {
        let authority = try MSALCIAMAuthority(url: url("https://Contoso.ciamlogin.com"))
        #expect(authority.tenant == "contoso.onmicrosoft.com")
        #expect(authority.url.absoluteString == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
        let slash = try MSALCIAMAuthority(url: url("https://contoso.ciamlogin.com/"))
        #expect(slash == authority)
        // Explicitly constructed on another host, the first label still names the tenant.
        let custom = try MSALCIAMAuthority(url: url("https://login.contoso.com"))
        #expect(custom.url.absoluteString == "https://login.contoso.com/login.onmicrosoft.com")
    }

    struct CIAMVectors: Decodable {
        struct Vector: Decodable {
            var input: String
            var canonical: String
            var msal_net_expected: String
        }
        struct TokenEndpoint: Decodable {
            var input: String
            var token_endpoint: String
        }
        var vectors: [Vector]
        var token_endpoints: [TokenEndpoint]
    }

    private static func ciamVectors() throws -> CIAMVectors {
        try JSONDecoder().decode(CIAMVectors.self, from: Data(AuthorityFixtures.authority("ciam_vectors.json")))
    }

    @Test("CIAM vectors of MSAL.NET (canonical form without the trailing slash)")
    func ciamVectors() throws {
        let vectors = try Self.ciamVectors()
        #expect(vectors.vectors.count == 4)
        for vector in vectors.vectors {
            #expect(vector.canonical + "/" == vector.msal_net_expected)
            let detected = try MSALAuthority.authority(url: url(vector.input))
            #expect(detected is MSALCIAMAuthority, "\(vector.input)")
            #expect(detected.url.absoluteString == vector.canonical, "\(vector.input)")
            let explicit = try MSALCIAMAuthority(url: url(vector.input))
            #expect(explicit.url.absoluteString == vector.canonical)
        }
    }

    @Test("CIAM token endpoints of MSAL.NET sit under our canonical authority and configuration URL")
    func ciamTokenEndpointVectors() throws {
        let vectors = try Self.ciamVectors()
        #expect(vectors.token_endpoints.count == 2)
        for vector in vectors.token_endpoints {
            let authority = try MSALCIAMAuthority(url: url(vector.input))
            #expect(authority.url.absoluteString + "/oauth2/v2.0/token" == vector.token_endpoint)
            let configuration = AuthorityResolver.configurationURL(authority.components, networkHost: authority.components.hostAndPort)
            #expect(configuration == authority.url.absoluteString + "/v2.0/.well-known/openid-configuration")
        }
    }

    @Test("ADFS authorities are canonical /adfs")
    func adfsCanonicalForm() throws {
        let authority = try MSALADFSAuthority(url: url("https://FS.Contoso.com:443/Adfs/"))
        #expect(authority.url.absoluteString == "https://fs.contoso.com/adfs")
        #expect(authority.tenant == "adfs")
        #expect(authority.kind == .adfs)
    }

    @Test("OpenID Connect issuers keep their path as written")
    func oidcIssuer() throws {
        let plain = try MSALOIDCAuthority(url: url("https://Accounts.Example.com"))
        #expect(plain.issuer == "https://accounts.example.com")
        #expect(plain.tenant == "")
        let path = try MSALOIDCAuthority(url: url("https://idp.example.com/realms/Test/"))
        #expect(path.issuer == "https://idp.example.com/realms/Test/")
        #expect(path.components.issuerPath == ["realms", "Test"])
        #expect(path != (try MSALOIDCAuthority(url: url("https://idp.example.com/realms/Test"))))
        // Never detected from a URL: MSALAuthority(url:) reads Microsoft kinds only.
        #expect(try MSALAuthority(url: url("https://idp.example.com/realms")).kind == .aad)
    }

    // MARK: Audience

    @Test(
        "audienceType follows the tenant",
        arguments: [
            ("common", MSALAudienceType.azureADAndPersonalMicrosoftAccountAudience, String?.none),
            ("Common", .azureADAndPersonalMicrosoftAccountAudience, nil),
            ("organizations", .azureADMultipleOrgsAudience, nil),
            ("consumers", .personalMicrosoftAccountAudience, nil),
            ("9188040d-6c67-4c5b-b112-36a304b66dad", .azureADMyOrgOnlyAudience, "9188040d-6c67-4c5b-b112-36a304b66dad"),
            ("Contoso.com", .azureADMyOrgOnlyAudience, "Contoso.com"),
        ])
    func audienceType(tenant: String, audience: MSALAudienceType, rawTenant: String?) throws {
        let authority = try MSALAADAuthority(url: url("https://login.microsoftonline.com/\(tenant)"))
        #expect(authority.audienceType == audience)
        #expect(authority.rawTenant == rawTenant)
        #expect(authority.tenant == tenant.lowercased())
        let detected = try #require(
            try MSALAuthority.authority(url: url("https://login.microsoftonline.com/\(tenant)")) as? MSALAADAuthority)
        #expect(detected.audienceType == audience)
    }

    // MARK: MSALAADAuthority(cloudInstance:audienceType:rawTenant:)

    @Test("Every cloud with every multi-tenant audience", arguments: MSALAzureCloudInstance.allCases)
    func cloudInstanceMultiTenant(cloud: MSALAzureCloudInstance) throws {
        let expected: [(MSALAudienceType, String)] = [
            (.azureADAndPersonalMicrosoftAccountAudience, "common"),
            (.azureADMultipleOrgsAudience, "organizations"),
            (.personalMicrosoftAccountAudience, "consumers"),
        ]
        for (audience, tenant) in expected {
            let authority = try MSALAADAuthority(cloudInstance: cloud, audienceType: audience, rawTenant: nil)
            #expect(authority.url.absoluteString == "https://\(cloud.host)/\(tenant)")
            #expect(authority.audienceType == audience)
            #expect(authority.rawTenant == nil)
            #expect(authority.kind == .aad)
        }
    }

    @Test("Every cloud with a single-tenant audience", arguments: MSALAzureCloudInstance.allCases)
    func cloudInstanceMyOrg(cloud: MSALAzureCloudInstance) throws {
        let authority = try MSALAADAuthority(
            cloudInstance: cloud, audienceType: .azureADMyOrgOnlyAudience, rawTenant: "Contoso.onmicrosoft.com")
        #expect(authority.url.absoluteString == "https://\(cloud.host)/contoso.onmicrosoft.com")
        #expect(authority.audienceType == .azureADMyOrgOnlyAudience)
        #expect(authority.rawTenant == "Contoso.onmicrosoft.com")
    }

    @Test("Cloud hosts are MSAL's")
    func cloudHosts() {
        #expect(MSALAzureCloudInstance.publicCloudInstance.host == "login.microsoftonline.com")
        #expect(MSALAzureCloudInstance.chinaCloudInstance.host == "login.chinacloudapi.cn")
        #expect(MSALAzureCloudInstance.germanyCloudInstance.host == "login.microsoftonline.de")
        #expect(MSALAzureCloudInstance.usGovernmentCloudInstance.host == "login.microsoftonline.us")
    }

    @Test(
        "Every cloud's host is trusted, in a built-in alias group of its own cloud, with its regional and mTLS hosts",
        arguments: MSALAzureCloudInstance.allCases)
    func everyCloudIsKnown(cloud: MSALAzureCloudInstance) throws {
        #expect(KnownClouds.trustedHosts.contains(cloud.host))
        let group = try #require(KnownClouds.group(containing: cloud.host), "\(cloud.host) has no alias group")
        #expect(KnownClouds.trustedHosts.isSuperset(of: group.aliases))
        #expect(group.aliases.contains(group.preferredNetwork))
        // The other MSALs' regional rule: the public cloud's hosts become <region>.login.microsoft.com, the others <region>.<host>.
        let regional = MSALAzureRegion.regionalHost(cloud.host, region: "westus2")
        #expect(regional == (cloud == .publicCloudInstance ? "westus2.login.microsoft.com" : "westus2.\(cloud.host)"))
    }

    @Test("The sovereign clouds of 2025–2026 (Bleu, Delos, GovSG) are single-host groups whose host is their cache host")
    func sovereignClouds() throws {
        for host in ["login.sovcloud-identity.fr", "login.sovcloud-identity.de", "login.sovcloud-identity.sg"] {
            let group = try #require(KnownClouds.group(containing: host))
            #expect(group.aliases == [host])
            #expect(group.preferredCache == host)
            #expect(group.preferredNetwork == host)
        }
    }

    @Test("Invalid cloud/audience/rawTenant combinations are .invalidParameter")
    func cloudInstanceInvalidCombinations() {
        expectMSALError(.internalErrorInvalidParameter, mentioning: ["rawTenant"]) {
            _ = try MSALAADAuthority(cloudInstance: .publicCloudInstance, audienceType: .azureADMyOrgOnlyAudience, rawTenant: nil)
        }
        expectMSALError(.internalErrorInvalidParameter, mentioning: ["rawTenant"]) {
            _ = try MSALAADAuthority(cloudInstance: .publicCloudInstance, audienceType: .azureADMyOrgOnlyAudience, rawTenant: "")
        }
        for audience in [
            MSALAudienceType.azureADAndPersonalMicrosoftAccountAudience, .azureADMultipleOrgsAudience, .personalMicrosoftAccountAudience,
        ] {
            expectMSALError(.internalErrorInvalidParameter, mentioning: ["azureADMyOrgOnlyAudience"]) {
                _ = try MSALAADAuthority(cloudInstance: .chinaCloudInstance, audienceType: audience, rawTenant: "contoso.com")
            }
        }
        expectMSALError(.invalidAuthority, mentioning: ["exactly one tenant segment"]) {
            _ = try MSALAADAuthority(
                cloudInstance: .publicCloudInstance, audienceType: .azureADMyOrgOnlyAudience, rawTenant: "contoso.com/evil")
        }
        expectMSALError(.invalidAuthority, mentioning: ["query"]) {
            _ = try MSALAADAuthority(cloudInstance: .publicCloudInstance, audienceType: .azureADMyOrgOnlyAudience, rawTenant: "x?y=z")
        }
    }

    // MARK: MSALAADAuthority(url:rawTenant:)

    @Test("init(url:rawTenant:) replaces the tenant and keeps host and port")
    func urlRawTenant() throws {
        let replaced = try MSALAADAuthority(url: url("https://login.microsoftonline.com/common"), rawTenant: "Contoso.com")
        #expect(replaced.url.absoluteString == "https://login.microsoftonline.com/contoso.com")
        #expect(replaced.audienceType == .azureADMyOrgOnlyAudience)
        #expect(replaced.rawTenant == "Contoso.com")
        let kept = try MSALAADAuthority(url: url("https://login.microsoftonline.us/organizations"), rawTenant: nil)
        #expect(kept.url.absoluteString == "https://login.microsoftonline.us/organizations")
        #expect(kept.audienceType == .azureADMultipleOrgsAudience)
        let ported = try MSALAADAuthority(url: url("https://login.microsoftonline.com:8443/common"), rawTenant: "consumers")
        #expect(ported.url.absoluteString == "https://login.microsoftonline.com:8443/consumers")
        #expect(ported.audienceType == .personalMicrosoftAccountAudience)
        expectMSALError(.invalidAuthority, mentioning: ["no tenant"]) {
            _ = try MSALAADAuthority(url: url("https://login.microsoftonline.com/common"), rawTenant: "")
        }
        expectMSALError(.invalidAuthority, mentioning: ["dot segment"]) {
            _ = try MSALAADAuthority(url: url("https://login.microsoftonline.com/common"), rawTenant: "..")
        }
        expectMSALError(.invalidAuthority, mentioning: ["userinfo"]) {
            _ = try MSALAADAuthority(url: url("https://a@login.microsoftonline.com/common"), rawTenant: "contoso.com")
        }
    }

    // MARK: Equality

    @Test("Authorities with the same canonical URL are equal and hash alike")
    func equalityOfCanonicalAuthorities() throws {
        let spellings = [
            "https://login.microsoftonline.com/contoso.com",
            "https://login.microsoftonline.com/Contoso.com",
            "https://LOGIN.microsoftonline.com/CONTOSO.COM/",
            "https://login.microsoftonline.com:443/contoso.com",
        ]
        let authorities = try spellings.map { try MSALAuthority(url: url($0)) }
        for authority in authorities {
            #expect(authority == authorities[0], "\(authority.components.rawTenant)")
            #expect(authority.hashValue == authorities[0].hashValue)
        }
        #expect(Set(authorities).count == 1)
        let subclass = try MSALAADAuthority(url: url("https://login.microsoftonline.com/CONTOSO.com"))
        #expect(subclass == authorities[0])
        let fromCloud = try MSALAADAuthority(
            cloudInstance: .publicCloudInstance, audienceType: .azureADMyOrgOnlyAudience, rawTenant: "Contoso.COM")
        #expect(fromCloud == authorities[0])
        #expect(Set<MSALAuthority>([subclass, fromCloud] + authorities).count == 1)
    }

    @Test("Different canonical URLs or kinds are not equal")
    func inequality() throws {
        let common = try MSALAuthority(url: url("https://login.microsoftonline.com/common"))
        #expect(common != (try MSALAuthority(url: url("https://login.microsoftonline.com/organizations"))))
        #expect(common != (try MSALAuthority(url: url("https://login.windows.net/common"))))
        #expect(common != (try MSALAuthority(url: url("https://login.microsoftonline.com:8443/common"))))
        // B2C policies are case-sensitive.
        let policy = try MSALB2CAuthority(url: url("https://x.b2clogin.com/x.onmicrosoft.com/B2C_1_a"))
        #expect(policy != (try MSALB2CAuthority(url: url("https://x.b2clogin.com/x.onmicrosoft.com/b2c_1_a"))))
        // Same URL text, different kind.
        let oidc = try MSALOIDCAuthority(url: url("https://login.microsoftonline.com/common"))
        #expect(oidc != common)
        #expect(Set<MSALAuthority>([common, oidc]).count == 2)
    }
}
