import Foundation
import Testing

@testable import MSAL

@Suite("Authority resolver: discovery requests, caching and validation modes")
struct AuthorityResolverTests {
    /// A harness scripted with the public-cloud /common answers.
    private func commonHarness(policy: AuthorityValidationPolicy = AuthorityValidationPolicy()) throws -> ResolverHarness {
        let harness = ResolverHarness(policy: policy)
        harness.transport.on(AuthorityURLs.commonDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(AuthorityURLs.commonConfiguration, json: try AuthorityFixtures.authority("openid_configuration_common.json"))
        return harness
    }

    @Test("Public cloud /common: instance discovery, then the OpenID configuration, and the metadata they give")
    func publicCloudCommon() async throws {
        let harness = try commonHarness()
        let metadata = try await harness.resolve("https://login.microsoftonline.com/common")
        #expect(harness.transport.requestedURLs == [AuthorityURLs.commonDiscovery, AuthorityURLs.commonConfiguration])
        for request in harness.transport.requests {
            #expect(request.method == .get)
            #expect(request.headers["client-request-id"] == AuthorityURLs.correlationID.uuidString.lowercased())
        }
        #expect(metadata.authority.absoluteString == "https://login.microsoftonline.com/common")
        #expect(metadata.kind == .aad)
        #expect(metadata.tenant == "common")
        #expect(metadata.cacheEnvironment == "login.windows.net")
        #expect(metadata.networkHost == "login.microsoftonline.com")
        #expect(metadata.aliases == ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"])
        #expect(metadata.isValidated)
        #expect(metadata.authorizationEndpoint.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")
        #expect(metadata.tokenEndpoint.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(metadata.deviceCodeEndpoint?.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode")
        #expect(metadata.endSessionEndpoint?.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/logout")
        #expect(metadata.jwksURI.absoluteString == AuthorityURLs.commonKeys)
        #expect(metadata.issuer == "https://login.microsoftonline.com/{tenantid}/v2.0")
    }

    @Test("A tenant authority takes the device authorization endpoint from its document")
    func tenantDocument() async throws {
        let harness = ResolverHarness()
        harness.transport.on(AuthorityURLs.tenantDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(AuthorityURLs.tenantConfiguration, json: try AuthorityFixtures.authority("openid_configuration_tenant.json"))
        let metadata = try await harness.resolve("https://login.microsoftonline.com/\(AuthorityURLs.tenant)")
        #expect(harness.transport.requestedURLs == [AuthorityURLs.tenantDiscovery, AuthorityURLs.tenantConfiguration])
        #expect(metadata.issuer == "https://login.microsoftonline.com/\(AuthorityURLs.tenant)/v2.0")
        #expect(
            metadata.deviceCodeEndpoint?.absoluteString
                == "https://login.microsoftonline.com/\(AuthorityURLs.tenant)/oauth2/v2.0/devicecode")
        #expect(metadata.tokenEndpoint.absoluteString == "https://login.microsoftonline.com/\(AuthorityURLs.tenant)/oauth2/v2.0/token")
    }

    @Test("An alias host is discovered at itself and resolved through the cloud's preferred network host")
    func aliasHost() async throws {
        let harness = ResolverHarness()
        let discovery = AuthorityURLs.discovery(
            askedAt: "login.windows.net", authorityOrigin: "https://login.windows.net", tenant: "common")
        harness.transport.on(discovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(AuthorityURLs.commonConfiguration, json: try AuthorityFixtures.authority("openid_configuration_common.json"))
        let metadata = try await harness.resolve("https://login.windows.net/common")
        #expect(harness.transport.requestedURLs == [discovery, AuthorityURLs.commonConfiguration])
        #expect(metadata.authority.absoluteString == "https://login.windows.net/common")
        #expect(metadata.networkHost == "login.microsoftonline.com")
        #expect(metadata.cacheEnvironment == "login.windows.net")
    }

    // MARK: Untrusted hosts

    @Test("An untrusted host is validated at login.microsoftonline.com; invalid_instance is cached for an hour")
    func untrustedHostNegativeCache() async throws {
        let harness = ResolverHarness()
        let discovery = AuthorityURLs.discovery(authorityOrigin: "https://login.contoso.com", tenant: "common")
        harness.transport.on(discovery, json: try AuthorityFixtures.authority("instance_discovery_invalid_instance.json"), status: 400)

        let error = await expectMSALError(.internalErrorFailedAuthorityValidation, mentioning: ["invalid_instance", "AADSTS50049", "400"]) {
            _ = try await harness.resolve("https://login.contoso.com/common")
        }
        #expect(error?.oauthError == "invalid_instance")
        #expect(error?.stsErrorCodes == [50049])
        #expect(error?.httpStatusCode == 400)
        #expect(error?.correlationID == AuthorityURLs.correlationID)
        #expect(harness.transport.requestedURLs == [discovery])

        // Within the hour: answered from the negative cache.
        harness.clock.advance(by: 3599)
        let cached = await expectMSALError(.internalErrorFailedAuthorityValidation) {
            _ = try await harness.resolve("https://login.contoso.com/common")
        }
        #expect(cached?.oauthError == "invalid_instance")
        #expect(harness.transport.count(discovery) == 1)

        // After the hour: asked again.
        harness.clock.advance(by: 2)
        await expectMSALError(.internalErrorFailedAuthorityValidation) {
            _ = try await harness.resolve("https://login.contoso.com/common")
        }
        #expect(harness.transport.count(discovery) == 2)
        #expect(harness.transport.totalCount == 2)
    }

    @Test("A discovery answer that does not list the host confines the authority to its own host")
    func discoveryWithoutTheHost() async throws {
        let harness = ResolverHarness()
        let discovery = AuthorityURLs.discovery(authorityOrigin: "https://login.contoso.com", tenant: "contoso.com")
        harness.transport.on(discovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        let configuration = "https://login.contoso.com/contoso.com/v2.0/.well-known/openid-configuration"
        harness.transport.on(configuration, json: try Self.document(host: "login.contoso.com", tenant: "contoso.com"))
        let metadata = try await harness.resolve("https://login.contoso.com/contoso.com")
        #expect(harness.transport.requestedURLs == [discovery, configuration])
        #expect(metadata.networkHost == "login.contoso.com")
        #expect(metadata.cacheEnvironment == "login.contoso.com")
        #expect(metadata.aliases == ["login.contoso.com"])
        #expect(metadata.isValidated)
    }

    // MARK: Loopback authorities

    @Test("An opted-in http loopback authority is validated by its own host over http, with a port-qualified alias group")
    func loopbackAuthorityAsksItself() async throws {
        let harness = ResolverHarness()
        let origin = "http://127.0.0.1:8400"
        let tenant = "0b7e7b3c-6f3a-4c47-9a53-2f6a3d0c5e11"
        let discovery =
            "\(origin)/common/discovery/instance?api-version=1.1&authorization_endpoint=\(origin)/\(tenant)/oauth2/v2.0/authorize"
        harness.transport.on(
            discovery,
            json: try AuthorityFixtures.json([
                "tenant_discovery_endpoint": "\(origin)/\(tenant)/v2.0/.well-known/openid-configuration",
                "api-version": "1.1",
                "metadata": [["preferred_network": "127.0.0.1:8400", "preferred_cache": "127.0.0.1:8400", "aliases": ["127.0.0.1:8400"]]],
            ]))
        let configuration = "\(origin)/\(tenant)/v2.0/.well-known/openid-configuration"
        harness.transport.on(
            configuration,
            json: try AuthorityFixtures.json([
                "issuer": "\(origin)/\(tenant)/v2.0",
                "authorization_endpoint": "\(origin)/\(tenant)/oauth2/v2.0/authorize",
                "token_endpoint": "\(origin)/\(tenant)/oauth2/v2.0/token",
                "jwks_uri": "\(origin)/\(tenant)/discovery/v2.0/keys",
            ]))
        let metadata = try await harness.resolve("\(origin)/\(tenant)", options: .allowInsecureLoopback)
        #expect(harness.transport.requestedURLs == [discovery, configuration])
        #expect(metadata.isValidated)
        #expect(metadata.aliases == ["127.0.0.1:8400"])
        #expect(metadata.networkHost == "127.0.0.1:8400")
        #expect(metadata.cacheEnvironment == "127.0.0.1:8400")
        #expect(metadata.tokenEndpoint.absoluteString == "\(origin)/\(tenant)/oauth2/v2.0/token")
    }

    @Test("The loopback discovery URL keeps the authority's scheme; other hosts still ask login.microsoftonline.com over https")
    func discoveryURLs() throws {
        let loopback = try MSALAuthority(url: url("http://localhost:9000/common"), options: .allowInsecureLoopback).components
        #expect(
            AuthorityResolver.instanceDiscoveryURL(loopback).url
                == "http://localhost:9000/common/discovery/instance?api-version=1.1&authorization_endpoint=http://localhost:9000/common/oauth2/v2.0/authorize"
        )
        let untrusted = try MSALAuthority(url: url("https://login.contoso.com:8443/contoso.com")).components
        #expect(
            AuthorityResolver.instanceDiscoveryURL(untrusted).url
                == "https://login.microsoftonline.com/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.contoso.com:8443/contoso.com/oauth2/v2.0/authorize"
        )
    }

    @Test("Discovery aliases may carry a port; a malformed port is still rejected")
    func aliasPorts() throws {
        func parse(_ alias: String) throws -> InstanceDiscoveryResponse {
            try InstanceDiscoveryResponse.parse(
                AuthorityFixtures.json(["metadata": [["preferred_network": alias, "preferred_cache": alias, "aliases": [alias]]]]),
                correlationID: nil)
        }
        #expect(try parse("127.0.0.1:8400").group(containing: "127.0.0.1:8400")?.preferredCache == "127.0.0.1:8400")
        for bad in ["127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:80a", ":80", "host:1:2"] {
            #expect(throws: MSALFailure.self, "\(bad)") { _ = try parse(bad) }
        }
    }

    // MARK: Known authorities and validation off

    @Test("A known authority skips instance discovery")
    func knownAuthority() async throws {
        let known = try MSALAuthority(url: url("https://login.contoso.com/contoso.com"))
        let harness = ResolverHarness(policy: AuthorityValidationPolicy(validatesAuthority: true, knownAuthorities: [known]))
        let configuration = "https://login.contoso.com/contoso.com/v2.0/.well-known/openid-configuration"
        harness.transport.on(configuration, json: try Self.document(host: "login.contoso.com", tenant: "contoso.com"))
        let metadata = try await harness.resolve(known)
        #expect(harness.transport.requestedURLs == [configuration])
        #expect(!metadata.isValidated)
        #expect(metadata.networkHost == "login.contoso.com")
    }

    @Test("Validation off skips instance discovery and keeps the built-in aliases")
    func validationOff() async throws {
        let harness = ResolverHarness(policy: AuthorityValidationPolicy(validatesAuthority: false))
        harness.transport.on(AuthorityURLs.commonConfiguration, json: try AuthorityFixtures.authority("openid_configuration_common.json"))
        let metadata = try await harness.resolve("https://login.microsoftonline.com/common")
        #expect(harness.transport.requestedURLs == [AuthorityURLs.commonConfiguration])
        #expect(!metadata.isValidated)
        #expect(metadata.cacheEnvironment == "login.windows.net")
        #expect(metadata.aliases.contains("sts.windows.net"))

        let untrusted = "https://login.contoso.com/contoso.com/v2.0/.well-known/openid-configuration"
        harness.transport.on(untrusted, json: try Self.document(host: "login.contoso.com", tenant: "contoso.com"))
        let own = try await harness.resolve("https://login.contoso.com/contoso.com")
        #expect(harness.transport.requestedURLs == [AuthorityURLs.commonConfiguration, untrusted])
        #expect(own.aliases == ["login.contoso.com"])
    }

    @Test("B2C, CIAM and ADFS never use instance discovery")
    func nonAADKindsSkipDiscovery() async throws {
        let harness = ResolverHarness()
        let b2c = "https://msidlabb2c.b2clogin.com/msidlabb2c.onmicrosoft.com/b2c_1_sisopolicy/v2.0/.well-known/openid-configuration"
        harness.transport.on(b2c, json: try AuthorityFixtures.authority("openid_configuration_b2clogin.json"))
        let b2cMetadata = try await harness.resolve("https://msidlabb2c.b2clogin.com/msidlabb2c.onmicrosoft.com/b2c_1_sisopolicy")
        #expect(b2cMetadata.kind == .b2c)
        #expect(b2cMetadata.issuer == "https://msidlabb2c.b2clogin.com/c8f83f7c-a28f-4e0d-a956-6e0d2df3826b/")
        #expect(
            b2cMetadata.tokenEndpoint.absoluteString
                == "https://msidlabb2c.b2clogin.com/msidlabb2c.onmicrosoft.com/b2c_1_sisopolicy/oauth2/token")

        let adfs = "https://fs.contoso.com/adfs/.well-known/openid-configuration"
        harness.transport.on(adfs, json: try AuthorityFixtures.authority("openid_configuration_adfs.json"))
        let adfsMetadata = try await harness.resolve("https://fs.contoso.com/adfs")
        #expect(adfsMetadata.kind == .adfs)
        #expect(adfsMetadata.issuer == "https://fs.contoso.com/adfs")
        #expect(adfsMetadata.tokenEndpoint.absoluteString == "https://fs.contoso.com/adfs/oauth2/token/")
        #expect(adfsMetadata.deviceCodeEndpoint == nil)
        #expect(adfsMetadata.cacheEnvironment == "fs.contoso.com")

        let ciam = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration"
        let tenantID = "aaaabbbb-0000-cccc-1111-dddd2222eeee"
        harness.transport.on(
            ciam,
            json: try AuthorityFixtures.json([
                "issuer": "https://\(tenantID).ciamlogin.com/\(tenantID)/v2.0",
                "authorization_endpoint": "https://contoso.ciamlogin.com/\(tenantID)/oauth2/v2.0/authorize",
                "token_endpoint": "https://contoso.ciamlogin.com/\(tenantID)/oauth2/v2.0/token",
                "jwks_uri": "https://contoso.ciamlogin.com/\(tenantID)/discovery/v2.0/keys",
            ]))
        let ciamMetadata = try await harness.resolve("https://contoso.ciamlogin.com")
        #expect(ciamMetadata.kind == .ciam)
        #expect(ciamMetadata.tenant == "contoso.onmicrosoft.com")

        #expect(harness.transport.requestedURLs == [b2c, adfs, ciam])
    }

    // MARK: Warm resolution

    @Test("Warm resolution makes no request; after 24 hours the metadata is fetched again")
    func warmResolution() async throws {
        let harness = try commonHarness()
        let authority = try MSALAuthority(url: url("https://login.microsoftonline.com/common"))
        #expect(harness.resolver.cachedMetadata(for: authority) == nil)
        let first = try await harness.resolve(authority)
        #expect(harness.transport.totalCount == 2)

        let second = try await harness.resolve(authority)
        #expect(second == first)
        #expect(harness.resolver.cachedMetadata(for: authority) == first)
        // Another spelling of the same authority hits the same entry.
        let spelled = try await harness.resolve("https://LOGIN.microsoftonline.com:443/Common/")
        #expect(spelled == first)
        #expect(harness.transport.totalCount == 2)

        harness.clock.advance(by: 24 * 3600 - 1)
        #expect(harness.resolver.cachedMetadata(for: authority) == first)
        _ = try await harness.resolve(authority)
        #expect(harness.transport.totalCount == 2)

        harness.clock.advance(by: 2)
        #expect(harness.resolver.cachedMetadata(for: authority) == nil)
        let refreshed = try await harness.resolve(authority)
        #expect(refreshed == first)
        #expect(harness.transport.count(AuthorityURLs.commonDiscovery) == 2)
        #expect(harness.transport.count(AuthorityURLs.commonConfiguration) == 2)
    }

    @Test("Failures are not cached as metadata: the next call asks again")
    func failuresAreNotCached() async throws {
        let harness = ResolverHarness()
        harness.transport.on(AuthorityURLs.commonDiscovery, json: try AuthorityFixtures.authority("instance_discovery_common.json"))
        harness.transport.on(
            AuthorityURLs.commonConfiguration,
            .response(MSALHTTPResponse(statusCode: 200, text: "<html>maintenance</html>")),
            .response(MSALHTTPResponse(statusCode: 200, body: try AuthorityFixtures.authority("openid_configuration_common.json"))))
        await expectMSALError(.invalidAuthorityMetadata, mentioning: ["OpenID configuration", "not JSON"]) {
            _ = try await harness.resolve("https://login.microsoftonline.com/common")
        }
        let metadata = try await harness.resolve("https://login.microsoftonline.com/common")
        #expect(metadata.tenant == "common")
        // The instance-discovery answer was cached; only the configuration was asked twice.
        #expect(harness.transport.count(AuthorityURLs.commonDiscovery) == 1)
        #expect(harness.transport.count(AuthorityURLs.commonConfiguration) == 2)
    }

    @Test("Different validation policies do not share metadata entries")
    func policiesKeyTheCache() async throws {
        let harness = try commonHarness()
        let authority = try MSALAuthority(url: url("https://login.microsoftonline.com/common"))
        _ = try await harness.resolve(authority)
        let unvalidated = AuthorityResolver(
            pipeline: harness.resolver.pipeline, store: harness.store, policy: AuthorityValidationPolicy(validatesAuthority: false))
        #expect(unvalidated.cachedMetadata(for: authority) == nil)
        let metadata = try await unvalidated.resolve(authority, correlationID: UUID())
        #expect(!metadata.isValidated)
        #expect(harness.transport.count(AuthorityURLs.commonDiscovery) == 1)
        #expect(harness.transport.count(AuthorityURLs.commonConfiguration) == 2)
    }

    // MARK: Loopback

    @Test("An http loopback authority resolves with http endpoints on the same host and port")
    func loopbackAuthority() async throws {
        let harness = ResolverHarness(policy: AuthorityValidationPolicy(validatesAuthority: false))
        let origin = "http://127.0.0.1:54321"
        let configuration = "\(origin)/tenant/v2.0/.well-known/openid-configuration"
        harness.transport.on(configuration, json: try Self.document(origin: origin, tenant: "tenant"))
        let metadata = try await harness.resolve("\(origin)/tenant", options: .allowInsecureLoopback)
        #expect(harness.transport.requestedURLs == [configuration])
        #expect(metadata.tokenEndpoint.absoluteString == "\(origin)/tenant/oauth2/v2.0/token")
        #expect(metadata.authorizationEndpoint.absoluteString == "\(origin)/tenant/oauth2/v2.0/authorize")
        #expect(metadata.jwksURI.absoluteString == "\(origin)/tenant/discovery/v2.0/keys")
        #expect(metadata.deviceCodeEndpoint?.absoluteString == "\(origin)/tenant/oauth2/v2.0/devicecode")
        #expect(metadata.networkHost == "127.0.0.1:54321")
        #expect(metadata.issuer == "\(origin)/tenant/v2.0")
    }

    @Test("An http loopback authority on [::1] resolves too")
    func loopbackIPv6Authority() async throws {
        let harness = ResolverHarness(policy: AuthorityValidationPolicy(validatesAuthority: false))
        let origin = "http://[::1]:54321"
        let configuration = "\(origin)/tenant/v2.0/.well-known/openid-configuration"
        harness.transport.on(configuration, json: try Self.document(origin: origin, tenant: "tenant"))
        let metadata = try await harness.resolve("\(origin)/tenant", options: .allowInsecureLoopback)
        #expect(metadata.tokenEndpoint.absoluteString == "\(origin)/tenant/oauth2/v2.0/token")
    }

    @Test("A loopback authority's http endpoints on another host or port are rejected")
    func loopbackForeignHTTPEndpoints() async throws {
        let origin = "http://127.0.0.1:54321"
        let configuration = "\(origin)/tenant/v2.0/.well-known/openid-configuration"
        for (member, endpoint, fragment) in [
            ("token_endpoint", "http://evil.com/tenant/oauth2/v2.0/token", "not https"),
            ("token_endpoint", "http://127.0.0.1:9999/tenant/oauth2/v2.0/token", "does not own"),
            ("jwks_uri", "http://localhost:54321/tenant/discovery/v2.0/keys", "does not own"),
            ("authorization_endpoint", "http://192.168.1.1:54321/authorize", "not https"),
        ] {
            let harness = ResolverHarness(policy: AuthorityValidationPolicy(validatesAuthority: false))
            harness.transport.on(configuration, json: try Self.document(origin: origin, tenant: "tenant", [member: endpoint]))
            await expectMSALError(.insecureEndpoint, mentioning: [member, fragment]) {
                _ = try await harness.resolve("\(origin)/tenant", options: .allowInsecureLoopback)
            }
        }
    }

    @Test("An https authority may not use http endpoints, even on loopback")
    func httpsAuthorityHTTPEndpoint() async throws {
        let harness = ResolverHarness(policy: AuthorityValidationPolicy(validatesAuthority: false))
        let origin = "https://localhost:8443"
        let configuration = "\(origin)/tenant/v2.0/.well-known/openid-configuration"
        harness.transport.on(
            configuration,
            json: try Self.document(origin: origin, tenant: "tenant", ["token_endpoint": "http://localhost:8443/tenant/oauth2/v2.0/token"]))
        await expectMSALError(.insecureEndpoint, mentioning: ["token_endpoint", "not https"]) {
            _ = try await harness.resolve("\(origin)/tenant")
        }
    }

    @Test("An https loopback authority keeps https even with .allowInsecureLoopback")
    func httpsLoopbackWithOptIn() async throws {
        let origin = "https://localhost:8443"
        let configuration = "\(origin)/tenant/v2.0/.well-known/openid-configuration"
        for (member, value, code) in [
            ("token_endpoint", "http://localhost:8443/tenant/oauth2/v2.0/token", MSALInternalError.insecureEndpoint),
            ("issuer", "http://localhost:8443/tenant/v2.0", .authorityIssuerMismatch),
        ] {
            let harness = ResolverHarness(policy: AuthorityValidationPolicy(validatesAuthority: false))
            harness.transport.on(configuration, json: try Self.document(origin: origin, tenant: "tenant", [member: value]))
            await expectMSALError(code, mentioning: ["https"]) {
                _ = try await harness.resolve("\(origin)/tenant", options: .allowInsecureLoopback)
            }
        }
    }

    // MARK: Documents

    /// A tenant document on `host` (https), with member overrides.
    static func document(host: String, tenant: String, _ changes: [String: Any?] = [:]) throws -> [UInt8] {
        try document(origin: "https://\(host)", tenant: tenant, changes)
    }

    /// A tenant document whose issuer and endpoints are under `origin/tenant`, with member overrides.
    static func document(origin: String, tenant: String, _ changes: [String: Any?] = [:]) throws -> [UInt8] {
        var object: [String: Any] = [
            "issuer": "\(origin)/\(tenant)/v2.0",
            "authorization_endpoint": "\(origin)/\(tenant)/oauth2/v2.0/authorize",
            "token_endpoint": "\(origin)/\(tenant)/oauth2/v2.0/token",
            "jwks_uri": "\(origin)/\(tenant)/discovery/v2.0/keys",
            "end_session_endpoint": "\(origin)/\(tenant)/oauth2/v2.0/logout",
        ]
        for (name, value) in changes {
            if let value { object[name] = value } else { object.removeValue(forKey: name) }
        }
        return try AuthorityFixtures.json(object)
    }
}
