import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// swift-msal's `MSALClientCredentialParameters.fmiPath` and `.extraBodyParameters` against MSAL
/// for Python 1.39's `acquire_token_for_client(fmi_path=…, data=…)`, both pointed at one local
/// provider (the emulator, named `https://login.microsoftonline.com`) and sharing one cache file:
///
/// - both send the same client credentials form (`fmi_path` and the extra fields included);
/// - both write the token under the same extended cache key (`ext_cache_key` member, `…-atext-…`
///   entry key, the same entry members), so either library's token is the other's cache hit with
///   0 requests when asked with the same path or fields;
/// - neither answers a request without the path (or with another path or other fields) with it.
@Suite("FMI path and extra body fields: swift-msal and MSAL for Python share extended-key app tokens", .serialized)
struct PythonFederatedIdentityInteropTests {
    typealias Setup = PythonConfidentialClientInteropTests.Setup

    static let tenant = MSALEmulator.Configuration.sampleContosoTenantID
    static let fmiPath = "SomeFmiPath/FmiCredentialPath"
    static let otherFmiPath = "SomeFmiPath/OtherCredentialPath"
    static let extraBody = ["custom_param": "v1"]

    /// MSAL for Python 1.39's `_compute_ext_cache_key({"fmi_path": fmiPath})`: the lower-cased
    /// base64url SHA-256 of `8:fmi_path29:SomeFmiPath/FmiCredentialPath` (computed with it).
    static let fmiExtendedKey = "cojvfy5tzae3njpkvcebguvvx5vvmnj8hphqrbogjoi"
    /// The same for `{"custom_param": "v1"}` (`12:custom_param2:v1`).
    static let extraBodyExtendedKey = "xf_tte5c1ud2uqa1gm4hiq34kzcpubv15aelv37-kcs"

    /// The credential both libraries authenticate with.
    enum Credential: String, CaseIterable, CustomTestStringConvertible {
        case secret, certificate
        var testDescription: String { rawValue }
        var isCertificate: Bool { self == .certificate }

        /// The form fields that carry it (the emulator's log keeps `<redacted>` for the secret and the assertion).
        var fields: Set<String> {
            switch self {
            case .secret: ["client_secret"]
            case .certificate: ["client_assertion", "client_assertion_type"]
            }
        }
    }

    /// What one `app_token.py` run reported.
    struct PythonRun {
        var results: [[String: Any]]
        var tokenRequests: Int
        /// The cache's AccessToken entries after the run: `key`, `ext_cache_key`, `target`, `realm`,
        /// `environment`, `secret`, `members`.
        var entries: [[String: Any]]

        var tokens: [String?] { results.map { $0["access_token"] as? String } }
        var sources: [String?] { results.map { $0["token_source"] as? String } }
        var keys: [String?] { entries.map { $0["key"] as? String } }
    }

    static func parameters(fmiPath: String? = nil, extraBody: [String: String]? = nil) -> MSALClientCredentialParameters {
        let parameters = MSALClientCredentialParameters(scopes: [PythonConfidentialClientInteropTests.scope])
        parameters.fmiPath = fmiPath
        parameters.extraBodyParameters = extraBody
        return parameters
    }

    /// The emulator's `fmi_path` claim of an access token it issued.
    static func fmiClaim(_ token: String) throws -> String? { try JWT.decodeUnverified(token).stringClaim("fmi_path") }

    /// The AccessToken section of the cache file at `path`, read as JSON: entries by key.
    static func accessTokenEntries(_ path: String) throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(document["AccessToken"] as? [String: [String: Any]])
    }

    /// The key both libraries give the app token of `extendedKey` for the suite's client, tenant and scope.
    static func extendedEntryKey(_ extendedKey: String) -> String {
        let client = PythonConfidentialClientInteropTests.clientID
        return "-login.microsoftonline.com-atext-\(client)-\(tenant)-\(PythonConfidentialClientInteropTests.scope)-\(extendedKey)"
    }

    @Test("swift-msal's FMI token is MSAL for Python's cache hit for the same fmi_path only; none or another path asks the provider")
    func swiftFirst() async throws {
        try await Setup.with { setup in try await swiftFirst(setup) }
    }

    private func swiftFirst(_ setup: Setup) async throws {
        let swift = try setup.swiftApplication(tenant: Self.tenant, certificate: false)
        let ours = try await swift.acquireTokenForClient(with: Self.parameters(fmiPath: Self.fmiPath))
        #expect(ours.tokenSource == .identityProvider)
        #expect(setup.grants == 1)
        let ourClaim = try Self.fmiClaim(ours.accessToken)
        #expect(ourClaim == Self.fmiPath, "the provider was sent the path")

        let same = try await setup.federatedPython(fmiPath: Self.fmiPath, calls: 2)
        #expect(same.tokenRequests == 0, "MSAL for Python found swift-msal's FMI token")
        #expect(same.sources == ["cache", "cache"])
        let answeredWithOurs = same.tokens == [ours.accessToken, ours.accessToken]
        #expect(answeredWithOurs, "MSAL for Python answered with swift-msal's token")
        #expect(setup.grants == 1)

        let plain = try await setup.federatedPython()
        #expect(plain.tokenRequests == 1, "a request without fmi_path is not answered with the FMI token")
        #expect(plain.sources == ["identity_provider"])
        let plainToken = try #require(plain.tokens.first ?? nil)
        let plainIsNew = plainToken != ours.accessToken
        #expect(plainIsNew)
        let plainClaim = try Self.fmiClaim(plainToken)
        #expect(plainClaim == nil)

        let other = try await setup.federatedPython(fmiPath: Self.otherFmiPath)
        #expect(other.tokenRequests == 1, "a request with another fmi_path is not answered with the FMI token")
        let otherToken = try #require(other.tokens.first ?? nil)
        let otherIsNew = otherToken != ours.accessToken && otherToken != plainToken
        #expect(otherIsNew)
        let otherClaim = try Self.fmiClaim(otherToken)
        #expect(otherClaim == Self.otherFmiPath)
        #expect(setup.grants == 3)

        // The shared file now holds the three tokens; a new swift-msal application (another
        // process would be the same) tells them apart, 0 requests.
        let reread = try setup.swiftApplication(tenant: Self.tenant, certificate: false)
        let rereadPlain = try await reread.acquireTokenForClient(with: Self.parameters())
        #expect(rereadPlain.tokenSource == .cache)
        let isPythonsPlain = rereadPlain.accessToken == plainToken
        #expect(isPythonsPlain)
        let rereadOther = try await reread.acquireTokenForClient(with: Self.parameters(fmiPath: Self.otherFmiPath))
        #expect(rereadOther.tokenSource == .cache)
        let isPythonsOther = rereadOther.accessToken == otherToken
        #expect(isPythonsOther)
        let rereadOurs = try await reread.acquireTokenForClient(with: Self.parameters(fmiPath: Self.fmiPath))
        #expect(rereadOurs.tokenSource == .cache)
        let isOurs = rereadOurs.accessToken == ours.accessToken
        #expect(isOurs)
        #expect(setup.grants == 3)
    }

    @Test("MSAL for Python's FMI token is swift-msal's cache hit for the same fmiPath; without it swift-msal asks the provider")
    func pythonFirst() async throws {
        try await Setup.with { setup in try await pythonFirst(setup) }
    }

    private func pythonFirst(_ setup: Setup) async throws {
        let python = try await setup.federatedPython(fmiPath: Self.fmiPath)
        #expect(python.tokenRequests == 1)
        let theirs = try #require(python.tokens.first ?? nil, "MSAL for Python got no token: \(python.results.first?["error"] ?? "")")
        let theirClaim = try Self.fmiClaim(theirs)
        #expect(theirClaim == Self.fmiPath)
        #expect(setup.grants == 1)

        let swift = try setup.swiftApplication(tenant: Self.tenant, certificate: false)
        for attempt in 1...2 {  // the second one is answered by the application's remembered hit
            let hit = try await swift.acquireTokenForClient(with: Self.parameters(fmiPath: Self.fmiPath))
            #expect(hit.tokenSource == .cache, "attempt \(attempt)")
            let isTheirs = hit.accessToken == theirs
            #expect(isTheirs, "attempt \(attempt): swift-msal answered with MSAL for Python's token")
        }
        #expect(setup.grants == 1, "swift-msal found MSAL for Python's FMI token")

        let plain = try await swift.acquireTokenForClient(with: Self.parameters())
        #expect(plain.tokenSource == .identityProvider, "a request without fmiPath is not answered with the FMI token")
        #expect(setup.grants == 2)
        let plainIsNew = plain.accessToken != theirs
        #expect(plainIsNew)
        let plainClaim = try Self.fmiClaim(plain.accessToken)
        #expect(plainClaim == nil)

        let other = try await swift.acquireTokenForClient(with: Self.parameters(fmiPath: Self.otherFmiPath))
        #expect(other.tokenSource == .identityProvider, "a request with another fmiPath is not answered with the FMI token")
        #expect(setup.grants == 3)
        let otherClaim = try Self.fmiClaim(other.accessToken)
        #expect(otherClaim == Self.otherFmiPath)

        // Back in MSAL for Python: each of the three requests finds its own token in the shared file.
        let expected: [(fmiPath: String?, token: String)] = [
            (nil, plain.accessToken), (Self.fmiPath, theirs), (Self.otherFmiPath, other.accessToken),
        ]
        for (fmiPath, token) in expected {
            let back = try await setup.federatedPython(fmiPath: fmiPath)
            #expect(back.tokenRequests == 0, "fmi_path \(fmiPath ?? "none")")
            let isTheOne = back.tokens == [token]
            #expect(isTheOne, "fmi_path \(fmiPath ?? "none"): MSAL for Python answered with the token of that path")
        }
        #expect(setup.grants == 3)
    }

    @Test(
        "For one fmi_path, swift-msal and MSAL for Python send the same client credentials form (credentials redacted)",
        arguments: Credential.allCases)
    func sameForm(_ credential: Credential) async throws {
        try await Setup.with { setup in try await sameForm(credential, setup) }
    }

    private func sameForm(_ credential: Credential, _ setup: Setup) async throws {
        let swift = try setup.swiftApplication(tenant: Self.tenant, certificate: credential.isCertificate)
        _ = try await swift.acquireTokenForClient(with: Self.parameters(fmiPath: Self.fmiPath))
        #expect(setup.clientCredentialForms.count == 1)
        let ourForm = try #require(setup.clientCredentialForms.last)

        // A cache file of its own, so that MSAL for Python sends its request rather than finding ours.
        let python = try await setup.federatedPython(
            cacheFile: setup.freshCachePath(), fmiPath: Self.fmiPath, certificate: credential.isCertificate)
        #expect(python.tokenRequests == 1)
        let forms = setup.clientCredentialForms
        #expect(forms.count == 2)
        let theirForm = try #require(forms.last)

        #expect(ourForm["fmi_path"] == Self.fmiPath)
        #expect(theirForm["fmi_path"] == Self.fmiPath)
        // MSAL for Python 1.39 sends client_id, grant_type, client_info=1, the credential's fields
        // (its default body), fmi_path and scope, and no claims without a challenge or capabilities;
        // swift-msal sends the same fields: none is expected to differ. The credential's values are
        // `<redacted>` in the emulator's log on both sides, so they compare too (present on both).
        let expectedFields = Set(["client_id", "grant_type", "scope", "client_info", "fmi_path"]).union(credential.fields)
        #expect(Set(ourForm.keys) == expectedFields)
        #expect(Set(theirForm.keys) == expectedFields)
        #expect(ourForm == theirForm)
    }

    @Test("swift-msal writes the FMI token's AccessToken entry under MSAL for Python's atext key, ext_cache_key and members")
    func sameEntry() async throws {
        try await Setup.with { setup in try await sameEntry(setup) }
    }

    private func sameEntry(_ setup: Setup) async throws {
        let swift = try setup.swiftApplication(tenant: Self.tenant, certificate: false)
        let ours = try await swift.acquireTokenForClient(with: Self.parameters(fmiPath: Self.fmiPath))
        let written = try Self.accessTokenEntries(setup.cachePath)
        #expect(written.count == 1)
        let (ourKey, ourEntry) = try #require(written.first)
        let ourSecretIsTheToken = (ourEntry["secret"] as? String) == ours.accessToken
        #expect(ourSecretIsTheToken)

        // MSAL for Python's own entry for the same request, written into a file of its own.
        let python = try await setup.federatedPython(cacheFile: setup.freshCachePath(), fmiPath: Self.fmiPath)
        #expect(python.tokenRequests == 1)
        #expect(python.entries.count == 1)
        let theirs = try #require(python.entries.first)
        let theirSecretIsTheirToken = (theirs["secret"] as? String) == (python.tokens.first ?? nil)
        #expect(theirSecretIsTheirToken)

        #expect(ourKey == theirs["key"] as? String)
        #expect(ourKey == Self.extendedEntryKey(Self.fmiExtendedKey))
        #expect(ourEntry["ext_cache_key"] as? String == theirs["ext_cache_key"] as? String)
        #expect(ourEntry["ext_cache_key"] as? String == Self.fmiExtendedKey)
        for member in ["target", "realm", "environment"] {
            #expect(ourEntry[member] as? String == theirs[member] as? String, "\(member)")
        }
        #expect(ourEntry["home_account_id"] is NSNull, "an app token's home_account_id is null, as MSAL for Python writes it")
        let theirMembers = try #require(theirs["members"] as? [String])
        #expect(Set(ourEntry.keys) == Set(theirMembers), "the entry's members")

        // MSAL for Python keeps swift-msal's entry under its key when it loads and answers from the file.
        let shared = try await setup.federatedPython(fmiPath: Self.fmiPath)
        #expect(shared.tokenRequests == 0)
        #expect(shared.keys == [ourKey])
    }

    @Test("extraBodyParameters and MSAL for Python's data= give the same ext_cache_key, form and cache hits both ways")
    func extraBodyParameters() async throws {
        try await Setup.with { setup in try await extraBodyParameters(setup) }
    }

    private func extraBodyParameters(_ setup: Setup) async throws {
        let swift = try setup.swiftApplication(tenant: Self.tenant, certificate: false)
        let ours = try await swift.acquireTokenForClient(with: Self.parameters(extraBody: Self.extraBody))
        #expect(ours.tokenSource == .identityProvider)
        #expect(setup.grants == 1)
        let ourForm = try #require(setup.clientCredentialForms.last)
        #expect(ourForm["custom_param"] == "v1")
        let written = try Self.accessTokenEntries(setup.cachePath)
        #expect(written.count == 1)
        let (ourKey, ourEntry) = try #require(written.first)
        #expect(ourKey == Self.extendedEntryKey(Self.extraBodyExtendedKey))
        #expect(ourEntry["ext_cache_key"] as? String == Self.extraBodyExtendedKey)

        let same = try await setup.federatedPython(extraBody: Self.extraBody, calls: 2)
        #expect(same.tokenRequests == 0, "MSAL for Python found swift-msal's token")
        let answeredWithOurs = same.tokens == [ours.accessToken, ours.accessToken]
        #expect(answeredWithOurs)

        let plain = try await setup.federatedPython()
        #expect(plain.tokenRequests == 1, "a request without the field is not answered with the token")
        let plainToken = try #require(plain.tokens.first ?? nil)

        // MSAL for Python's own request and entry (a file of its own): the same form, key and ext_cache_key.
        let fresh = try await setup.federatedPython(cacheFile: setup.freshCachePath(), extraBody: Self.extraBody)
        #expect(fresh.tokenRequests == 1)
        let theirForm = try #require(setup.clientCredentialForms.last)
        #expect(ourForm == theirForm)
        let theirs = try #require(fresh.entries.first)
        #expect(ourKey == theirs["key"] as? String)
        #expect(ourEntry["ext_cache_key"] as? String == theirs["ext_cache_key"] as? String)

        // The reverse: MSAL for Python's token for another value is swift-msal's cache hit for that
        // value only.
        let v2 = ["custom_param": "v2"]
        let python = try await setup.federatedPython(extraBody: v2)
        #expect(python.tokenRequests == 1, "another value is another key")
        let theirV2 = try #require(python.tokens.first ?? nil)
        #expect(setup.grants == 4)
        let reread = try setup.swiftApplication(tenant: Self.tenant, certificate: false)
        let expected: [(extraBody: [String: String]?, token: String)] = [
            (v2, theirV2), (Self.extraBody, ours.accessToken), (nil, plainToken),
        ]
        for (extra, token) in expected {
            let hit = try await reread.acquireTokenForClient(with: Self.parameters(extraBody: extra))
            #expect(hit.tokenSource == .cache, "\(extra ?? [:])")
            let isTheOne = hit.accessToken == token
            #expect(isTheOne, "\(extra ?? [:]): swift-msal answered with the token of those fields")
        }
        #expect(setup.grants == 4)
    }
}

extension PythonConfidentialClientInteropTests.Setup {
    /// The forms of the client credentials requests the emulator answered (both libraries'), oldest first.
    var clientCredentialForms: [[String: String]] {
        emulator.requests.filter { $0.endpoint == .token && $0.grantType == .clientCredentials }.map(\.form)
    }

    /// A path for a cache file no one has written yet, in the setup's folder.
    func freshCachePath() -> String { folder.appendingPathComponent("python-\(UUID().uuidString).json").path }

    /// Runs `app_token.py` for the suite's tenant with `fmi_path` and `extra_body` when given, on
    /// `cacheFile` (the file swift-msal uses by default).
    func federatedPython(
        cacheFile: String? = nil, fmiPath: String? = nil, extraBody: [String: String]? = nil, certificate useCertificate: Bool = false,
        calls: Int = 1
    ) async throws -> PythonFederatedIdentityInteropTests.PythonRun {
        var spec: [String: Any] = [
            "emulator": emulator.baseURL.absoluteString, "advertised": PythonConfidentialClientInteropTests.advertised,
            "authority": authority(PythonFederatedIdentityInteropTests.tenant), "client_id": PythonConfidentialClientInteropTests.clientID,
            "scopes": [PythonConfidentialClientInteropTests.scope], "cache_file": cacheFile ?? cachePath, "calls": calls,
        ]
        if let fmiPath { spec["fmi_path"] = fmiPath }
        if let extraBody { spec["extra_body"] = extraBody }
        if useCertificate {
            spec["private_key_file"] = folder.appendingPathComponent("app.key").path
            spec["certificate_file"] = folder.appendingPathComponent("app.crt").path
        } else {
            spec["secret"] = PythonConfidentialClientInteropTests.secret
        }
        let specURL = folder.appendingPathComponent("spec-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: spec).write(to: specURL)
        let output = try await PythonMSAL.runChecked("app_token.py", [specURL.path]).jsonObject()
        return PythonFederatedIdentityInteropTests.PythonRun(
            results: try #require(output["results"] as? [[String: Any]]), tokenRequests: try #require(output["token_requests"] as? Int),
            entries: try #require(output["access_token_entries"] as? [[String: Any]]))
    }
}
