import Foundation
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

/// The emulator's managed-identity token endpoints over raw HTTP on loopback: IMDS, App Service
/// (2019-08-01) and Azure Arc (with its key-file challenge), their wire shapes, refusals, request
/// log and faults.
@Suite("Emulator: managed-identity endpoints (IMDS, App Service, Azure Arc)")
struct ManagedIdentityEndpointTests {
    typealias Sample = MSALEmulator.Configuration
    static let resource = "https://management.azure.com/"
    static let imdsPath = "/metadata/identity/oauth2/token"
    static let appServicePath = "/msi/token"
    static let arcPath = "/arc/metadata/identity/oauth2/token"

    /// The sample's two identities: (client id, object id, resource id).
    static let system = (
        Sample.sampleSystemAssignedIdentityClientID, Sample.sampleSystemAssignedIdentityObjectID,
        Sample.sampleSystemAssignedIdentityResourceID
    )
    static let user = (
        Sample.sampleUserAssignedIdentityClientID, Sample.sampleUserAssignedIdentityObjectID, Sample.sampleUserAssignedIdentityResourceID
    )

    static func query(_ pairs: [(String, String)]) -> String {
        pairs.isEmpty ? "" : "?" + RawResponse.formEncoded(pairs)
    }

    static func imds(
        _ harness: EmulatorHarness, _ parameters: [(String, String)], resource: String? = resource, apiVersion: String? = "2018-02-01",
        headers: [(String, String)] = [("Metadata", "true")]
    ) async throws -> RawResponse {
        let pairs = (apiVersion.map { [("api-version", $0)] } ?? []) + (resource.map { [("resource", $0)] } ?? []) + parameters
        return try await harness.call("GET", imdsPath + query(pairs), headers: headers)
    }

    static func appService(
        _ harness: EmulatorHarness, _ parameters: [(String, String)], resource: String? = resource, apiVersion: String = "2019-08-01",
        headers: [(String, String)] = [("X-IDENTITY-HEADER", Sample.sampleAppServiceIdentityHeader)]
    ) async throws -> RawResponse {
        let pairs = [("api-version", apiVersion)] + (resource.map { [("resource", $0)] } ?? []) + parameters
        return try await harness.call("GET", appServicePath + query(pairs), headers: headers)
    }

    static func arc(
        _ harness: EmulatorHarness, _ parameters: [(String, String)] = [], resource: String? = resource,
        headers: [(String, String)] = [("Metadata", "true")]
    ) async throws -> RawResponse {
        let pairs = [("api-version", "2020-06-01")] + (resource.map { [("resource", $0)] } ?? []) + parameters
        return try await harness.call("GET", arcPath + query(pairs), headers: headers)
    }

    /// A member that must be a string of decimal digits (IMDS sends numbers as strings), as a number.
    static func epoch(_ response: RawResponse, _ name: String) -> Int64? {
        (response.json[name] as? String).flatMap { Int64($0) }
    }

    /// Checks the verified token of `response` for `identity` and `audience`; returns its `exp`.
    @discardableResult
    static func expectToken(
        _ response: RawResponse, _ harness: EmulatorHarness, identity: (String, String, String), audience: String = resource,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Double? {
        let token = try await ClientCredentialsGrantTests.verifiedToken(response, harness)
        #expect(token.stringListClaim("aud") == [audience], sourceLocation: sourceLocation)
        #expect(token.stringClaim("appid") == identity.0, sourceLocation: sourceLocation)
        #expect(token.stringClaim("azp") == identity.0, sourceLocation: sourceLocation)
        #expect(token.stringClaim("oid") == identity.1, sourceLocation: sourceLocation)
        #expect(token.stringClaim("sub") == identity.1, sourceLocation: sourceLocation)
        #expect(token.stringClaim("xms_mirid") == identity.2, sourceLocation: sourceLocation)
        #expect(token.stringClaim("idtyp") == "app", sourceLocation: sourceLocation)
        #expect(token.stringClaim("tid") == Sample.sampleContosoTenantID, sourceLocation: sourceLocation)
        #expect(
            token.stringClaim("iss") == "\(harness.emulator.baseURL.absoluteString)/\(Sample.sampleContosoTenantID)/v2.0",
            sourceLocation: sourceLocation)
        #expect(token.stringClaim("scp") == nil, sourceLocation: sourceLocation)
        return token.numberClaim("exp")
    }

    /// An IMDS/Arc error body: exactly `error` and `error_description`.
    static func expectError(
        _ response: RawResponse, status: Int = 400, error: String = "invalid_request", _ description: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(Set(response.json.keys) == ["error", "error_description"], "\(response.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(response.error == error, sourceLocation: sourceLocation)
        if let description {
            #expect(response.json["error_description"] as? String == description, sourceLocation: sourceLocation)
        }
    }

    /// An App Service error body: `statusCode`, `message`, `correlationId`.
    static func expectAppServiceError(_ response: RawResponse, status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, "\(response.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(response.json["statusCode"] as? Int == status, "\(response.text.prefix(300))", sourceLocation: sourceLocation)
        #expect((response.json["message"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(response.json["access_token"] == nil, sourceLocation: sourceLocation)
    }

    // MARK: IMDS

    @Test("IMDS: the system-assigned identity and the user-assigned one by client_id, object_id and msi_res_id, in IMDS's shape")
    func imdsTokens() async throws {
        try await EmulatorHarness.with { harness in
            let cases: [([(String, String)], (String, String, String))] = [
                ([], Self.system),
                ([("client_id", Self.user.0)], Self.user),
                ([("object_id", Self.user.1.uppercased())], Self.user),
                ([("msi_res_id", Self.user.2)], Self.user),
                ([("client_id", Self.system.0)], Self.system),
            ]
            for (parameters, identity) in cases {
                let before = Int64(harness.emulator.now.timeIntervalSince1970)
                let response = try await Self.imds(harness, parameters)
                let after = Int64(harness.emulator.now.timeIntervalSince1970.rounded(.up))
                #expect(response.status == 200, "\(parameters): \(response.text.prefix(300))")
                #expect(
                    Set(response.json.keys) == [
                        "access_token", "client_id", "expires_in", "expires_on", "ext_expires_in", "not_before", "resource", "token_type",
                    ])
                #expect(response.json["token_type"] as? String == "Bearer")
                #expect(response.json["client_id"] as? String == identity.0)
                #expect(response.json["resource"] as? String == Self.resource)
                #expect(response.json["expires_in"] as? String == "86400", "a string, as IMDS sends it")
                #expect(response.json["ext_expires_in"] as? String == "86400")
                let expiresOn = try #require(Self.epoch(response, "expires_on"))
                let notBefore = try #require(Self.epoch(response, "not_before"))
                // Issued while the request ran (however long a loaded machine took).
                #expect(notBefore >= before && notBefore <= after)
                #expect(expiresOn == notBefore + 86400)
                let expiry = try await Self.expectToken(response, harness, identity: identity)
                #expect(expiry == Double(expiresOn))
            }
            #expect(harness.emulator.requestCount(.imds) == cases.count)
            #expect(harness.emulator.requests.filter { $0.endpoint == .imds }.map(\.clientID) == cases.map { Optional($0.1.0) })
        }
    }

    @Test("IMDS: a /.default resource loses the suffix; the lifetime follows Lifetimes.managedIdentityToken")
    func imdsDefaultScopeAndLifetime() async throws {
        var configuration = EmulatorHarness.configuration
        configuration.lifetimes.managedIdentityToken = 600
        try await EmulatorHarness.with(configuration) { harness in
            let response = try await Self.imds(harness, [], resource: "https://vault.azure.net/.default")
            #expect(response.status == 200)
            #expect(response.json["resource"] as? String == "https://vault.azure.net")
            #expect(response.json["expires_in"] as? String == "600")
            try await Self.expectToken(response, harness, identity: Self.system, audience: "https://vault.azure.net")
        }
    }

    @Test("IMDS refuses: no or a false Metadata header, an unknown or ambiguous identity, no resource, a wrong api-version, POST")
    func imdsRefusals() async throws {
        try await EmulatorHarness.with { harness in
            Self.expectError(try await Self.imds(harness, [], headers: []), "Required metadata header not specified")
            Self.expectError(try await Self.imds(harness, [], headers: [("Metadata", "false")]), "Required metadata header not specified")
            Self.expectError(
                try await Self.imds(harness, [("client_id", "00000000-0000-4000-8000-000000000000")]), "Identity not found")
            Self.expectError(try await Self.imds(harness, [("object_id", Self.user.0)]), "Identity not found")
            Self.expectError(try await Self.imds(harness, [("msi_res_id", Self.user.2 + "-other")]), "Identity not found")
            Self.expectError(try await Self.imds(harness, [("client_id", Self.user.0), ("object_id", Self.user.1)]))
            Self.expectError(try await Self.imds(harness, [("client_id", "")]), "Identity not found")
            Self.expectError(try await Self.imds(harness, [], resource: nil), "Required audience parameter not specified")
            Self.expectError(try await Self.imds(harness, [], resource: "two words"), error: "invalid_resource")
            Self.expectError(try await Self.imds(harness, [], apiVersion: nil))
            Self.expectError(try await Self.imds(harness, [], apiVersion: "2019-08-01"))
            Self.expectError(try await Self.imds(harness, [("resource", "https://vault.azure.net")]))
            let post = try await harness.call(
                "POST", Self.imdsPath + Self.query([("api-version", "2018-02-01")]), headers: [("Metadata", "true")])
            #expect(post.status == 405)
            #expect(harness.emulator.requests.allSatisfy { $0.endpoint == .imds && $0.status != 200 })
        }
    }

    // MARK: App Service

    @Test(
        "App Service: the system-assigned identity and the user-assigned one by client_id, object_id and mi_res_id, in its 2019-08-01 shape"
    )
    func appServiceTokens() async throws {
        try await EmulatorHarness.with { harness in
            let cases: [([(String, String)], (String, String, String))] = [
                ([], Self.system),
                ([("client_id", Self.user.0)], Self.user),
                ([("object_id", Self.user.1)], Self.user),
                ([("mi_res_id", Self.user.2.lowercased())], Self.user),
            ]
            for (parameters, identity) in cases {
                let response = try await Self.appService(harness, parameters)
                #expect(response.status == 200, "\(parameters): \(response.text.prefix(300))")
                #expect(Set(response.json.keys) == ["access_token", "expires_on", "resource", "token_type", "client_id"])
                #expect(response.json["token_type"] as? String == "Bearer")
                #expect(response.json["client_id"] as? String == identity.0)
                #expect(response.json["resource"] as? String == Self.resource)
                let expiresOn = try #require(Self.epoch(response, "expires_on"), "epoch seconds as a string")
                let expiry = try await Self.expectToken(response, harness, identity: identity)
                #expect(expiry == Double(expiresOn))
            }
            #expect(harness.emulator.requestCount(.appService) == cases.count)
            #expect(harness.emulator.requestCount(.imds) == 0)
        }
    }

    @Test(
        "App Service refuses: a missing or wrong X-IDENTITY-HEADER (401), an unknown or ambiguous identity, no resource, a wrong api-version"
    )
    func appServiceRefusals() async throws {
        try await EmulatorHarness.with { harness in
            let header = Sample.sampleAppServiceIdentityHeader
            Self.expectAppServiceError(try await Self.appService(harness, [], headers: []), status: 401)
            for wrong in ["wrong", header + "x", String(header.dropLast()), header.uppercased(), ""] {
                Self.expectAppServiceError(try await Self.appService(harness, [], headers: [("X-IDENTITY-HEADER", wrong)]), status: 401)
            }
            Self.expectAppServiceError(
                try await Self.appService(harness, [("client_id", "00000000-0000-4000-8000-000000000000")]), status: 400)
            Self.expectAppServiceError(
                try await Self.appService(harness, [("client_id", Self.user.0), ("mi_res_id", Self.user.2)]), status: 400)
            Self.expectAppServiceError(try await Self.appService(harness, [], resource: nil), status: 400)
            Self.expectAppServiceError(try await Self.appService(harness, [], apiVersion: "2017-09-01"), status: 400)
            #expect(harness.emulator.requestCount(.appService) == 10)
            #expect(harness.emulator.requests.allSatisfy { $0.status != 200 })
        }
    }

    @Test("A custom App Service header is the one expected")
    func appServiceCustomHeader() async throws {
        var configuration = EmulatorHarness.configuration
        configuration.appServiceIdentityHeader = "another-secret"
        try await EmulatorHarness.with(configuration) { harness in
            Self.expectAppServiceError(try await Self.appService(harness, []), status: 401)
            let response = try await Self.appService(harness, [], headers: [("X-IDENTITY-HEADER", "another-secret")])
            #expect(response.status == 200)
        }
    }

    // MARK: Azure Arc

    /// A fresh directory for Arc key files, removed after `body`.
    static func withArcDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-arc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }

    /// The key file a 401 challenge names: its path and contents.
    static func challenge(
        _ response: RawResponse, in directory: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (
        path: String, secret: String
    ) {
        #expect(response.status == 401, "\(response.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(response.json["access_token"] == nil, sourceLocation: sourceLocation)
        let header = try #require(response.headers["www-authenticate"], sourceLocation: sourceLocation)
        let prefix = "Basic realm="
        #expect(header.hasPrefix(prefix), sourceLocation: sourceLocation)
        let path = String(header.dropFirst(prefix.count))
        #expect((path as NSString).deletingLastPathComponent == directory, sourceLocation: sourceLocation)
        #expect(path.hasSuffix(".key"), sourceLocation: sourceLocation)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, sourceLocation: sourceLocation)
        let secret = try String(contentsOfFile: path, encoding: .utf8)
        #expect(secret.count == 64 && secret.utf8.allSatisfy { Hex.isDigit($0) }, "\(secret)", sourceLocation: sourceLocation)
        return (path, secret)
    }

    @Test("Azure Arc: a 401 challenge names a new 0600 key file in the directory; its secret once gets the system-assigned token")
    func arcChallengeAndToken() async throws {
        try await Self.withArcDirectory { directory in
            var configuration = EmulatorHarness.configuration
            configuration.arcTokenDirectory = directory
            try await EmulatorHarness.with(configuration) { harness in
                let first = try Self.challenge(try await Self.arc(harness), in: directory)
                let response = try await Self.arc(harness, headers: [("Metadata", "true"), ("Authorization", "Basic \(first.secret)")])
                #expect(response.status == 200, "\(response.text.prefix(300))")
                #expect(Set(response.json.keys) == ["access_token", "expires_in", "expires_on", "resource", "token_type"])
                #expect(response.json["token_type"] as? String == "Bearer")
                #expect(response.json["expires_in"] as? String == "86400")
                let expiresOn = try #require(Self.epoch(response, "expires_on"))
                let expiry = try await Self.expectToken(response, harness, identity: Self.system)
                #expect(expiry == Double(expiresOn))
                #expect(!FileManager.default.fileExists(atPath: first.path), "the used key file is removed")

                // The same secret again: refused, with a new challenge.
                let reused = try await Self.arc(harness, headers: [("Metadata", "true"), ("Authorization", "Basic \(first.secret)")])
                let second = try Self.challenge(reused, in: directory)
                #expect(second.path != first.path && second.secret != first.secret)
                // A wrong secret: refused, with a new challenge; the outstanding one still works afterwards.
                let wrong = try await Self.arc(
                    harness, headers: [("Metadata", "true"), ("Authorization", "Basic \(String(repeating: "0", count: 64))")])
                let third = try Self.challenge(wrong, in: directory)
                #expect(third.path != second.path)
                let bearer = try await Self.arc(harness, headers: [("Metadata", "true"), ("Authorization", "Bearer \(second.secret)")])
                _ = try Self.challenge(bearer, in: directory)
                let late = try await Self.arc(harness, headers: [("Metadata", "true"), ("Authorization", "Basic \(second.secret)")])
                #expect(late.status == 200)
                #expect(harness.emulator.requestCount(.azureArc) == 6)
                #expect(harness.emulator.requests.filter { $0.endpoint == .azureArc }.map(\.status) == [401, 200, 401, 401, 401, 200])
            }
        }
    }

    @Test("Azure Arc refuses: no Metadata header, any identity parameter, no resource; 500 without a token directory")
    func arcRefusals() async throws {
        try await Self.withArcDirectory { directory in
            var configuration = EmulatorHarness.configuration
            configuration.arcTokenDirectory = directory
            try await EmulatorHarness.with(configuration) { harness in
                Self.expectError(try await Self.arc(harness, headers: []), "Required metadata header not specified")
                for parameter in ["client_id", "object_id", "msi_res_id", "mi_res_id"] {
                    let value = parameter.hasSuffix("res_id") ? Self.user.2 : Self.user.0
                    Self.expectError(try await Self.arc(harness, [(parameter, value)]), "User assigned identities are not supported")
                }
                Self.expectError(try await Self.arc(harness, resource: nil))
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "no challenge before the checks pass")
            }
        }
        try await EmulatorHarness.with { harness in
            Self.expectError(try await Self.arc(harness), status: 500, error: "server_error")
        }
    }

    // MARK: Faults and configuration

    @Test("Injected faults on each endpoint are answered as injected (410, 404, 429 with Retry-After, a closed connection) and logged")
    func faults() async throws {
        try await EmulatorHarness.with { harness in
            let emulator = harness.emulator
            emulator.inject(.init(.serverError(status: 410), endpoint: .imds, times: 1))
            let gone = try await Self.imds(harness, [])
            Self.expectError(gone, status: 410, error: "server_error")
            #expect(try await Self.imds(harness, []).status == 200, "times: 1")

            emulator.inject(.init(.serverError(status: 404, retryAfter: 2), endpoint: .appService, times: 2))
            Self.expectAppServiceError(try await Self.appService(harness, []), status: 404)
            let again = try await Self.appService(harness, [], headers: [])
            Self.expectAppServiceError(again, status: 404)
            #expect(again.headers["retry-after"] == "2", "the fault answers before the header is checked")
            Self.expectAppServiceError(try await Self.appService(harness, [], headers: []), status: 401)

            emulator.inject(.init(.serverError(status: 429, retryAfter: 7), endpoint: .azureArc, times: 1))
            let throttled = try await Self.arc(harness)
            Self.expectError(throttled, status: 429, error: "temporarily_unavailable")
            #expect(throttled.headers["retry-after"] == "7")

            // A fault for one identity's client id leaves the other alone.
            emulator.inject(.init(.throttled(retryAfter: 30), endpoint: .imds, clientID: Self.user.0))
            #expect(try await Self.imds(harness, []).status == 200)
            let limited = try await Self.imds(harness, [("client_id", Self.user.0)])
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == "30")
            emulator.removeAllFaults()

            emulator.inject(.init(.closeBeforeHeaders, endpoint: .imds, times: 1))
            await #expect(throws: (any Error).self) { _ = try await Self.imds(harness, []) }
            #expect(try await Self.imds(harness, []).status == 200)

            #expect(emulator.requestCount(.imds) == 6)
            #expect(emulator.requestCount(.appService) == 3)
            #expect(emulator.requestCount(.azureArc) == 1)
            #expect(emulator.requests.filter(\.faulted).map(\.status) == [410, 404, 404, 429, 429, 0])
        }
    }

    @Test("The sample's identities and header; inconsistent managed-identity configurations are refused")
    func configuration() throws {
        let sample = Sample.sample
        #expect(sample.managedIdentities.count == 2)
        #expect(sample.managedIdentities.filter(\.isSystemAssigned).map(\.clientID) == [Self.system.0])
        #expect(sample.managedIdentities.allSatisfy { $0.tenantID == Sample.sampleContosoTenantID })
        #expect(sample.appServiceIdentityHeader == Sample.sampleAppServiceIdentityHeader)
        #expect(sample.arcTokenDirectory == nil)
        #expect(Sample(tenants: [], users: [], clients: []).managedIdentities.isEmpty)
        let random = Sample(tenants: [], users: [], clients: []).appServiceIdentityHeader
        #expect(random.count == 32 && random != Sample(tenants: [], users: [], clients: []).appServiceIdentityHeader)

        func refused(_ change: (inout Sample) -> Void, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
            var configuration = Sample.sample
            change(&configuration)
            #expect(sourceLocation: sourceLocation) {
                try configuration.validate()
            } throws: { error in
                guard let error = error as? MSALEmulatorError else { return false }
                return error.code == .invalidConfiguration && error.message.contains(fragment)
            }
        }
        refused({ $0.managedIdentities[1].clientID = "not-a-guid" }, "not a GUID")
        refused({ $0.managedIdentities[1].objectID = $0.managedIdentities[0].objectID }, "shares a client or object id")
        refused({ $0.managedIdentities[1].resourceID = $0.managedIdentities[0].resourceID.uppercased() }, "shares its resource id")
        refused({ $0.managedIdentities[1].resourceID = "contoso-worker" }, "not an Azure resource id")
        refused({ $0.managedIdentities[1].tenantID = "11111111-1111-1111-1111-111111111111" }, "unknown tenant")
        refused({ $0.managedIdentities[1].isSystemAssigned = true }, "more than one system-assigned")
        refused({ $0.appServiceIdentityHeader = "" }, "App Service identity header")
        refused({ $0.appServiceIdentityHeader = "two words" }, "App Service identity header")
        refused({ $0.arcTokenDirectory = "relative/dir" }, "Arc token directory")
    }

    @Test("The endpoint URLs the emulator publishes")
    func urls() async throws {
        try await EmulatorHarness.with { harness in
            let base = harness.emulator.baseURL.absoluteString
            #expect(harness.emulator.imdsTokenURL.absoluteString == base + Self.imdsPath)
            #expect(harness.emulator.appServiceTokenURL.absoluteString == base + Self.appServicePath)
            #expect(harness.emulator.azureArcTokenURL.absoluteString == base + Self.arcPath)
            #expect(harness.emulator.azureArcIMDSURL.absoluteString == base + "/arc")
        }
    }
}
