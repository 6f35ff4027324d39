import Foundation
import MSALTesting
import Testing

/// Checks the shape of every scenario in `Fixtures/Conformance/`; the runner that resolves them lives in `Conformance/`.
@Suite("Conformance fixtures: every scenario loads and has a valid conformance section")
struct ConformanceFixtureTests {
    static let files: [URL] = (try? FixtureLoader.jsonFiles(under: "Conformance")) ?? []

    static let operations: Set<String> = ["resolve_authority", "token_flow"]
    static let kinds: Set<String> = ["auto", "aad", "b2c", "ciam", "adfs", "oidc"]
    static let inputMembers: Set<String> = ["authority", "kind", "validate_authority", "known_authorities", "allow_http_loopback"]
    static let expectStrings: Set<String> = [
        "kind", "tenant", "canonical_url", "cache_environment", "network_host",
        "authorization_endpoint", "token_endpoint", "jwks_uri", "issuer",
    ]
    static let expectNullable: Set<String> = ["device_code_endpoint", "end_session_endpoint"]
    static let errorCodes = Set(MSALError.allCases.map { String(describing: $0) })
    static let internalCodes = Set(MSALInternalError.allCases.map { String(describing: $0) })

    @Test("The conformance folder has the authority scenarios and a README")
    func folder() throws {
        #expect(Self.files.filter { $0.path.contains("/Authority/") }.count >= 30)
        #expect(FileManager.default.fileExists(atPath: FixtureLoader.url("Conformance/README.md").path))
    }

    @Test("Each scenario is a valid fixture with a valid conformance section", arguments: files)
    func scenario(file: URL) throws {
        let fixture = try MSALRecordedFixture(contentsOf: file)
        #expect(fixture.name == file.deletingPathExtension().lastPathComponent)
        #expect(!fixture.description.isEmpty)
        #expect(!fixture.provenance.isEmpty)
        #expect(fixture.interactions.allSatisfy { !$0.repeatable })

        let conformance = try #require(fixture.conformance)
        if conformance["operation"]?.stringValue == "token_flow" {
            // Token flow scenarios have their own shape (Fixtures/Conformance/README.md, "Flows/").
            FlowFixtureShape.check(conformance, label: file.lastPathComponent)
            return
        }
        for member in conformance.members ?? [] {
            #expect(["operation", "input", "expect", "expect_error"].contains(member.name), "unknown member \(member.name)")
        }
        let operation = try #require(conformance["operation"]?.stringValue)
        #expect(Self.operations.contains(operation))

        let input = try #require(conformance["input"])
        #expect(input["authority"]?.stringValue.flatMap(URL.init(string:)) != nil)
        for member in input.members ?? [] {
            #expect(Self.inputMembers.contains(member.name), "unknown input member \(member.name)")
        }
        if let kind = input["kind"] { #expect(kind.stringValue.map(Self.kinds.contains) == true) }
        if let flag = input["validate_authority"] { #expect(flag.boolValue != nil) }
        if let flag = input["allow_http_loopback"] { #expect(flag.boolValue != nil) }
        if let known = input["known_authorities"] {
            #expect(known.arrayValue?.allSatisfy { $0.stringValue.flatMap(URL.init(string:))?.host != nil } == true)
        }

        switch (conformance["expect"], conformance["expect_error"]) {
        case (.some(let expect), nil):
            let members = try #require(expect.members)
            #expect(!members.isEmpty)
            for member in members {
                if Self.expectStrings.contains(member.name) {
                    #expect(member.value.stringValue != nil, "\(member.name) must be a string")
                } else if Self.expectNullable.contains(member.name) {
                    #expect(member.value.stringValue != nil || member.value.isNull, "\(member.name) must be a string or null")
                } else if member.name == "aliases" {
                    #expect(member.value.arrayValue?.allSatisfy { $0.stringValue != nil } == true)
                } else {
                    Issue.record("unknown expect member \(member.name)")
                }
            }
            if let kind = expect["kind"]?.stringValue { #expect(Self.kinds.subtracting(["auto"]).contains(kind)) }
        case (nil, .some(let expectError)):
            for member in expectError.members ?? [] {
                #expect(["code", "internal_code", "oauth_error"].contains(member.name), "unknown expect_error member \(member.name)")
            }
            #expect(expectError["code"]?.stringValue.map(Self.errorCodes.contains) == true)
            if let internalCode = expectError["internal_code"] {
                #expect(internalCode.stringValue.map(Self.internalCodes.contains) == true, "\(internalCode)")
            }
            if let oauthError = expectError["oauth_error"] { #expect(oauthError.stringValue != nil) }
        default:
            Issue.record("\(file.lastPathComponent): needs exactly one of expect and expect_error")
        }
    }

    @Test("Replaying each scenario's own requests consumes every interaction", arguments: files)
    func replay(file: URL) async throws {
        let transport = try MSALReplayTransport(contentsOf: file)
        for interaction in transport.fixture.interactions {
            var request = MSALHTTPRequest(
                method: interaction.request.method, url: interaction.request.url,
                headers: interaction.request.headers)
            if let form = interaction.request.form {
                request = .form(
                    url: interaction.request.url, parameters: form.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                    headers: interaction.request.headers)
            }
            let response = try await transport.send(request, limits: .default)
            #expect(response == interaction.response.httpResponse)
        }
        try transport.verifyAllInteractionsUsed()
    }
}
