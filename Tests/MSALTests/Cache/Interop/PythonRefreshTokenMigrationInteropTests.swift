import Foundation
import MSAL
import MSALEmulator
import Testing

/// swift-msal's `acquireToken(byRefreshToken:scopes:)` against MSAL for Python 1.39's
/// `acquire_token_by_refresh_token`, both pointed at one local provider (the emulator, named
/// `https://login.microsoftonline.com`), for a public client in the family of client ids, a public
/// client outside it and a confidential client (a secret). Each library migrates a refresh token
/// the emulator minted as an earlier library kept it, for the same user, client and scopes:
///
/// - both send the same refresh_token grant form: the same fields, the same values (the refresh
///   token and the secret `<redacted>` in the emulator's log on both sides), `scope` the same set
///   (only its order differs: MSAL for Python sorts it);
/// - both write the same cache sections and entries: the same keys but for the documented shapes
///   (the access token's `target` slot ordered differently; the refresh token's key has MSAL for
///   Python's `target`, and swift-msal's has the family id for a family refresh token, as MSAL for
///   iOS and .NET write it) and the same members but for the documented extras (MSAL for Python's
///   refresh token `target`; swift-msal's account `name` and `client_info`), with equal values;
/// - each library's migrated user is the other's cached account, served from the cache with no
///   token request, through one shared file;
/// - a revoked refresh token is `invalid_grant` on both sides (swift-msal: `interactionRequired`)
///   and leaves both cache files without an entry.
@Suite("Refresh-token migration: swift-msal and MSAL for Python send the same request and share the result", .serialized)
struct PythonRefreshTokenMigrationInteropTests {
    typealias Setup = PythonConfidentialClientInteropTests.Setup
    typealias Entries = PythonSignInEntries

    static let tenant = Entries.tenant
    static let username = Entries.username
    static let scopes = ["User.Read"]
    /// The `scope` both send: the requested scope and the reserved ones.
    static let requestedScope: Set<String> = ["User.Read", "openid", "profile", "offline_access"]
    static let sections = Entries.sections

    /// Members one library writes and the other does not, by section: MSAL for Python keeps the
    /// refresh token's `target` (swift-msal's default write policy is MSAL for iOS and .NET's,
    /// without it); swift-msal keeps the ID token's `name` and the answer's `client_info` in the
    /// account (optional members of the unified schema, which MSAL for Python leaves out). Anything
    /// else is the same.
    static let memberDifferences: Entries.MemberDifferences = [
        "AccessToken": ([], []), "RefreshToken": ([], ["target"]), "IdToken": ([], []), "Account": (["name", "client_info"], []),
        "AppMetadata": ([], []),
    ]

    /// The application that migrates.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        /// The sample's main public client, in the family of client ids (the answer has `foci`).
        case publicFamily = "public client in the family"
        /// The sample's public client outside the family.
        case publicStandalone = "public client outside the family"
        /// `PythonConfidentialClientInteropTests`' confidential client, with its secret.
        case confidential = "confidential client"

        var testDescription: String { rawValue }

        var clientID: String {
            switch self {
            case .publicFamily: MSALEmulator.Configuration.sampleClientID
            case .publicStandalone: MSALEmulator.Configuration.sampleStandaloneClientID
            case .confidential: PythonConfidentialClientInteropTests.clientID
            }
        }

        /// The `foci` of the answer, the `family_id` of the entries.
        var familyID: String? { self == .publicFamily ? "1" : nil }

        /// The form fields that authenticate the client.
        var credentialFields: Set<String> { self == .confidential ? ["client_secret"] : [] }
    }

    /// A swift-msal application of one ``Kind``.
    enum SwiftApp {
        case publicClient(MSALPublicClientApplication)
        case confidentialClient(MSALConfidentialClientApplication)

        func migrate(_ refreshToken: String) async throws -> MSALResult {
            switch self {
            case .publicClient(let app): return try await app.acquireToken(byRefreshToken: refreshToken, scopes: scopes)
            case .confidentialClient(let app): return try await app.acquireToken(byRefreshToken: refreshToken, scopes: scopes)
            }
        }

        func accounts() async throws -> [MSALAccount] {
            switch self {
            case .publicClient(let app): return try app.allAccounts()
            case .confidentialClient(let app): return try await app.allAccounts()
            }
        }

        func silent(_ account: MSALAccount) async throws -> MSALResult {
            let parameters = MSALSilentTokenParameters(scopes: scopes, account: account)
            switch self {
            case .publicClient(let app): return try await app.acquireTokenSilent(with: parameters)
            case .confidentialClient(let app): return try await app.acquireTokenSilent(with: parameters)
            }
        }

        private var scopes: [String] { PythonRefreshTokenMigrationInteropTests.scopes }
    }

    /// What one `migrate_refresh_token.py` run reported.
    struct PythonRun {
        /// The migration's answer (`token_source`, `access_token`, `error`, `error_description`,
        /// `preferred_username`); `nil` when the run migrated nothing.
        var result: [String: Any]?
        /// `get_accounts()` usernames after the migration.
        var accounts: [String]
        /// `acquire_token_silent` afterwards (`then_silent`): `token_source`, `access_token`, `error`.
        var silent: [String: Any]?
        /// POSTs to the token endpoint, every step of the run.
        var tokenRequests: Int
        /// The cache as MSAL for Python serializes it after the run, by section.
        var entries: [String: [Entries.PythonEntry]]
    }

    /// Each library's migration of a refresh token of its own, into a cache file of its own.
    struct BothMigrated {
        var ours: MSALResult
        var swiftToken: String
        var swiftCache: String
        var python: PythonRun
        var pythonToken: String
        var pythonCache: String
    }

    /// swift-msal, then MSAL for Python, each migrating a refresh token minted for it (same user,
    /// client and scopes) into a new cache file.
    static func migrateBoth(_ kind: Kind, _ setup: Setup) async throws -> BothMigrated {
        let swiftToken = try setup.emulator.mintRefreshToken(of: username, clientID: kind.clientID)
        let pythonToken = try setup.emulator.mintRefreshToken(of: username, clientID: kind.clientID)
        let swiftCache = setup.migrationCachePath("swift")
        let pythonCache = setup.migrationCachePath("python")

        let ours = try await setup.migrationApp(kind, cachePath: swiftCache).migrate(swiftToken)
        #expect(ours.tokenSource == .identityProvider)
        #expect(ours.account.username == username)

        let python = try await setup.migrationPython(kind, cacheFile: pythonCache, refreshToken: pythonToken)
        let result = try #require(python.result)
        #expect(result["error"] as? String == nil, "MSAL for Python's migration failed: \(result["error_description"] ?? "")")
        #expect(result["token_source"] as? String == "identity_provider")
        #expect(result["preferred_username"] as? String == username)
        #expect(python.tokenRequests == 1)
        #expect(setup.refreshTokenGrants == 2)
        return BothMigrated(
            ours: ours, swiftToken: swiftToken, swiftCache: swiftCache, python: python, pythonToken: pythonToken, pythonCache: pythonCache)
    }

    // MARK: The request

    @Test(
        "Both send the same refresh_token grant: the same fields and values, scope the same set (MSAL for Python sorts it)",
        arguments: Kind.allCases)
    func sameForm(_ kind: Kind) async throws {
        try await Setup.with { setup in try await sameForm(kind, setup) }
    }

    private func sameForm(_ kind: Kind, _ setup: Setup) async throws {
        _ = try await Self.migrateBoth(kind, setup)
        let records = setup.refreshTokenRecords
        try #require(records.count == 2)
        let (ours, theirs) = (records[0], records[1])
        #expect(ours.path == "/\(Self.tenant)/oauth2/v2.0/token")
        #expect(theirs.path == ours.path)
        #expect(ours.status == 200)
        #expect(theirs.status == 200)

        var ourForm = ours.form
        var theirForm = theirs.form
        // The one field that legitimately differs, in its order only (RFC 6749 §3.3: a scope is a
        // set): MSAL for Python 1.39 sends `' '.join(sorted(set(scopes) | {openid, profile,
        // offline_access}))` ("User.Read offline_access openid profile"); swift-msal the requested
        // scopes in order, then `openid profile offline_access`.
        let ourScope = ourForm.removeValue(forKey: "scope")
        let theirScope = theirForm.removeValue(forKey: "scope")
        #expect(Entries.words(ourScope) == Self.requestedScope)
        #expect(Entries.words(theirScope) == Self.requestedScope)
        #expect(theirScope == Entries.words(theirScope).sorted().joined(separator: " "), "MSAL for Python sorts the scopes")

        // Everything else is the same, names and values. MSAL for Python sends client_id,
        // grant_type, client_info=1 (its default body), the secret (in the body, no Basic
        // authentication), refresh_token and scope, and no claims without a challenge or
        // capabilities. The refresh token and the secret are `<redacted>` in the log on both sides,
        // so they compare too (present on both).
        let expectedFields: Set<String> = Set(["client_id", "grant_type", "refresh_token", "client_info"]).union(kind.credentialFields)
        #expect(Set(ourForm.keys) == expectedFields)
        #expect(Set(theirForm.keys) == expectedFields)
        #expect(ourForm == theirForm)
        #expect(ourForm["client_id"] == kind.clientID)
        #expect(ourForm["grant_type"] == "refresh_token")
        #expect(ourForm["client_info"] == "1")
        #expect(ourForm["refresh_token"] == "<redacted>")
    }

    // MARK: The cache entries

    @Test(
        "Both write the same sections, keys (documented shapes aside), members (documented extras aside) and values",
        arguments: Kind.allCases)
    func sameEntries(_ kind: Kind) async throws {
        try await Setup.with { setup in try await sameEntries(kind, setup) }
    }

    private func sameEntries(_ kind: Kind, _ setup: Setup) async throws {
        let both = try await Self.migrateBoth(kind, setup)
        let swiftText = try String(contentsOfFile: both.swiftCache, encoding: .utf8)
        let swiftKeepsGiven = swiftText.contains(both.swiftToken)
        #expect(!swiftKeepsGiven, "swift-msal cached the refresh token it was given")
        let pythonText = try String(contentsOfFile: both.pythonCache, encoding: .utf8)
        let pythonKeepsGiven = pythonText.contains(both.pythonToken)
        #expect(!pythonKeepsGiven, "MSAL for Python cached the refresh token it was given")

        try Entries.expectSame(
            swiftCache: both.swiftCache, pythonEntries: both.python.entries, client: kind.clientID,
            refreshTokenKeyClient: kind.familyID ?? kind.clientID, differences: Self.memberDifferences
        ) { section, ourEntry, _ in
            // The family id of a family client's refresh token and app metadata.
            if section == "RefreshToken" || section == "AppMetadata" { #expect(ourEntry["family_id"] as? String == kind.familyID) }
        }
    }

    // MARK: One shared cache file

    @Test(
        "swift-msal's migrated user is MSAL for Python's account, its access token served from the cache with 0 requests",
        arguments: Kind.allCases)
    func swiftMigratesPythonServes(_ kind: Kind) async throws {
        try await Setup.with { setup in try await swiftMigratesPythonServes(kind, setup) }
    }

    private func swiftMigratesPythonServes(_ kind: Kind, _ setup: Setup) async throws {
        let brought = try setup.emulator.mintRefreshToken(of: Self.username, clientID: kind.clientID)
        let ours = try await setup.migrationApp(kind, cachePath: setup.cachePath).migrate(brought)
        #expect(ours.tokenSource == .identityProvider)
        #expect(setup.refreshTokenGrants == 1)

        // No refresh token for MSAL for Python: it only lists the accounts and asks silently.
        let python = try await setup.migrationPython(kind, cacheFile: setup.cachePath, refreshToken: nil, thenSilent: true)
        let migratedNothing = python.result == nil
        #expect(migratedNothing, "MSAL for Python was given no refresh token")
        #expect(python.accounts == [Self.username])
        let silent = try #require(python.silent)
        #expect(silent["error"] as? String == nil, "MSAL for Python's silent call failed: \(silent["error_description"] ?? "")")
        #expect(silent["token_source"] as? String == "cache")
        let answeredWithOurs = silent["access_token"] as? String == ours.accessToken
        #expect(answeredWithOurs, "MSAL for Python answered with swift-msal's access token")
        #expect(python.tokenRequests == 0, "MSAL for Python found swift-msal's access token")
        #expect(setup.refreshTokenGrants == 1)
    }

    @Test(
        "MSAL for Python's migrated user is a new swift-msal application's account, served from the cache with no refresh",
        arguments: Kind.allCases)
    func pythonMigratesSwiftServes(_ kind: Kind) async throws {
        try await Setup.with { setup in try await pythonMigratesSwiftServes(kind, setup) }
    }

    private func pythonMigratesSwiftServes(_ kind: Kind, _ setup: Setup) async throws {
        let brought = try setup.emulator.mintRefreshToken(of: Self.username, clientID: kind.clientID)
        let python = try await setup.migrationPython(kind, cacheFile: setup.cachePath, refreshToken: brought, thenSilent: true)
        let result = try #require(python.result)
        #expect(result["error"] as? String == nil, "MSAL for Python's migration failed: \(result["error_description"] ?? "")")
        #expect(result["token_source"] as? String == "identity_provider")
        let theirs = try #require(result["access_token"] as? String)
        #expect(python.accounts == [Self.username])
        #expect(python.silent?["token_source"] as? String == "cache", "MSAL for Python serves its own migration")
        #expect(python.tokenRequests == 1)
        #expect(setup.refreshTokenGrants == 1)

        // A new swift-msal application (another process would be the same) on the file MSAL for Python wrote.
        let swift = try setup.migrationApp(kind, cachePath: setup.cachePath)
        let accounts = try await swift.accounts()
        #expect(accounts.map(\.username) == [Self.username])
        let account = try #require(accounts.first)
        let hit = try await swift.silent(account)
        #expect(hit.tokenSource == .cache)
        let answeredWithTheirs = hit.accessToken == theirs
        #expect(answeredWithTheirs, "swift-msal answered with MSAL for Python's access token")
        #expect(setup.refreshTokenGrants == 1, "swift-msal redeemed no refresh token")
    }

    // MARK: A refused refresh token

    @Test(
        "A revoked refresh token: invalid_grant on both sides (swift-msal: interactionRequired), nothing in either cache file",
        arguments: Kind.allCases)
    func refused(_ kind: Kind) async throws {
        try await Setup.with { setup in try await refused(kind, setup) }
    }

    private func refused(_ kind: Kind, _ setup: Setup) async throws {
        let swiftToken = try setup.emulator.mintRefreshToken(of: Self.username, clientID: kind.clientID)
        let pythonToken = try setup.emulator.mintRefreshToken(of: Self.username, clientID: kind.clientID)
        #expect(try setup.emulator.revokeRefreshTokens(of: Self.username) == 2)
        let swiftCache = setup.migrationCachePath("swift")
        let pythonCache = setup.migrationCachePath("python")

        let swift = try setup.migrationApp(kind, cachePath: swiftCache)
        var thrown: MSALFailure?
        do {
            _ = try await swift.migrate(swiftToken)
        } catch let error as MSALFailure {
            thrown = error
        }
        let error = try #require(thrown, "swift-msal migrated a revoked refresh token")
        #expect(error.code == .interactionRequired)
        #expect(error.internalCode == .internalErrorInvalidGrant)
        #expect(error.oauthError == "invalid_grant")
        let swiftQuotes = error.message.contains(swiftToken)
        #expect(!swiftQuotes, "swift-msal's error quotes the refresh token")

        let python = try await setup.migrationPython(kind, cacheFile: pythonCache, refreshToken: pythonToken)
        let result = try #require(python.result)
        #expect(result["error"] as? String == "invalid_grant")
        #expect(result["access_token"] as? String == nil)
        let pythonQuotes = (result["error_description"] as? String ?? "").contains(pythonToken)
        #expect(!pythonQuotes, "the provider's error description quotes the refresh token")
        #expect(python.tokenRequests == 1)
        #expect(setup.refreshTokenRecords.map(\.oauthError) == ["invalid_grant", "invalid_grant"])

        // Neither library cached anything: no account, no token, no app metadata.
        let swiftDocument = try Entries.document(swiftCache)
        let pythonDocument = try Entries.document(pythonCache)
        for section in Self.sections {
            #expect(Entries.section(swiftDocument, section).isEmpty, "swift-msal's \(section)")
            #expect(Entries.section(pythonDocument, section).isEmpty, "MSAL for Python's \(section)")
            #expect((python.entries[section] ?? []).isEmpty, "MSAL for Python's \(section), as it serialized it")
        }
        #expect(python.accounts.isEmpty)
        #expect(try await swift.accounts().isEmpty)
    }
}

extension PythonConfidentialClientInteropTests.Setup {
    /// The refresh_token grants the emulator answered (both libraries'), oldest first.
    var refreshTokenRecords: [MSALEmulator.RequestRecord] {
        emulator.requests.filter { $0.endpoint == .token && $0.grantType == .refreshToken }
    }

    var refreshTokenGrants: Int { emulator.requestCount(.token, grantType: .refreshToken) }

    /// A path for a new cache file of `label` in the setup's folder (nothing written there yet).
    func migrationCachePath(_ label: String) -> String { folder.appendingPathComponent("\(label)-\(UUID().uuidString).json").path }

    /// A swift-msal application of `kind` for the suite's tenant on the cache file at `cachePath`,
    /// reaching the emulator through its advertised origin.
    func migrationApp(
        _ kind: PythonRefreshTokenMigrationInteropTests.Kind, cachePath: String
    ) throws -> PythonRefreshTokenMigrationInteropTests.SwiftApp {
        let aad = try MSALAADAuthority(url: URL(string: authority(PythonRefreshTokenMigrationInteropTests.tenant))!)
        switch kind {
        case .publicFamily, .publicStandalone:
            let configuration = MSALPublicClientApplicationConfig(clientId: kind.clientID, redirectUri: nil, authority: aad)
            configuration.cacheConfig = MSALCacheConfig(storage: .file(path: cachePath))
            configuration.transport = AdvertisedOriginTransport(emulator)
            return .publicClient(try MSALPublicClientApplication(configuration: configuration))
        case .confidential:
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: kind.clientID, clientCredential: .secret(PythonConfidentialClientInteropTests.secret), authority: aad)
            configuration.cacheConfig = MSALCacheConfig(storage: .file(path: cachePath))
            configuration.transport = AdvertisedOriginTransport(emulator)
            return .confidentialClient(try MSALConfidentialClientApplication(configuration: configuration))
        }
    }

    /// Runs `migrate_refresh_token.py` for `kind` on `cacheFile`: migrating `refreshToken` (handed
    /// over in an owner-only file, never on the command line) when given, then listing the
    /// accounts, then asking silently when `thenSilent`.
    func migrationPython(
        _ kind: PythonRefreshTokenMigrationInteropTests.Kind, cacheFile: String, refreshToken: String?, thenSilent: Bool = false
    ) async throws -> PythonRefreshTokenMigrationInteropTests.PythonRun {
        typealias Suite = PythonRefreshTokenMigrationInteropTests
        var spec: [String: Any] = [
            "emulator": emulator.baseURL.absoluteString, "advertised": PythonConfidentialClientInteropTests.advertised,
            "authority": authority(Suite.tenant), "client_id": kind.clientID, "scopes": Suite.scopes, "cache_file": cacheFile,
            "then_silent": thenSilent,
        ]
        if kind == .confidential { spec["secret"] = PythonConfidentialClientInteropTests.secret }
        let tokenFile = folder.appendingPathComponent("refresh-token-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: tokenFile) }
        if let refreshToken {
            let written = FileManager.default.createFile(
                atPath: tokenFile.path, contents: Data(refreshToken.utf8), attributes: [.posixPermissions: 0o600])
            guard written else { throw PythonMSAL.Failure("could not write the refresh token file in \(folder.path)") }
            spec["refresh_token_file"] = tokenFile.path
        }
        let specURL = folder.appendingPathComponent("migration-spec-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: spec).write(to: specURL)
        let output = try await PythonMSAL.runChecked("migrate_refresh_token.py", [specURL.path]).jsonObject()

        let entries = try PythonSignInEntries.pythonEntries(output)
        return Suite.PythonRun(
            result: output["result"] as? [String: Any], accounts: try #require(output["accounts"] as? [String]),
            silent: output["silent"] as? [String: Any], tokenRequests: try #require(output["token_requests"] as? Int), entries: entries)
    }
}
