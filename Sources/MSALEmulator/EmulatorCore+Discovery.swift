import MSALJSON

extension EmulatorCore {
    /// `GET /common/discovery/instance?api-version=1.1&authorization_endpoint=…`: vouches for
    /// authorize endpoints (v2.0 or v1) on the emulator's own host and port; any other host is
    /// `invalid_instance`.
    func instanceDiscovery(_ request: EmulatorHTTPRequest, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse {
        if let fault = await faultAnswer(&info) { return errorResponse(fault, info: info) }
        guard let query = request.query else { return errorResponse(.malformed, info: info) }
        if let duplicated = query.duplicatedName { return errorResponse(.duplicated(duplicated), info: info) }
        guard let endpoint = query.nonEmpty("authorization_endpoint") else {
            return errorResponse(.missing("authorization_endpoint"), info: info)
        }
        let prefix = origin + "/"
        // The v2.0 endpoint, or the v1 one MSAL for Python names when it asks for a host's aliases
        // (`get_accounts` on a cache without an account there), as Microsoft Entra ID takes both.
        guard endpoint.lowercased().hasPrefix(prefix),
            let suffix = ["/oauth2/v2.0/authorize", "/oauth2/authorize"].first(where: { endpoint.hasSuffix($0) })
        else {
            return errorResponse(
                EmulatorOAuthError(
                    "invalid_instance", 50049,
                    "Unknown or invalid instance. The emulator vouches only for authorities at \(origin)."),
                info: info)
        }
        let tenant = endpoint.dropFirst(prefix.count).dropLast(suffix.count)
        guard !tenant.isEmpty, !tenant.contains("/"), tenant.utf8.allSatisfy({ EmulatorText.isUnreserved($0) }) else {
            return errorResponse(
                EmulatorOAuthError("invalid_instance", 50049, "Unknown or invalid instance: the authorization endpoint has no tenant."),
                info: info)
        }
        let host = hostAndPort
        let body = JSON.object([
            "tenant_discovery_endpoint": .string("\(origin)/\(tenant)/v2.0/.well-known/openid-configuration"),
            "api-version": .string("1.1"),
            "metadata": .array([
                .object([
                    "preferred_network": .string(host), "preferred_cache": .string(host), "aliases": .array([.string(host)]),
                ])
            ]),
        ])
        return .json(body, headers: [("Cache-Control", "max-age=86400, private")])
    }

    /// `GET /{tenant}/v2.0/.well-known/openid-configuration`.
    func openIDConfiguration(_ selector: TenantSelector?, segment: Substring, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse
    {
        if let fault = await faultAnswer(&info) { return errorResponse(fault, info: info) }
        guard let selector else { return errorResponse(.unknownTenant(String(segment)), info: info) }
        let base = "\(origin)/\(selector.pathSegment)"
        let issuer: String
        switch selector {
        case .tenant(let tenant): issuer = self.issuer(tenantID: tenant.id)
        case .common, .organizations: issuer = "\(origin)/{tenantid}/v2.0"
        }
        func strings(_ values: [String]) -> JSON { .array(values.map { .string($0) }) }
        let document = JSON.object([
            "token_endpoint": .string("\(base)/oauth2/v2.0/token"),
            "token_endpoint_auth_methods_supported": strings(["none", "client_secret_post", "private_key_jwt"]),
            "token_endpoint_auth_signing_alg_values_supported": strings(["RS256", "PS256"]),
            "jwks_uri": .string("\(base)/discovery/v2.0/keys"),
            "response_modes_supported": strings(["query"]),
            "subject_types_supported": strings(["pairwise"]),
            "id_token_signing_alg_values_supported": strings(["RS256"]),
            "response_types_supported": strings(["code"]),
            "scopes_supported": strings(["openid", "profile", "email", "offline_access"]),
            "issuer": .string(issuer),
            "request_uri_parameter_supported": .bool(false),
            "authorization_endpoint": .string("\(base)/oauth2/v2.0/authorize"),
            "device_authorization_endpoint": .string("\(base)/oauth2/v2.0/devicecode"),
            "http_logout_supported": .bool(true),
            "frontchannel_logout_supported": .bool(true),
            "end_session_endpoint": .string("\(base)/oauth2/v2.0/logout"),
            "code_challenge_methods_supported": strings(["S256"]),
            "grant_types_supported": strings(MSALEmulator.GrantType.allCases.map(\.rawValue)),
            "claims_supported": strings([
                "sub", "iss", "aud", "exp", "iat", "nbf", "nonce", "preferred_username", "name", "oid", "tid", "ver",
            ]),
            "tenant_region_scope": .null,
            "cloud_instance_name": .string("msal-emulator"),
        ])
        return .json(document, headers: [("Cache-Control", "max-age=86400, private")])
    }

    /// `GET /{tenant}/discovery/v2.0/keys`: the one RSA signing key.
    func keys(_ selector: TenantSelector?, segment: Substring, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse {
        if let fault = await faultAnswer(&info) { return errorResponse(fault, info: info) }
        guard selector != nil else { return errorResponse(.unknownTenant(String(segment)), info: info) }
        return .json(keySetDocument, headers: [("Cache-Control", "max-age=86400, private")])
    }
}
