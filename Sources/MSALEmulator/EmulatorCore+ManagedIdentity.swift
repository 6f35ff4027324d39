import Foundation
import MSALJOSE
import MSALJSON
import MSALSupport

extension EmulatorCore {
    /// The identity parameters each managed-identity endpoint accepts, with what they name.
    private static func selectorNames(
        _ endpoint: MSALEmulator.Endpoint
    ) -> [(name: String, field: KeyPath<MSALEmulator.ManagedIdentity, String>)] {
        switch endpoint {
        case .appService: [("client_id", \.clientID), ("object_id", \.objectID), ("mi_res_id", \.resourceID)]
        case .azureArc: [("client_id", \.clientID), ("object_id", \.objectID), ("msi_res_id", \.resourceID), ("mi_res_id", \.resourceID)]
        default: [("client_id", \.clientID), ("object_id", \.objectID), ("msi_res_id", \.resourceID)]
        }
    }

    /// The API versions each managed-identity endpoint accepts.
    private static func apiVersions(_ endpoint: MSALEmulator.Endpoint) -> [String] {
        switch endpoint {
        case .appService: ["2019-08-01"]
        case .azureArc: ["2019-11-01", "2020-06-01"]
        default: ["2018-02-01"]
        }
    }

    /// `GET` of the IMDS, App Service and Azure Arc token endpoints: faults first, then the
    /// endpoint's own checks, then a token for the selected identity in the endpoint's shape.
    func managedIdentityToken(_ request: EmulatorHTTPRequest, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse {
        let endpoint = info.endpoint
        let query = request.query
        // The identity is looked up before faults apply, so that a fault can name its client id.
        let selection: Result<MSALEmulator.ManagedIdentity, ManagedIdentityFailure>? = query.map { managedIdentity($0, endpoint: endpoint) }
        if case .success(let identity) = selection { info.clientID = identity.clientID }
        if let fault = await faultAnswer(&info, clientID: info.clientID) {
            var failure = ManagedIdentityFailure(status: fault.status, fault.error, fault.description)
            failure.headers = fault.headers
            return managedIdentityError(failure, info: info)
        }
        do throws(ManagedIdentityFailure) {
            switch endpoint {
            case .appService:
                let presented = Array((request.header("x-identity-header") ?? "").utf8)
                let expected = Array(configuration.appServiceIdentityHeader.utf8)
                // Digests first, so that the comparison takes the same time whatever the lengths.
                guard request.header("x-identity-header") != nil,
                    MessageDigest.constantTimeEquals(
                        (try? MessageDigest.sha256(presented)) ?? [], (try? MessageDigest.sha256(expected)) ?? [0])
                else {
                    throw ManagedIdentityFailure(
                        status: 401, "unauthorized", "The X-IDENTITY-HEADER header is missing or does not match the identity header.")
                }
            case .imds, .azureArc:
                guard request.header("metadata")?.lowercased() == "true" else {
                    throw ManagedIdentityFailure("invalid_request", "Required metadata header not specified")
                }
            default:
                break
            }
            guard let query, let selection else { throw ManagedIdentityFailure("The query is not a valid query string.") }
            if let duplicated = query.duplicatedName {
                throw ManagedIdentityFailure(
                    "The query parameter \(EmulatorText.sanitized(duplicated, limit: 64)) is given more than once.")
            }
            let versions = Self.apiVersions(endpoint)
            guard let version = query["api-version"], versions.contains(version) else {
                throw ManagedIdentityFailure(
                    "The api-version query parameter is missing or not supported; this endpoint supports \(versions.joined(separator: ", "))."
                )
            }
            let identity = try selection.get()
            let resource = try Self.managedIdentityResource(query["resource"], endpoint: endpoint)
            if endpoint == .azureArc {
                if let challenge = try arcChallenge(request) { return managedIdentityError(challenge, info: info) }
            }
            return try managedIdentityAnswer(identity, resource: resource, endpoint: endpoint)
        } catch {
            return managedIdentityError(error, info: info)
        }
    }

    /// The identity a query selects: by one of the endpoint's identity parameters, else the
    /// system-assigned one. Azure Arc has only the system-assigned identity.
    private func managedIdentity(
        _ query: EmulatorParameters, endpoint: MSALEmulator.Endpoint
    ) -> Result<MSALEmulator.ManagedIdentity, ManagedIdentityFailure> {
        let given = Self.selectorNames(endpoint).compactMap { selector in query[selector.name].map { (selector, $0) } }
        if endpoint == .azureArc, !given.isEmpty {
            return .failure(ManagedIdentityFailure("User assigned identities are not supported"))
        }
        guard given.count <= 1 else {
            let names = Self.selectorNames(endpoint).map(\.name).joined(separator: ", ")
            return .failure(ManagedIdentityFailure("Only one of \(names) may name the identity."))
        }
        let identities = configuration.managedIdentities
        let found: MSALEmulator.ManagedIdentity?
        if let (selector, value) = given.first {
            let folded = value.lowercased()
            found = identities.first { $0[keyPath: selector.field].lowercased() == folded }
        } else {
            found = identities.first(where: \.isSystemAssigned)
        }
        guard let found else { return .failure(ManagedIdentityFailure("Identity not found")) }
        return .success(found)
    }

    /// The token's audience from the `resource` parameter: required, at most 512 bytes of visible
    /// ASCII, a trailing `/.default` removed.
    private static func managedIdentityResource(_ value: String?, endpoint: MSALEmulator.Endpoint) throws(ManagedIdentityFailure) -> String
    {
        guard let value, !value.isEmpty else {
            throw ManagedIdentityFailure(
                endpoint == .appService ? "The resource query parameter is required." : "Required audience parameter not specified")
        }
        var resource = Substring(value)
        let suffix = "/.default"
        if resource.lowercased().hasSuffix(suffix) { resource = resource.dropLast(suffix.count) }
        guard !resource.isEmpty, resource.utf8.count <= 512, resource.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ManagedIdentityFailure("invalid_resource", "The resource is not a valid resource identifier.")
        }
        return String(resource)
    }

    /// The signed token and the endpoint's 200 answer.
    private func managedIdentityAnswer(
        _ identity: MSALEmulator.ManagedIdentity, resource: String, endpoint: MSALEmulator.Endpoint
    ) throws(ManagedIdentityFailure) -> EmulatorHTTPResponse {
        let lifetime = state.withLock { $0.lifetimes.managedIdentityToken }
        let issued = Int64(now().timeIntervalSince1970.rounded(.down))
        let expiry = issued + Int64(lifetime)
        let claims = JSON.object([
            "aud": .string(resource),
            "iss": .string(issuer(tenantID: identity.tenantID)),
            "iat": .integer(issued),
            "nbf": .integer(issued),
            "exp": .integer(expiry),
            "appid": .string(identity.clientID),
            "azp": .string(identity.clientID),
            "idtyp": .string("app"),
            "oid": .string(identity.objectID),
            "sub": .string(identity.objectID),
            "tid": .string(identity.tenantID),
            "uti": .string(String(Self.randomToken().prefix(22))),
            "ver": .string("2.0"),
            "xms_mirid": .string(identity.resourceID),
        ])
        let accessToken: String
        do {
            accessToken = try signingKey.sign(claims: claims)
        } catch {
            throw ManagedIdentityFailure(status: 500, "server_error", "The emulator could not sign the access token.")
        }
        let body: JSON
        switch endpoint {
        case .appService:
            body = .object([
                "access_token": .string(accessToken), "expires_on": .string(String(expiry)), "resource": .string(resource),
                "token_type": .string("Bearer"), "client_id": .string(identity.clientID),
            ])
        case .azureArc:
            body = .object([
                "access_token": .string(accessToken), "expires_in": .string(String(lifetime)), "expires_on": .string(String(expiry)),
                "resource": .string(resource), "token_type": .string("Bearer"),
            ])
        default:
            body = .object([
                "access_token": .string(accessToken), "client_id": .string(identity.clientID), "expires_in": .string(String(lifetime)),
                "expires_on": .string(String(expiry)), "ext_expires_in": .string(String(lifetime)), "not_before": .string(String(issued)),
                "resource": .string(resource), "token_type": .string("Bearer"),
            ])
        }
        return .json(body)
    }

    /// A refusal in the endpoint's shape: `{"statusCode", "message", "correlationId"}` for App
    /// Service, `{"error", "error_description"}` for IMDS and Azure Arc.
    func managedIdentityError(_ failure: ManagedIdentityFailure, info: EmulatorRequestInfo) -> EmulatorHTTPResponse {
        let body: JSON
        if info.endpoint == .appService {
            body = .object([
                "statusCode": .integer(failure.status), "message": .string(failure.message), "correlationId": .string(info.correlationID),
            ])
        } else {
            body = .object(["error": .string(failure.error), "error_description": .string(failure.message)])
        }
        var response = EmulatorHTTPResponse.json(body, status: failure.status, headers: failure.headers)
        response.oauthError = failure.error
        return response
    }

    // MARK: Azure Arc

    /// The Arc challenge: `nil` when the request's `Authorization: Basic <secret>` carries an
    /// unanswered secret of this emulator (which it consumes), else a 401 with a new challenge.
    private func arcChallenge(_ request: EmulatorHTTPRequest) throws(ManagedIdentityFailure) -> ManagedIdentityFailure? {
        guard let directory = configuration.arcTokenDirectory else {
            throw ManagedIdentityFailure(
                status: 500, "server_error", "The emulator has no Azure Arc token directory (Configuration.arcTokenDirectory).")
        }
        var description = "The request has no Authorization header; read the key file the WWW-Authenticate header names."
        if let header = request.header("authorization") {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "basic" {
                let presented = (try? MessageDigest.sha256(Array(parts[1].trimmingCharacters(in: .whitespaces).utf8))) ?? []
                let redeemed = state.withLock { state -> String? in
                    var match: Int?
                    for (index, challenge) in state.arcChallenges.enumerated()
                    where MessageDigest.constantTimeEquals(presented, challenge.digest) {
                        match = index
                    }
                    return match.map { state.arcChallenges.remove(at: $0).path }
                }
                if let redeemed {
                    unlink(redeemed)
                    return nil
                }
            }
            description = "The Authorization header does not carry a secret this emulator issued, or it was used already."
        }
        let path = try writeArcChallenge(directory: directory)
        var failure = ManagedIdentityFailure(status: 401, "unauthorized_client", description)
        failure.headers.append(("WWW-Authenticate", "Basic realm=\(path)"))
        return failure
    }

    /// Writes a new secret (64 hexadecimal digits) to `<directory>/<32 hex digits>.key` (mode 0600),
    /// remembers it and returns the file's path.
    private func writeArcChallenge(directory: String) throws(ManagedIdentityFailure) -> String {
        let failed = ManagedIdentityFailure(status: 500, "server_error", "The emulator could not write the challenge's key file.")
        guard let secretBytes = try? SecureRandom.bytes(count: 32), let nameBytes = try? SecureRandom.bytes(count: 16) else { throw failed }
        let secret = Array(Hex.lowercase(secretBytes).utf8)
        let trimmed = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let path = (trimmed == "/" ? "" : trimmed) + "/" + Hex.lowercase(nameBytes) + ".key"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failed }
        let written = secret.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let modeSet = fchmod(descriptor, 0o600) == 0
        close(descriptor)
        guard written == secret.count, modeSet, let digest = try? MessageDigest.sha256(secret) else {
            unlink(path)
            throw failed
        }
        let forgotten = state.withLock { state -> [String] in
            state.arcChallenges.append((digest, path))
            let excess = state.arcChallenges.count - EmulatorState.maximumArcChallenges
            guard excess > 0 else { return [] }
            defer { state.arcChallenges.removeFirst(excess) }
            return state.arcChallenges.prefix(excess).map(\.path)
        }
        for old in forgotten { unlink(old) }
        return path
    }
}
