import Foundation
import Testing

@testable import MSAL

@Suite("Authority metadata: issuer and endpoint checks, malformed documents")
struct AuthorityMetadataValidationTests {
    static let tenant = AuthorityURLs.tenant
    static let foreignTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    /// Resolves the GUID tenant authority (validated through instance discovery) with the recorded tenant document
    /// changed by `changes`.
    private func resolveTenant(_ changes: [String: Any?]) async throws -> MSALAuthorityMetadata {
        try await resolveTenant(body: try AuthorityFixtures.authorityJSON("openid_configuration_tenant.json", changes))
    }

    private func resolveTenant(body: [UInt8], status: Int = 200) async throws -> MSALAuthorityMetadata {
        let harness = ResolverHarness()
        harness.transport.on(AuthorityURLs.tenantDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(AuthorityURLs.tenantConfiguration, json: body, status: status)
        return try await harness.resolve("https://login.microsoftonline.com/\(Self.tenant)")
    }

    // MARK: Issuer (Microsoft Entra)

    @Test("The recorded tenant document is accepted unchanged")
    func recordedDocumentAccepted() async throws {
        let metadata = try await resolveTenant([:])
        #expect(metadata.issuer == "https://login.microsoftonline.com/\(Self.tenant)/v2.0")
    }

    @Test("An issuer on another host is rejected")
    func issuerOnAnotherHost() async throws {
        for issuer in [
            "https://evil.com/\(Self.tenant)/v2.0", "https://login.microsoftonline.com.evil.com/\(Self.tenant)/v2.0",
            "https://evil.com@login.microsoftonline.com/\(Self.tenant)/v2.0", "https://login.microsoftonline.com:8443/\(Self.tenant)/v2.0",
        ] {
            await expectMSALError(.authorityIssuerMismatch, mentioning: ["host"]) {
                _ = try await resolveTenant(["issuer": issuer])
            }
        }
    }

    @Test("An http issuer is rejected")
    func httpIssuer() async throws {
        await expectMSALError(.authorityIssuerMismatch, mentioning: ["not an https URL"]) {
            _ = try await resolveTenant(["issuer": "http://login.microsoftonline.com/\(Self.tenant)/v2.0"])
        }
    }

    @Test("Another tenant's GUID under a GUID authority is rejected")
    func foreignTenantIssuer() async throws {
        await expectMSALError(.authorityIssuerMismatch, mentioning: ["another tenant"]) {
            _ = try await resolveTenant(["issuer": "https://login.microsoftonline.com/\(Self.foreignTenant)/v2.0"])
        }
        await expectMSALError(.authorityIssuerMismatch, mentioning: ["another tenant"]) {
            _ = try await resolveTenant(["issuer": "https://login.microsoftonline.com/common/v2.0"])
        }
    }

    @Test("The {tenantid} template under a tenant-specific authority is rejected")
    func templateIssuerForTenant() async throws {
        await expectMSALError(.authorityIssuerMismatch, mentioning: ["template"]) {
            _ = try await resolveTenant(["issuer": "https://login.microsoftonline.com/{tenantid}/v2.0"])
        }
        await expectMSALError(.authorityIssuerMismatch, mentioning: ["template"]) {
            _ = try await resolveTenant(["issuer": "https://login.microsoftonline.com/{tenant}/v2.0"])
        }
    }

    @Test("An issuer path other than /<tenant>[/v2.0] is rejected")
    func issuerPath() async throws {
        for issuer in [
            "https://login.microsoftonline.com/\(Self.tenant)/v2.0/extra", "https://login.microsoftonline.com/\(Self.tenant)/v1.0",
            "https://login.microsoftonline.com", "https://login.microsoftonline.com/",
        ] {
            await expectMSALError(.authorityIssuerMismatch) {
                _ = try await resolveTenant(["issuer": issuer])
            }
        }
    }

    @Test("The v1 issuer https://sts.windows.net/<tid>/ is accepted for that tenant")
    func v1IssuerAccepted() async throws {
        let tenant = "6babcaad-604b-40ac-a9d7-9fd97c0b779f"
        let harness = ResolverHarness()
        let discovery = AuthorityURLs.discovery(authorityOrigin: "https://login.microsoftonline.com", tenant: tenant)
        let configuration = "https://login.microsoftonline.com/\(tenant)/v2.0/.well-known/openid-configuration"
        harness.transport.on(discovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(configuration, json: try AuthorityFixtures.authority("openid_configuration_v1_issuer.json"))
        let metadata = try await harness.resolve("https://login.microsoftonline.com/\(tenant)")
        #expect(metadata.issuer == "https://sts.windows.net/\(tenant)/")
        #expect(metadata.jwksURI.absoluteString == "https://login.microsoftonline.com/\(tenant)/discovery/keys")
        #expect(metadata.deviceCodeEndpoint?.absoluteString == "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/devicecode")

        // The same document's issuer names another tenant for this authority.
        await expectMSALError(.authorityIssuerMismatch, mentioning: ["another tenant"]) {
            _ = try await resolveTenant(["issuer": "https://sts.windows.net/\(Self.foreignTenant)/"])
        }
    }

    @Test("A domain or multi-tenant authority accepts its tenant's GUID issuer")
    func domainAuthorityWithGUIDIssuer() async throws {
        let harness = ResolverHarness()
        let discovery = AuthorityURLs.discovery(authorityOrigin: "https://login.microsoftonline.com", tenant: "contoso.com")
        let configuration = "https://login.microsoftonline.com/contoso.com/v2.0/.well-known/openid-configuration"
        harness.transport.on(discovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(configuration, json: try AuthorityFixtures.authority("openid_configuration_tenant.json"))
        let metadata = try await harness.resolve("https://login.microsoftonline.com/Contoso.com")
        #expect(metadata.tenant == "contoso.com")
        #expect(metadata.issuer == "https://login.microsoftonline.com/\(Self.tenant)/v2.0")
    }

    @Test("A multi-tenant authority whose document uses the {tenant} template gets the {tenantid} form")
    func tenantPlaceholderTemplate() async throws {
        let harness = ResolverHarness()
        harness.transport.on(AuthorityURLs.commonDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(
            AuthorityURLs.commonConfiguration,
            json: try AuthorityFixtures.authorityJSON(
                "openid_configuration_common.json", ["issuer": "https://login.microsoftonline.com/{tenant}/v2.0"]))
        let metadata = try await harness.resolve("https://login.microsoftonline.com/common")
        // The ID-token validator understands {tenantid}; the metadata must not hand it a template it cannot fill.
        #expect(metadata.issuer == "https://login.microsoftonline.com/{tenantid}/v2.0")
    }

    // MARK: Issuer (ADFS, OpenID Connect)

    @Test("An ADFS issuer must be https://<host>/adfs")
    func adfsIssuer() async throws {
        let configuration = "https://fs.contoso.com/adfs/.well-known/openid-configuration"
        func resolve(_ issuer: String) async throws -> MSALAuthorityMetadata {
            let harness = ResolverHarness()
            harness.transport.on(
                configuration, json: try AuthorityFixtures.authorityJSON("openid_configuration_adfs.json", ["issuer": issuer]))
            return try await harness.resolve("https://fs.contoso.com/adfs")
        }
        #expect(try await resolve("https://fs.contoso.com/adfs").issuer == "https://fs.contoso.com/adfs")
        #expect(try await resolve("https://fs.contoso.com/adfs/").issuer == "https://fs.contoso.com/adfs/")
        for issuer in [
            "https://fs.contoso.com/adfs/services/trust", "http://fs.contoso.com/adfs", "https://other.contoso.com/adfs",
            "https://fs.contoso.com", "https://FS.contoso.com/adfs",
        ] {
            await expectMSALError(.authorityIssuerMismatch, mentioning: ["ADFS issuer"]) {
                _ = try await resolve(issuer)
            }
        }
    }

    @Test("An OpenID Connect issuer must equal the authority exactly")
    func oidcIssuer() async throws {
        let authority = try MSALOIDCAuthority(url: url("https://idp.example.com/realms/test"))
        let configuration = "https://idp.example.com/realms/test/.well-known/openid-configuration"
        func resolve(_ issuer: String) async throws -> MSALAuthorityMetadata {
            let harness = ResolverHarness()
            harness.transport.on(
                configuration,
                json: try AuthorityFixtures.json([
                    "issuer": issuer,
                    "authorization_endpoint": "https://idp.example.com/realms/test/protocol/openid-connect/auth",
                    "token_endpoint": "https://idp.example.com/realms/test/protocol/openid-connect/token",
                    "jwks_uri": "https://idp.example.com/realms/test/protocol/openid-connect/certs",
                    "device_authorization_endpoint": "https://idp.example.com/realms/test/protocol/openid-connect/auth/device",
                ]))
            let metadata = try await harness.resolve(authority)
            #expect(harness.transport.requestedURLs == [configuration])
            return metadata
        }
        let metadata = try await resolve("https://idp.example.com/realms/test")
        #expect(metadata.kind == .oidc)
        #expect(metadata.deviceCodeEndpoint?.absoluteString == "https://idp.example.com/realms/test/protocol/openid-connect/auth/device")
        for issuer in [
            "https://idp.example.com/realms/test/", "https://idp.example.com/realms/Test", "https://IDP.example.com/realms/test",
            "https://idp.example.com/realms", "http://idp.example.com/realms/test",
        ] {
            await expectMSALError(.authorityIssuerMismatch, mentioning: ["exactly"]) {
                _ = try await resolve(issuer)
            }
        }
        // A trailing slash in the authority is part of the issuer, but not of the configuration URL.
        let slashed = try MSALOIDCAuthority(url: url("https://idp.example.com/realms/test/"))
        #expect(AuthorityResolver.configurationURL(slashed.components, networkHost: "idp.example.com") == configuration)
    }

    // MARK: Endpoints

    @Test("An endpoint on a foreign host is rejected")
    func endpointOnForeignHost() async throws {
        for member in ["authorization_endpoint", "token_endpoint", "jwks_uri", "end_session_endpoint", "device_authorization_endpoint"] {
            await expectMSALError(.insecureEndpoint, mentioning: [member, "does not own", "evil.com"]) {
                _ = try await resolveTenant([member: "https://evil.com/\(Self.tenant)/oauth2/v2.0/token"])
            }
        }
        await expectMSALError(.insecureEndpoint, mentioning: ["does not own"]) {
            _ = try await resolveTenant(["token_endpoint": "https://login.microsoftonline.com:8443/\(Self.tenant)/oauth2/v2.0/token"])
        }
    }

    @Test("An endpoint over http is rejected")
    func endpointOverHTTP() async throws {
        for member in ["authorization_endpoint", "token_endpoint", "jwks_uri"] {
            await expectMSALError(.insecureEndpoint, mentioning: [member, "not https"]) {
                _ = try await resolveTenant([member: "http://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token"])
            }
        }
        await expectMSALError(.insecureEndpoint, mentioning: ["not https"]) {
            _ = try await resolveTenant(["token_endpoint": "ftp://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token"])
        }
    }

    @Test("An endpoint with userinfo is rejected")
    func endpointWithUserinfo() async throws {
        for endpoint in [
            "https://user@login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token",
            "https://login.microsoftonline.com@evil.com/\(Self.tenant)/oauth2/v2.0/token",
            "https://user:pw@login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token",
        ] {
            await expectMSALError(.insecureEndpoint, mentioning: ["userinfo"]) {
                _ = try await resolveTenant(["token_endpoint": endpoint])
            }
        }
    }

    /// The document `FuzzAuthorityMetadata` (FuzzTesting/, docs/reliability.md "Fuzzing") stopped on, as found:
    /// its token endpoint's repeated `@` made URLComponents percent-encode all but the last, and the host
    /// range it then reported, one of its own re-encoded string, was applied to the text as served: a trap.
    static let repeatedAtSigns = Array(
        #"""
        {"token_endpoint":"https://login.m@@@@@@@@@@icrosoftonline.com/co/token","tokmn_endpoint_auth_methods_supported":["client_secret_porbac_urlvate_key_jwt","client_secret_basic"],"jwks_uri":"https://login.microsoft-nline.com/consumers/discovery/v2.0/keys","response_types_supportedresponse_modes_supported":["query","fragment","form_post"],"subject_types_supported":["pairwise"],"id_token_signing_alg_values_supported":["RS256"],"response_types_supported":["code","id_toke","profile","email","offline_access"],"issuer":"https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0","request_uri_parameter_supported":false,"userinfo_endpoint":"https://graph.microsoft.com/oidc/userinfo","authorization_endpoint":"https://login.microso[tonline.cn.microso[tonline.com/consumers/oauth4/v2.0/authorize","htsost":"graph.microsoft.com","rbac_url":"https://pas.windows.net"}
        """#.utf8)

    @Test("An endpoint with several @ is rejected as carrying userinfo, not a trap (the fuzzer's document, then variants)")
    func endpointWithRepeatedAtSigns() async throws {
        let harness = ResolverHarness()
        harness.transport.on(AuthorityURLs.commonDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(AuthorityURLs.commonConfiguration, json: Self.repeatedAtSigns)
        await expectMSALError(.insecureEndpoint, mentioning: ["token_endpoint", "userinfo"]) {
            _ = try await harness.resolve("https://login.microsoftonline.com/common")
        }
        for endpoint in [
            "https://a@@login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token",
            "https://login.microsoftonline.com@@evil.com/\(Self.tenant)/oauth2/v2.0/token",
        ] {
            await expectMSALError(.insecureEndpoint, mentioning: ["token_endpoint", "userinfo"]) {
                _ = try await resolveTenant(["token_endpoint": endpoint])
            }
        }
        // Only at signs before the path: no host at all.
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["token_endpoint", "not an absolute URL"]) {
            _ = try await resolveTenant(["token_endpoint": "https://@@@/\(Self.tenant)/oauth2/v2.0/token"])
        }
    }

    @Test("An endpoint whose host is percent-encoded is rejected, even when it decodes to a trusted host")
    func endpointWithPercentEncodedHost() async throws {
        for endpoint in [
            "https://login.microsoftonline%2Ecom/\(Self.tenant)/oauth2/v2.0/token",
            "https://login%2emicrosoftonline.com/\(Self.tenant)/oauth2/v2.0/token",
            "https://evil.com%2F.login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token",
        ] {
            await expectMSALError(.insecureEndpoint, mentioning: ["token_endpoint"]) {
                _ = try await resolveTenant(["token_endpoint": endpoint])
            }
        }
    }

    @Test("An authority on an xn-- (IDN) host accepts endpoints on that same host")
    func punycodeHostEndpoints() async throws {
        let host = "xn--bcher-kva.example"
        let harness = ResolverHarness()
        harness.transport.on(
            "https://\(host)/adfs/.well-known/openid-configuration",
            json: try AuthorityFixtures.json([
                "issuer": "https://\(host)/adfs",
                "authorization_endpoint": "https://\(host)/adfs/oauth2/authorize/",
                "token_endpoint": "https://\(host)/adfs/oauth2/token/",
                "jwks_uri": "https://\(host)/adfs/discovery/keys",
            ]))
        let metadata = try await harness.resolve("https://\(host)/adfs")
        #expect(metadata.tokenEndpoint.absoluteString == "https://\(host)/adfs/oauth2/token/")
        #expect(metadata.cacheEnvironment == host)
    }

    /// The token endpoint `FuzzAuthorityMetadata` stopped on (docs/reliability.md, "Fuzzing"), on this test's host: its
    /// fragment holds `%e3`, a percent escape that is not UTF-8 on its own, so `URLComponents.fragment` is nil
    /// and the check passed an endpoint with a fragment. The same trick hid userinfo.
    static let fragmentWithBadEscape =
        "https://login.microsoftonline.com/f444444444444444444444444444444444444444444444444444444444444444444444444444444444-b5a6-#798-8a9b-0c1d%e3f4a5b/oauth2/v2.0/token"

    @Test("A fragment or userinfo whose escapes are not UTF-8 is still seen (the fuzzer's endpoint, then variants)")
    func endpointPartsWithBadEscapes() async throws {
        for endpoint in [
            Self.fragmentWithBadEscape, "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token#%ff",
            "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token#",
        ] {
            await expectMSALError(.invalidAuthorityMetadata, mentioning: ["token_endpoint", "not an absolute URL"]) {
                _ = try await resolveTenant(["token_endpoint": endpoint])
            }
        }
        for endpoint in [
            "https://%e3@login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token",
            "https://u:%ff@login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token",
            "https://@login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token",
        ] {
            await expectMSALError(.insecureEndpoint, mentioning: ["token_endpoint", "userinfo"]) {
                _ = try await resolveTenant(["token_endpoint": endpoint])
            }
        }
    }

    @Test("Unusable endpoint URLs are invalid metadata")
    func unusableEndpoints() async throws {
        for endpoint in [
            "/\(Self.tenant)/oauth2/v2.0/token", "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token#x",
            "https://login.microsoftonline.com/\(Self.tenant)/oauth 2", "https://login.microsoftonline.com\\evil.com/token",
            "https:///token", "https://login.microsoftonline.com/\(String(repeating: "a", count: 2100))",
        ] {
            await expectMSALError(.invalidAuthorityMetadata, mentioning: ["token_endpoint", "not an absolute URL"]) {
                _ = try await resolveTenant(["token_endpoint": endpoint])
            }
        }
    }

    @Test("{tenant} and {tenantid} placeholders in endpoints are replaced with the tenant")
    func placeholdersReplaced() async throws {
        let metadata = try await resolveTenant([
            "token_endpoint": "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
            "jwks_uri": "https://login.microsoftonline.com/{tenantid}/discovery/v2.0/keys",
            "authorization_endpoint": "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize",
        ])
        #expect(metadata.tokenEndpoint.absoluteString == "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/token")
        #expect(metadata.jwksURI.absoluteString == "https://login.microsoftonline.com/\(Self.tenant)/discovery/v2.0/keys")
        #expect(metadata.authorizationEndpoint.absoluteString == "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/authorize")
    }

    @Test("B2C endpoints keep their ?p= query, and the derived device code endpoint keeps it too")
    func b2cQueryKept() async throws {
        let tenant = "6babcaad-604b-40ac-a9d7-9fd97c0b779f"
        let harness = ResolverHarness()
        let configuration = "https://login.microsoftonline.com/\(tenant)/my-policy/v2.0/.well-known/openid-configuration"
        harness.transport.on(configuration, json: try AuthorityFixtures.authority("openid_configuration_b2c_query.json"))
        let metadata = try await harness.resolve("https://login.microsoftonline.com/tfp/\(tenant)/my-policy")
        #expect(harness.transport.requestedURLs == [configuration])
        #expect(metadata.kind == .b2c)
        #expect(
            metadata.authorizationEndpoint.absoluteString == "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/authorize?p=my-policy"
        )
        #expect(metadata.tokenEndpoint.absoluteString == "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/token?p=my-policy")
        #expect(
            metadata.deviceCodeEndpoint?.absoluteString == "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/devicecode?p=my-policy")
        #expect(metadata.issuer == "https://sts.windows.net/\(tenant)/")
    }

    // MARK: Missing and wrong-typed members

    @Test("A missing required member is invalid metadata", arguments: ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri"])
    func missingMember(member: String) async throws {
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["\(member) is missing"]) {
            _ = try await resolveTenant([member: nil])
        }
    }

    @Test("MSAL.NET's documents with missing fields are invalid metadata")
    func missingFieldDocuments() async throws {
        let tenant = "6babcaad-604b-40ac-a9d7-9fd97c0b779f"
        let harness = ResolverHarness()
        let discovery = AuthorityURLs.discovery(authorityOrigin: "https://login.microsoftonline.com", tenant: tenant)
        harness.transport.on(discovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(
            "https://login.microsoftonline.com/\(tenant)/v2.0/.well-known/openid-configuration",
            json: try AuthorityFixtures.authority("openid_configuration_missing_token_endpoint.json"))
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["token_endpoint is missing"]) {
            _ = try await harness.resolve("https://login.microsoftonline.com/\(tenant)")
        }
        harness.transport.on(
            "https://fs.contoso.com/adfs/.well-known/openid-configuration",
            json: try AuthorityFixtures.authority("openid_configuration_adfs_missing_fields.json"))
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["authorization_endpoint is missing"]) {
            _ = try await harness.resolve("https://fs.contoso.com/adfs")
        }
    }

    @Test("Wrong-typed members are invalid metadata")
    func wrongTypedMembers() async throws {
        let cases: [(String, Any, String)] = [
            ("issuer", 42, "issuer is not a non-empty string"),
            ("issuer", "", "issuer is not a non-empty string"),
            ("issuer", NSNull(), "issuer is not a non-empty string"),
            ("token_endpoint", ["https://login.microsoftonline.com/x/oauth2/v2.0/token"], "token_endpoint is not a non-empty string"),
            ("jwks_uri", ["uri": "https://login.microsoftonline.com/keys"], "jwks_uri is not a non-empty string"),
            ("authorization_endpoint", true, "authorization_endpoint is not a non-empty string"),
            ("end_session_endpoint", 5, "end_session_endpoint is not a string"),
            ("device_authorization_endpoint", false, "device_authorization_endpoint is not a string"),
        ]
        for (member, value, message) in cases {
            await expectMSALError(.invalidAuthorityMetadata, mentioning: [message]) {
                _ = try await resolveTenant([member: value])
            }
        }
    }

    @Test("Optional members may be null or empty")
    func optionalMembersNull() async throws {
        let metadata = try await resolveTenant(["end_session_endpoint": NSNull(), "device_authorization_endpoint": ""])
        #expect(metadata.endSessionEndpoint == nil)
        #expect(metadata.deviceCodeEndpoint?.absoluteString == "https://login.microsoftonline.com/\(Self.tenant)/oauth2/v2.0/devicecode")
    }

    // MARK: Malformed bodies

    @Test("Malformed instance discovery JSON (MSAL4J) is a typed error")
    func malformedDiscovery() async throws {
        let harness = ResolverHarness()
        harness.transport.on(AuthorityURLs.commonDiscovery, json: try AuthorityFixtures.authority("instance_discovery_malformed.txt"))
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["instance discovery response is invalid", "not JSON"]) {
            _ = try await harness.resolve("https://login.microsoftonline.com/common")
        }
        #expect(harness.transport.requestedURLs == [AuthorityURLs.commonDiscovery])
    }

    @Test("Instance discovery documents of the wrong shape are typed errors")
    func wrongShapeDiscovery() async throws {
        let group: [String: Any] = [
            "preferred_network": "login.microsoftonline.com", "preferred_cache": "login.windows.net",
            "aliases": ["login.microsoftonline.com"],
        ]
        let cases: [(Any, String)] = [
            ([group], "not a JSON object"),
            (["tenant_discovery_endpoint": 1, "metadata": [group]], "tenant_discovery_endpoint is not a string"),
            (["api-version": "1.1"], "metadata is missing"),
            (["metadata": group], "metadata is not an array"),
            (["metadata": ["x"]], "not an object"),
            (["metadata": [group.merging(["preferred_network": NSNull()]) { $1 }]], "preferred_network"),
            (["metadata": [group.merging(["preferred_cache": "evil.com/x"]) { $1 }]], "preferred_cache"),
            (["metadata": [group.merging(["aliases": "login.microsoftonline.com"]) { $1 }]], "aliases array"),
            (["metadata": [group.merging(["aliases": ["login.microsoftonline.com", "evil.com@x"]]) { $1 }]], "alias"),
            (["metadata": [group.merging(["aliases": [7]]) { $1 }]], "alias"),
        ]
        for (document, message) in cases {
            let harness = ResolverHarness()
            harness.transport.on(AuthorityURLs.commonDiscovery, json: [UInt8](try JSONSerialization.data(withJSONObject: document)))
            await expectMSALError(.invalidAuthorityMetadata, mentioning: [message]) {
                _ = try await harness.resolve("https://login.microsoftonline.com/common")
            }
        }
    }

    @Test("An HTML body is a typed error, with 200 or another status")
    func htmlBody() async throws {
        let html = Array("<!DOCTYPE html><html><body>Sign-in is down</body></html>".utf8)
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["not JSON"]) {
            _ = try await resolveTenant(body: html)
        }
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["HTTP 404"]) {
            _ = try await resolveTenant(body: html, status: 404)
        }
        let harness = ResolverHarness()
        harness.transport.on(
            AuthorityURLs.commonDiscovery, .response(MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "text/html"], body: html)))
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["instance discovery", "not JSON"]) {
            _ = try await harness.resolve("https://login.microsoftonline.com/common")
        }
    }

    @Test("An enormous body (5 MB of JSON) is a typed error")
    func enormousBody() async throws {
        var document = try #require(
            try JSONSerialization.jsonObject(with: Data(AuthorityFixtures.authority("openid_configuration_tenant.json"))) as? [String: Any])
        document["padding"] = String(repeating: "x", count: 5 * 1024 * 1024)
        let huge = try AuthorityFixtures.json(document)
        #expect(huge.count > 5 * 1024 * 1024)
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["OpenID configuration"]) {
            _ = try await resolveTenant(body: huge)
        }
        // The same as an error body, and as an instance-discovery answer.
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["HTTP 400"]) {
            _ = try await resolveTenant(body: huge, status: 400)
        }
        let harness = ResolverHarness()
        harness.transport.on(AuthorityURLs.commonDiscovery, json: huge)
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["instance discovery"]) {
            _ = try await harness.resolve("https://login.microsoftonline.com/common")
        }
    }

    @Test("Deeply nested and duplicate-member documents are typed errors")
    func hostileJSON() async throws {
        let deep = Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        await expectMSALError(.invalidAuthorityMetadata) {
            _ = try await resolveTenant(body: deep)
        }
        // Two issuers: a parser that kept the last one would trust something else than one that kept the first.
        let duplicate = Array(
            #"""
            {"issuer":"https://login.microsoftonline.com/\#(Self.tenant)/v2.0","issuer":"https://evil.com/\#(Self.tenant)/v2.0",
             "authorization_endpoint":"https://login.microsoftonline.com/\#(Self.tenant)/oauth2/v2.0/authorize",
             "token_endpoint":"https://login.microsoftonline.com/\#(Self.tenant)/oauth2/v2.0/token",
             "jwks_uri":"https://login.microsoftonline.com/\#(Self.tenant)/discovery/v2.0/keys"}
            """#.utf8)
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["not JSON"]) {
            _ = try await resolveTenant(body: duplicate)
        }
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["not a JSON object"]) {
            _ = try await resolveTenant(body: Array("\"https://login.microsoftonline.com\"".utf8))
        }
        await expectMSALError(.invalidAuthorityMetadata) {
            _ = try await resolveTenant(body: [])
        }
        await expectMSALError(.invalidAuthorityMetadata) {
            _ = try await resolveTenant(body: [0xFF, 0xFE, 0x7B, 0x7D])
        }
    }

    // MARK: Server errors

    @Test("invalid_tenant (400, AADSTS90002, recorded live) is .invalidTenant")
    func invalidTenant() async throws {
        let harness = ResolverHarness()
        let discovery = AuthorityURLs.discovery(authorityOrigin: "https://login.microsoftonline.com", tenant: "tenant")
        let configuration = "https://login.microsoftonline.com/tenant/v2.0/.well-known/openid-configuration"
        harness.transport.on(discovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(configuration, json: try AuthorityFixtures.authority("openid_configuration_invalid_tenant.json"), status: 400)
        let error = await expectMSALError(.invalidTenant, mentioning: ["invalid_tenant", "AADSTS90002", "Tenant discovery", "HTTP 400"]) {
            _ = try await harness.resolve("https://login.microsoftonline.com/tenant")
        }
        #expect(error?.oauthError == "invalid_tenant")
        #expect(error?.stsErrorCodes == [90002])
        #expect(error?.httpStatusCode == 400)
        #expect(error?.httpHeaders?["Content-Type"] == "application/json; charset=utf-8")
        #expect(error?.correlationID == AuthorityURLs.correlationID)
        // The description's CR/LF are not carried into the message.
        #expect(error?.message.contains("\r") == false)
        #expect(error?.message.contains("\n") == false)
        // Not cached: the next call asks again.
        await expectMSALError(.invalidTenant) { _ = try await harness.resolve("https://login.microsoftonline.com/tenant") }
        #expect(harness.transport.count(configuration) == 2)
        #expect(harness.transport.count(discovery) == 1)
    }

    @Test("Other error answers keep their OAuth members")
    func otherErrorAnswers() async throws {
        let body = try AuthorityFixtures.json([
            "error": "invalid_request", "suberror": "x", "error_description": "AADSTS90010: bad", "error_codes": [90010, "7"],
        ])
        let error = await expectMSALError(.invalidAuthorityMetadata, mentioning: ["invalid_request", "AADSTS90010"]) {
            _ = try await resolveTenant(body: body, status: 400)
        }
        #expect(error?.oauthError == "invalid_request")
        #expect(error?.oauthSubError == "x")
        #expect(error?.stsErrorCodes == [90010])
    }
}
