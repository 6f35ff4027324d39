import Foundation
import MSALJOSE
import MSALJSON

extension EmulatorCore {
    /// `grant_type=client_credentials`: an app token for a confidential client, in a named tenant,
    /// for one resource's `/.default` scope. The answer has no refresh token, ID token or
    /// `client_info`, and no `scope`, as Microsoft Entra ID answers.
    /// With a DPoP proof (`dpop`), the token is bound to its key (`cnf.jkt`, `token_type` `DPoP`).
    /// With `fmi_path` (federated managed identity), the token carries the path as its `fmi_path` claim.
    func redeemClientCredentials(
        _ form: EmulatorParameters, client: MSALEmulator.Client, selector: TenantSelector, proof: ClientProof,
        dpop: DPoPProofVerifier.Proof? = nil, now: Date
    ) throws(EmulatorOAuthError) -> EmulatorHTTPResponse {
        guard proof != .none else {
            throw Self.invalidClient(
                7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
        }
        guard case .tenant(let tenant) = selector else {
            throw EmulatorOAuthError(
                "invalid_request", 9001023,
                "The grant type is not supported over the /\(selector.pathSegment) endpoint. Please use a tenant-specific endpoint.")
        }
        guard let scopeText = form.nonEmpty("scope") else { throw .missing("scope") }
        let resource = try Self.defaultScopeResource(scopeText)
        // Mutual TLS binds the token to the certificate (RFC 8705 §3); `token_type=mtls_pop` asks
        // for Entra's mTLS proof of possession, which needs one.
        var certificate: String?
        if case .tlsCertificate(let x5tS256) = proof { certificate = x5tS256 }
        let tokenType = form.nonEmpty("token_type")?.lowercased()
        let mtlsPop = tokenType == "mtls_pop"
        if let tokenType, tokenType != "bearer", !mtlsPop {
            throw EmulatorOAuthError(
                "invalid_request", 900144,
                "The token_type '\(EmulatorText.sanitized(tokenType, limit: 32))' is not supported for app tokens.")
        }
        if mtlsPop, certificate == nil {
            throw Self.invalidClient(
                700027, "token_type=mtls_pop needs the client to authenticate with its certificate in TLS, not a secret or an assertion.")
        }
        if mtlsPop, dpop != nil {
            throw EmulatorOAuthError("invalid_request", 900144, "A request cannot ask for an mtls_pop token and carry a DPoP proof.")
        }
        // A federated managed identity path (`fmi_path`): the token is for that path of the
        // client (an agent identity's credential), and says so in its `fmi_path` claim.
        let fmiPath = form["fmi_path"]
        if let fmiPath {
            guard !fmiPath.isEmpty, fmiPath.utf8.count <= 256,
                !fmiPath.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
            else {
                throw EmulatorOAuthError(
                    "invalid_request", 900144, "The fmi_path '\(EmulatorText.sanitized(fmiPath, limit: 64))' is not a valid path.")
            }
        }
        let lifetimes = state.withLock { $0.lifetimes }
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let expiry = issued + Int64(lifetimes.accessToken)
        let objectID = Self.servicePrincipalObjectID(clientID: client.clientID, tenantID: tenant.id)
        let tokenID = String(Self.randomToken().prefix(22))
        var claims: [JSONMember] = [
            JSONMember(name: "aud", value: .string(resource)),
            JSONMember(name: "iss", value: .string(issuer(tenantID: tenant.id))),
            JSONMember(name: "iat", value: .integer(issued)),
            JSONMember(name: "nbf", value: .integer(issued)),
            JSONMember(name: "exp", value: .integer(expiry)),
            JSONMember(name: "azp", value: .string(client.clientID)),
            // 1: authenticated with a secret; 2: with a certificate (Entra's azpacr values).
            JSONMember(name: "azpacr", value: .string(proof == .secret ? "1" : "2")),
            JSONMember(name: "idtyp", value: .string("app")),
            JSONMember(name: "oid", value: .string(objectID)),
        ]
        let roles = client.appRoles.first { $0.key.lowercased() == resource.lowercased() }?.value ?? []
        if !roles.isEmpty {
            claims.append(JSONMember(name: "roles", value: .array(roles.map { .string($0) })))
        }
        if let fmiPath { claims.append(JSONMember(name: "fmi_path", value: .string(fmiPath))) }
        claims += [
            JSONMember(name: "sub", value: .string(objectID)),
            JSONMember(name: "tid", value: .string(tenant.id)),
            JSONMember(name: "uti", value: .string(tokenID)),
            JSONMember(name: "ver", value: .string("2.0")),
        ]
        if let dpop { claims.append(JSONMember(name: "cnf", value: .object([JSONMember(name: "jkt", value: .string(dpop.thumbprint))]))) }
        if let certificate, dpop == nil {
            claims.append(JSONMember(name: "cnf", value: .object([JSONMember(name: "x5t#S256", value: .string(certificate))])))
        }
        let accessToken: String
        do {
            accessToken = try signingKey.sign(claims: .object(claims))
        } catch {
            throw EmulatorOAuthError(status: 500, "server_error", 90033, "The emulator could not sign the access token: \(error).")
        }
        var members: [JSONMember] = [
            JSONMember(name: "token_type", value: .string(mtlsPop ? "mtls_pop" : dpop == nil ? "Bearer" : "DPoP")),
            JSONMember(name: "expires_in", value: .integer(lifetimes.accessToken)),
            JSONMember(name: "ext_expires_in", value: .integer(max(lifetimes.accessToken, lifetimes.extendedAccessToken))),
        ]
        if let refreshIn = lifetimes.appTokenRefreshIn {
            members.append(JSONMember(name: "refresh_in", value: .integer(refreshIn)))
        }
        members.append(JSONMember(name: "access_token", value: .string(accessToken)))
        return .json(.object(members))
    }

    /// The resource of a client-credentials `scope`: exactly one `<resource>/.default`.
    static func defaultScopeResource(_ text: String) throws(EmulatorOAuthError) -> String {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        let suffix = "/.default"
        guard parts.count == 1, let only = parts.first, only.utf8.count <= 512, only.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            only.lowercased().hasSuffix(suffix), only.count > suffix.count
        else {
            throw EmulatorOAuthError(
                "invalid_scope", 1002012,
                "The provided value for scope \(EmulatorText.sanitized(text, limit: 256)) is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI)."
            )
        }
        return String(only.dropLast(suffix.count))
    }

    /// The object id of a client's service principal in a tenant: a version-4-shaped GUID derived
    /// from both ids, the same for every token.
    static func servicePrincipalObjectID(clientID: String, tenantID: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        if let digest = try? MessageDigest.sha256(Array("\(clientID)\u{0}\(tenantID)".utf8)) { bytes = Array(digest.prefix(16)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString.lowercased()
    }
}
