import Foundation
import MSAL
import MSALTesting
import Testing

/// Replays every scenario of `Fixtures/Conformance/Authority/` through the real resolver
/// (validation, instance discovery, OpenID configuration, checks) and compares the outcome with
/// the scenario's `conformance.expect` or `conformance.expect_error`. Every recorded interaction must
/// be used, and no other request may be sent.
@Suite("Conformance: authority resolution over recorded traffic")
struct AuthorityConformanceTests {
    static let files: [URL] = ((try? FixtureLoader.jsonFiles(under: "Conformance/Authority")) ?? [])

    @Test("The runner has scenarios to run")
    func hasScenarios() {
        #expect(Self.files.count >= 30)
    }

    @Test("Scenario", arguments: files)
    func scenario(file: URL) async throws {
        let fixture = try MSALRecordedFixture(contentsOf: file)
        let conformance = try #require(fixture.conformance, "\(fixture.name) has no conformance section")
        try #require(conformance["operation"]?.stringValue == "resolve_authority")
        let input = try #require(conformance["input"])
        let authorityText = try #require(input["authority"]?.stringValue)
        let kind = input["kind"]?.stringValue ?? "auto"
        let options: MSALAuthorityOptions = input["allow_http_loopback"]?.boolValue == true ? [.allowInsecureLoopback] : []
        let validates = input["validate_authority"]?.boolValue ?? true
        let knownTexts = input["known_authorities"]?.arrayValue?.compactMap(\.stringValue) ?? []

        let transport = MSALReplayTransport(fixture: fixture)
        let outcome: Result<MSALAuthorityMetadata, MSALFailure>
        do {
            let authority = try Self.authority(authorityText, kind: kind, options: options)
            let known = try knownTexts.map { try MSALAuthority.authority(url: URL(string: $0)!, options: options) }
            let resolver = MSALAuthorityResolver(transport: transport, validatesAuthority: validates, knownAuthorities: known)
            outcome = .success(try await resolver.metadata(for: authority))
        } catch let error as MSALFailure {
            outcome = .failure(error)
        }
        #expect(transport.unmatchedRequests.isEmpty, "\(fixture.name): unexpected requests \(transport.unmatchedRequests)")

        if let expected = conformance["expect_error"] {
            guard case .failure(let error) = outcome else {
                Issue.record("\(fixture.name): expected an error \(expected), resolved instead")
                return
            }
            if let code = expected["code"]?.stringValue {
                #expect(String(describing: error.code) == code, "\(fixture.name): \(error)")
            }
            if let internalCode = expected["internal_code"]?.stringValue {
                #expect(error.internalCode.map { String(describing: $0) } == internalCode, "\(fixture.name): \(error)")
            }
            if let oauthError = expected["oauth_error"]?.stringValue {
                #expect(error.oauthError == oauthError, "\(fixture.name): \(error)")
            }
            #expect(!error.message.isEmpty)
        } else {
            let expect = try #require(conformance["expect"])
            let metadata: MSALAuthorityMetadata
            switch outcome {
            case .success(let value): metadata = value
            case .failure(let error):
                Issue.record("\(fixture.name): \(error)")
                return
            }
            try transport.verifyAllInteractionsUsed()
            let actual = Self.fields(metadata)
            for member in expect.members ?? [] {
                let wanted: String? =
                    member.value.isNull
                    ? nil
                    : (member.value.stringValue ?? member.value.arrayValue.map { $0.compactMap(\.stringValue).joined(separator: " ") })
                #expect(actual[member.name] == .some(wanted), "\(fixture.name): \(member.name)")
            }
        }
    }

    static func authority(_ text: String, kind: String, options: MSALAuthorityOptions) throws -> MSALAuthority {
        guard let url = URL(string: text) else {
            throw MSALFailure(.internal, internalCode: .invalidAuthority, message: "not a URL")
        }
        switch kind {
        case "aad": return try MSALAADAuthority(url: url, options: options)
        case "b2c": return try MSALB2CAuthority(url: url, options: options)
        case "ciam": return try MSALCIAMAuthority(url: url, options: options)
        case "adfs": return try MSALADFSAuthority(url: url, options: options)
        case "oidc": return try MSALOIDCAuthority(url: url, options: options)
        default: return try MSALAuthority.authority(url: url, options: options)
        }
    }

    /// The metadata in the scenario's vocabulary; arrays joined by spaces.
    static func fields(_ metadata: MSALAuthorityMetadata) -> [String: String?] {
        [
            "kind": metadata.kind.rawValue,
            "tenant": metadata.tenant,
            "canonical_url": metadata.authority.absoluteString,
            "cache_environment": metadata.cacheEnvironment,
            "network_host": metadata.networkHost,
            "aliases": metadata.aliases.joined(separator: " "),
            "authorization_endpoint": metadata.authorizationEndpoint.absoluteString,
            "token_endpoint": metadata.tokenEndpoint.absoluteString,
            "device_code_endpoint": metadata.deviceCodeEndpoint?.absoluteString,
            "end_session_endpoint": metadata.endSessionEndpoint?.absoluteString,
            "jwks_uri": metadata.jwksURI.absoluteString,
            "issuer": metadata.issuer,
        ]
    }
}
