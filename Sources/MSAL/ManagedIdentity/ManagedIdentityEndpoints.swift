import Foundation

/// The requests each managed-identity source takes, built without I/O from the environment
/// variables read when the application was created.
package struct ManagedIdentityEndpoints: Sendable {
    package var variables: [String: String]
    package var imdsBaseURL: URL?
    package var arcTokenDirectory: String

    package init(variables: [String: String], configuration: MSALManagedIdentityConfig) {
        self.variables = variables
        self.imdsBaseURL = configuration.imdsBaseURL
        self.arcTokenDirectory = configuration.arcTokenDirectory
    }

    /// The IMDS host when neither the configuration nor `AZURE_POD_IDENTITY_AUTHORITY_HOST` names another.
    package static let defaultIMDSHost = "http://169.254.169.254"
    /// The Arc agent's endpoint when `IDENTITY_ENDPOINT` is unset (the agent detected by its executable).
    package static let defaultArcEndpoint = "http://127.0.0.1:40342/metadata/identity/oauth2/token"

    private func value(_ name: String) -> String? {
        variables[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `text` as an http(s) URL with a host; `https` only when `secureOnly`.
    private static func endpoint(_ text: String, variable: String, secureOnly: Bool = false) throws(MSALFailure) -> URL {
        let scheme = URLComponents(string: text)?.scheme?.lowercased()
        guard let url = URL(string: text), let host = url.host, !host.isEmpty,
            scheme == "https" || (scheme == "http" && !secureOnly)
        else {
            throw MSALFailure(
                .internal, internalCode: .invalidManagedIdentityEndpoint,
                message: "\(variable) is not \(secureOnly ? "an https" : "an http or https") URL: "
                    + OAuthErrorResponse.sanitized(text, limit: 200))
        }
        return url
    }

    private static func notSupported(_ identity: MSALManagedIdentity, _ source: MSALManagedIdentitySource, _ why: String) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .managedIdentityNotSupported,
            message: "The \(identity) managed identity cannot be used with \(source): \(why)")
    }

    /// The query parameter naming a user-assigned identity, by the names most sources use.
    private static func selector(_ identity: MSALManagedIdentity, resourceIDName: String) -> [(String, String)] {
        switch identity {
        case .systemAssigned: []
        case .userAssigned(.clientID(let id)): [("client_id", id)]
        case .userAssigned(.objectID(let id)): [("object_id", id)]
        case .userAssigned(.resourceID(let id)): [(resourceIDName, id)]
        }
    }

    private static func get(_ url: URL, _ query: [(String, String)], headers: [(String, String)]) -> MSALHTTPRequest {
        var request = MSALHTTPRequest(method: .get, url: TokenRequests.appendingQuery(url, query), isIdempotent: true)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.sendsMicrosoftHeaders = false
        return request
    }

    /// The token request of `source` for `resource`.
    ///
    /// - Parameters:
    ///   - replacing: the SHA-256 (lower-case hex) of the cached token a claims challenge rejected (Service Fabric only).
    package func request(
        _ source: MSALManagedIdentitySource, identity: MSALManagedIdentity, resource: String, correlationID: UUID,
        capabilities: [String]?, claims: String?, replacing tokenHash: String?
    ) throws(MSALFailure) -> MSALHTTPRequest {
        switch source {
        case .imds:
            let base: URL
            if let imdsBaseURL {
                base = imdsBaseURL
            } else {
                base = try Self.endpoint(
                    value("AZURE_POD_IDENTITY_AUTHORITY_HOST") ?? Self.defaultIMDSHost, variable: "AZURE_POD_IDENTITY_AUTHORITY_HOST")
            }
            var text = base.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            let url = try Self.endpoint(text + "/metadata/identity/oauth2/token", variable: "AZURE_POD_IDENTITY_AUTHORITY_HOST")
            return Self.get(
                url, [("api-version", "2018-02-01"), ("resource", resource)] + Self.selector(identity, resourceIDName: "msi_res_id"),
                headers: [
                    ("Metadata", "true"), ("x-client-SKU", "MSAL.Swift.Linux"), ("x-client-Ver", MSALVersion),
                    ("x-ms-client-request-id", correlationID.uuidString.lowercased()),
                ])
        case .appService:
            let url = try Self.endpoint(value("IDENTITY_ENDPOINT") ?? "", variable: "IDENTITY_ENDPOINT")
            return Self.get(
                url, [("api-version", "2019-08-01"), ("resource", resource)] + Self.selector(identity, resourceIDName: "mi_res_id"),
                headers: [("X-IDENTITY-HEADER", value("IDENTITY_HEADER") ?? "")])
        case .serviceFabric:
            let url = try Self.endpoint(value("IDENTITY_ENDPOINT") ?? "", variable: "IDENTITY_ENDPOINT", secureOnly: true)
            var query = [("api-version", "2019-07-01-preview"), ("resource", resource)]
            switch identity {
            case .systemAssigned: break
            case .userAssigned(.objectID(let id)): query.append(("principalId", id))
            case .userAssigned:
                throw Self.notSupported(identity, source, "the cluster configures its identities; name one by object id")
            }
            if claims != nil, let tokenHash { query.append(("token_sha256_to_refresh", tokenHash)) }
            if let capabilities, !capabilities.isEmpty { query.append(("xms_cc", capabilities.joined(separator: ","))) }
            return Self.get(url, query, headers: [("secret", value("IDENTITY_HEADER") ?? "")])
        case .machineLearning:
            let url = try Self.endpoint(value("MSI_ENDPOINT") ?? "", variable: "MSI_ENDPOINT")
            let clientID: String
            switch identity {
            case .systemAssigned:
                guard let id = value("DEFAULT_IDENTITY_CLIENT_ID") else {
                    throw Self.notSupported(identity, source, "DEFAULT_IDENTITY_CLIENT_ID is not set")
                }
                clientID = id
            case .userAssigned(.clientID(let id)): clientID = id
            case .userAssigned: throw Self.notSupported(identity, source, "name the identity by client id")
            }
            return Self.get(
                url, [("api-version", "2017-09-01"), ("resource", resource), ("clientid", clientID)],
                headers: [("Metadata", "true"), ("secret", value("MSI_SECRET") ?? "")])
        case .cloudShell:
            guard identity == .systemAssigned else { throw Self.notSupported(identity, source, "only its own identity is available") }
            let url = try Self.endpoint(value("MSI_ENDPOINT") ?? "", variable: "MSI_ENDPOINT")
            var request = MSALHTTPRequest.form(url: url, parameters: [("resource", resource)])
            request.headers.add(name: "Metadata", value: "true")
            request.isIdempotent = true
            request.sendsMicrosoftHeaders = false
            return request
        case .azureArc:
            guard identity == .systemAssigned else {
                throw Self.notSupported(identity, source, "the agent serves its system-assigned identity only")
            }
            let url = try Self.endpoint(value("IDENTITY_ENDPOINT") ?? Self.defaultArcEndpoint, variable: "IDENTITY_ENDPOINT")
            return Self.get(url, [("api-version", "2020-06-01"), ("resource", resource)], headers: [("Metadata", "true")])
        }
    }
}
