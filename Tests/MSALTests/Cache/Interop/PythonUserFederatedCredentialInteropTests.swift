import Foundation
import MSAL
import MSALEmulator
import Testing

/// swift-msal's `acquireTokenByUserFederatedIdentityCredential(with:)` against MSAL for Python
/// 1.39's `acquire_token_by_user_federated_identity_credential`, both pointed at one local provider
/// (the emulator, named `https://login.microsoftonline.com`), for the confidential client of
/// ``PythonConfidentialClientInteropTests`` (its secret) acting as an agent identity: its federated
/// identity credential is the app token swift-msal gets for it for
/// `api://AzureADTokenExchange/.default` (handed to MSAL for Python in an owner-only file, never on
/// the command line), and the user is Adele of the sample's Contoso tenant.
///
/// - both send the same `user_fic` form, by username and by object id: the same fields, the same
///   values (the credential and the secret `<redacted>` in the emulator's log on both sides),
///   `scope` the same set of words (only its order differs: MSAL for Python sorts it);
/// - both write the same cache sections and entries into a cache file of their own: the same keys
///   but for the documented shapes (the access token's `target` slot ordered differently; MSAL for
///   Python's refresh token key keeps the target), the same members but for the documented
///   extras (MSAL for Python's refresh token `target` and account `account_source`; swift-msal's
///   account `name` and `client_info`), with equal identifying values; neither writes the
///   credential;
/// - through one shared file, either library's `user_fic` answer is the other's cache hit with no
///   token request: MSAL for Python's `acquire_token_silent`, and swift-msal's
///   `acquireTokenByUserFederatedIdentityCredential` for the same user (by username, and by
///   object id), which sends no `user_fic` grant.
///
/// The `X-AnchorMailbox` header is not compared: the emulator's log keeps no headers.
@Suite("User federated identity credentials: swift-msal and MSAL for Python send the same user_fic and share its tokens", .serialized)
struct PythonUserFederatedCredentialInteropTests {
    typealias Setup = PythonConfidentialClientInteropTests.Setup
    typealias Entries = PythonSignInEntries

    static let tenant = Entries.tenant
    static let username = Entries.username
    static let scopes = ["User.Read"]
    /// The scope of the agent's credential: an app token for the token exchange.
    static let exchange = "api://AzureADTokenExchange/.default"
    /// The `scope` both send: the requested scope and the reserved ones.
    static let requestedScope: Set<String> = ["User.Read", "openid", "profile", "offline_access"]
    /// Members one library writes and the other does not, by section:
    ///
    /// - MSAL for Python keeps the refresh token's `target` (swift-msal's default write policy is
    ///   MSAL for iOS and .NET's, without it; refresh tokens are found by their other members);
    /// - MSAL for Python writes `account_source` `user_fic` in the account (it does so for the
    ///   grants that establish an account: authorization code, password, device code, broker and
    ///   user FIC; it reads it only to decide whether to use a broker); swift-msal writes no
    ///   `account_source` for any grant;
    /// - swift-msal keeps the ID token's `name` and the answer's `client_info` in the account
    ///   (optional members of the unified schema, which MSAL for Python leaves out).
    ///
    /// Anything else is the same.
    static let memberDifferences: Entries.MemberDifferences = [
        "AccessToken": ([], []), "RefreshToken": ([], ["target"]), "IdToken": ([], []),
        "Account": (["name", "client_info"], ["account_source"]), "AppMetadata": ([], []),
    ]

    /// How a request names the user.
    enum User {
        case username(String)
        case objectID(String)

        /// The form field that carries it.
        var field: String {
            switch self {
            case .username: "username"
            case .objectID: "user_id"
            }
        }

        var value: String {
            switch self {
            case .username(let name): name
            case .objectID(let id): id
            }
        }
    }

    /// `user_fic.py`'s modes.
    enum Mode: String {
        /// `acquire_token_by_user_federated_identity_credential`: always sends the grant.
        case userFIC = "user_fic"
        /// `get_accounts()`, the user's account, `acquire_token_silent`.
        case silent
    }

    /// What one `user_fic.py` run reported.
    struct PythonRun {
        /// The answer: `token_source`, `access_token`, `error`, `error_description`, `username`.
        var result: [String: Any]
        /// `get_accounts()` usernames after the call.
        var accounts: [String]
        /// POSTs to the token endpoint.
        var tokenRequests: Int
        /// The cache as MSAL for Python serializes it after the run, by section.
        var entries: [String: [Entries.PythonEntry]]

        var accessToken: String? { result["access_token"] as? String }
        var tokenSource: String? { result["token_source"] as? String }
        var error: String? { result["error"] as? String }
        var errorDescription: String { result["error_description"] as? String ?? "" }
    }

    /// Each library's `user_fic` for the same user, each into a cache file of its own.
    struct BothRedeemed {
        var credential: String
        var ours: MSALResult
        var swiftCache: String
        var python: PythonRun
        var pythonToken: String
        var pythonCache: String
    }

    /// The suite's user named by object id (Contoso is the user's home tenant).
    static func objectIDUser(_ setup: Setup) throws -> User {
        .objectID(try #require(setup.emulator.configuration.user(named: username)?.objectID))
    }

    static func parameters(_ user: User, credential: String) -> MSALUserFederatedIdentityCredentialParameters {
        switch user {
        case .username(let name): MSALUserFederatedIdentityCredentialParameters(scopes: scopes, assertion: credential, username: name)
        case .objectID(let id): MSALUserFederatedIdentityCredentialParameters(scopes: scopes, assertion: credential, userObjectId: id)
        }
    }

    /// swift-msal, then MSAL for Python, each sending `user_fic` for `user` with the same credential
    /// into a new cache file.
    static func redeemBoth(_ user: User, _ setup: Setup) async throws -> BothRedeemed {
        let credential = try await setup.userFICCredential()
        let swiftCache = setup.freshCachePath()
        let pythonCache = setup.freshCachePath()

        let ours = try await setup.userFICApplication(cachePath: swiftCache).acquireTokenByUserFederatedIdentityCredential(
            with: Self.parameters(user, credential: credential))
        #expect(ours.tokenSource == .identityProvider)
        #expect(ours.account.username == username)
        #expect(setup.userFICGrants == 1)

        let python = try await setup.userFICPython(.userFIC, cacheFile: pythonCache, user: user, credential: credential)
        #expect(python.error == nil, "MSAL for Python's user_fic failed: \(python.errorDescription)")
        #expect(python.tokenSource == "identity_provider")
        #expect(python.result["username"] as? String == username)
        #expect(python.tokenRequests == 1)
        #expect(setup.userFICGrants == 2)
        let pythonToken = try #require(python.accessToken, "MSAL for Python got no access token")
        return BothRedeemed(
            credential: credential, ours: ours, swiftCache: swiftCache, python: python, pythonToken: pythonToken, pythonCache: pythonCache)
    }

    /// The two `user_fic` forms the emulator logged (swift-msal's, then MSAL for Python's): both
    /// answered, at the tenant's token endpoint; the same fields and values once `scope` is taken
    /// out, and `scope` the same set of words in each (returned for the caller to check further).
    static func checkSameForm(_ user: User, _ setup: Setup) throws -> (ours: [String: String], theirs: [String: String]) {
        let records = setup.userFICRecords
        try #require(records.count == 2)
        let (ours, theirs) = (records[0], records[1])
        #expect(ours.path == "/\(tenant)/oauth2/v2.0/token")
        #expect(theirs.path == ours.path)
        #expect(ours.status == 200)
        #expect(theirs.status == 200)
        // The user the emulator saw named (it looks up a username, not an object id, for its log).
        #expect(ours.username == theirs.username)
        if case .username(let name) = user { #expect(ours.username == name) }

        var ourForm = ours.form
        var theirForm = theirs.form
        // The one field that legitimately differs, in its order only (RFC 6749 §3.3: a scope is a
        // set): MSAL for Python 1.39 sends `' '.join(sorted(set(scopes) | {openid, profile,
        // offline_access}))` ("User.Read offline_access openid profile"); swift-msal the requested
        // scopes in order, then `openid profile offline_access`.
        let ourScope = ourForm.removeValue(forKey: "scope")
        let theirScope = theirForm.removeValue(forKey: "scope")
        #expect(Entries.words(ourScope) == requestedScope)
        #expect(Entries.words(theirScope) == requestedScope)
        #expect(theirScope == Entries.words(theirScope).sorted().joined(separator: " "), "MSAL for Python sorts the scopes")

        // Everything else is the same, names and values. MSAL for Python sends client_id,
        // grant_type, client_info=1, the secret (in the body, no Basic authentication), scope,
        // user_federated_identity_credential and username or user_id, and no claims without a
        // challenge or capabilities. The credential and the secret are `<redacted>` in the log on
        // both sides, so they compare too (present on both).
        let expectedFields: Set<String> = [
            "client_id", "grant_type", "client_info", "client_secret", "user_federated_identity_credential", user.field,
        ]
        #expect(Set(ourForm.keys) == expectedFields)
        #expect(Set(theirForm.keys) == expectedFields)
        #expect(ourForm == theirForm)
        #expect(ourForm["client_id"] == PythonConfidentialClientInteropTests.clientID)
        #expect(ourForm["grant_type"] == "user_fic")
        #expect(ourForm["client_info"] == "1")
        #expect(ourForm["user_federated_identity_credential"] == "<redacted>")
        #expect(ourForm["client_secret"] == "<redacted>")
        #expect(ourForm[user.field] == user.value)
        #expect(theirForm[user.field] == user.value)
        return (ourForm, theirForm)
    }

    // MARK: The request

    @Test("By username: both send the same user_fic form, the same fields and values, scope the same set (MSAL for Python sorts it)")
    func sameForm() async throws {
        try await Setup.with { setup in try await sameForm(setup) }
    }

    private func sameForm(_ setup: Setup) async throws {
        let user = User.username(Self.username)
        _ = try await Self.redeemBoth(user, setup)
        let (ourForm, theirForm) = try Self.checkSameForm(user, setup)
        #expect(ourForm["user_id"] == nil)
        #expect(theirForm["user_id"] == nil)
    }

    @Test(
        "By object id: both send the same user_id (no username) and form; each finds the other's token by the object id with 0 requests")
    func byObjectID() async throws {
        try await Setup.with { setup in try await byObjectID(setup) }
    }

    private func byObjectID(_ setup: Setup) async throws {
        let user = try Self.objectIDUser(setup)
        let both = try await Self.redeemBoth(user, setup)
        let (ourForm, theirForm) = try Self.checkSameForm(user, setup)
        #expect(ourForm["username"] == nil)
        #expect(theirForm["username"] == nil)

        // A new swift-msal application on MSAL for Python's file finds its token by the object id
        // (the account's local_account_id in the tenant), sending nothing.
        let swift = try setup.userFICApplication(cachePath: both.pythonCache)
        let hit = try await swift.acquireTokenByUserFederatedIdentityCredential(with: Self.parameters(user, credential: both.credential))
        #expect(hit.tokenSource == .cache)
        let isTheirs = hit.accessToken == both.pythonToken
        #expect(isTheirs, "swift-msal answered with MSAL for Python's access token")

        // MSAL for Python on swift-msal's file: the account whose local_account_id is the object id.
        let python = try await setup.userFICPython(.silent, cacheFile: both.swiftCache, user: user, credential: nil)
        #expect(python.error == nil, "MSAL for Python's silent call failed: \(python.errorDescription)")
        #expect(python.tokenSource == "cache")
        let isOurs = python.accessToken == both.ours.accessToken
        #expect(isOurs, "MSAL for Python answered with swift-msal's access token")
        #expect(python.tokenRequests == 0)
        #expect(setup.userFICGrants == 2, "neither library sent the grant again")
    }

    // MARK: The cache entries

    @Test("Both write the same sections, keys (documented shapes aside), members (documented extras aside) and values; no credential")
    func sameEntries() async throws {
        try await Setup.with { setup in try await sameEntries(setup) }
    }

    private func sameEntries(_ setup: Setup) async throws {
        let both = try await Self.redeemBoth(.username(Self.username), setup)
        let swiftText = try String(contentsOfFile: both.swiftCache, encoding: .utf8)
        let pythonText = try String(contentsOfFile: both.pythonCache, encoding: .utf8)
        let swiftKeepsCredential = swiftText.contains(both.credential)
        #expect(!swiftKeepsCredential, "swift-msal cached the federated identity credential")
        let pythonKeepsCredential = pythonText.contains(both.credential)
        #expect(!pythonKeepsCredential, "MSAL for Python cached the federated identity credential")

        try Entries.expectSame(
            swiftCache: both.swiftCache, pythonEntries: both.python.entries, client: PythonConfidentialClientInteropTests.clientID,
            refreshTokenKeyClient: PythonConfidentialClientInteropTests.clientID, differences: Self.memberDifferences
        ) { section, ourEntry, their in
            switch section {
            case "AccessToken":
                let ourSecretIsOurs = ourEntry["secret"] as? String == both.ours.accessToken
                #expect(ourSecretIsOurs)
            case "Account":
                #expect(their.values["account_source"] == "user_fic")
            default:
                break
            }
        }
    }

    // MARK: One shared cache file

    @Test("swift-msal's user_fic answer is MSAL for Python's acquire_token_silent cache hit (0 requests, the same access token)")
    func swiftRedeemsPythonServes() async throws {
        try await Setup.with { setup in try await swiftRedeemsPythonServes(setup) }
    }

    private func swiftRedeemsPythonServes(_ setup: Setup) async throws {
        let user = User.username(Self.username)
        let credential = try await setup.userFICCredential()
        let swift = try setup.userFICApplication(cachePath: setup.cachePath)
        let ours = try await swift.acquireTokenByUserFederatedIdentityCredential(with: Self.parameters(user, credential: credential))
        #expect(ours.tokenSource == .identityProvider)
        #expect(setup.userFICGrants == 1)

        // No credential for MSAL for Python: it only lists the accounts and asks silently.
        let python = try await setup.userFICPython(.silent, cacheFile: setup.cachePath, user: user, credential: nil)
        #expect(python.accounts == [Self.username])
        #expect(python.error == nil, "MSAL for Python's silent call failed: \(python.errorDescription)")
        #expect(python.tokenSource == "cache")
        let answeredWithOurs = python.accessToken == ours.accessToken
        #expect(answeredWithOurs, "MSAL for Python answered with swift-msal's access token")
        #expect(python.tokenRequests == 0, "MSAL for Python found swift-msal's access token")
        #expect(setup.userFICGrants == 1)
    }

    @Test(
        "MSAL for Python's user_fic answer is swift-msal's cache hit: its user_fic call for the same user is answered from the file")
    func pythonRedeemsSwiftServes() async throws {
        try await Setup.with { setup in try await pythonRedeemsSwiftServes(setup) }
    }

    private func pythonRedeemsSwiftServes(_ setup: Setup) async throws {
        let user = User.username(Self.username)
        let credential = try await setup.userFICCredential()
        let python = try await setup.userFICPython(.userFIC, cacheFile: setup.cachePath, user: user, credential: credential)
        #expect(python.error == nil, "MSAL for Python's user_fic failed: \(python.errorDescription)")
        #expect(python.tokenSource == "identity_provider")
        let theirs = try #require(python.accessToken, "MSAL for Python got no access token")
        #expect(python.accounts == [Self.username])
        #expect(python.tokenRequests == 1)
        #expect(setup.userFICGrants == 1)

        // A new swift-msal application (another process would be the same) on the file MSAL for
        // Python wrote: the user_fic call for the same user is answered from it.
        let swift = try setup.userFICApplication(cachePath: setup.cachePath)
        for attempt in 1...2 {  // the second one once the application has read the file
            let hit = try await swift.acquireTokenByUserFederatedIdentityCredential(with: Self.parameters(user, credential: credential))
            #expect(hit.tokenSource == .cache, "attempt \(attempt)")
            let isTheirs = hit.accessToken == theirs
            #expect(isTheirs, "attempt \(attempt): swift-msal answered with MSAL for Python's access token")
            #expect(hit.account.username == Self.username, "attempt \(attempt)")
        }
        #expect(setup.userFICGrants == 1, "swift-msal sent no user_fic grant")
        #expect(setup.emulator.requestCount(.token, grantType: .refreshToken) == 0, "swift-msal redeemed no refresh token")
        let accounts = try await swift.allAccounts()
        #expect(accounts.map { $0.username ?? "" } == [Self.username])
    }
}

extension PythonConfidentialClientInteropTests.Setup {
    /// The user_fic grants the emulator answered (both libraries'), oldest first.
    var userFICRecords: [MSALEmulator.RequestRecord] {
        emulator.requests.filter { $0.endpoint == .token && $0.grantType == .userFederatedCredential }
    }

    var userFICGrants: Int { emulator.requestCount(.token, grantType: .userFederatedCredential) }

    /// A swift-msal application of the interop client (its secret) for the suite's tenant on the
    /// cache file at `cachePath` (in memory when `nil`), reaching the emulator through its
    /// advertised origin.
    func userFICApplication(cachePath: String?) throws -> MSALConfidentialClientApplication {
        let configuration = MSALConfidentialClientApplicationConfig(
            clientId: PythonConfidentialClientInteropTests.clientID, clientCredential: .secret(PythonConfidentialClientInteropTests.secret),
            authority: try MSALAADAuthority(url: URL(string: authority(PythonUserFederatedCredentialInteropTests.tenant))!))
        configuration.cacheConfig = cachePath.map { MSALCacheConfig(storage: .file(path: $0)) } ?? MSALCacheConfig.memory
        configuration.transport = AdvertisedOriginTransport(emulator)
        return try MSALConfidentialClientApplication(configuration: configuration)
    }

    /// The agent's federated identity credential: an app token of the interop client for the token
    /// exchange, got by swift-msal with a cache in memory (so that no cache file under test holds it).
    func userFICCredential() async throws -> String {
        let agent = try userFICApplication(cachePath: nil)
        return try await agent.acquireTokenForClient(scopes: [PythonUserFederatedCredentialInteropTests.exchange]).accessToken
    }

    /// Runs `user_fic.py` in `mode` on `cacheFile` for `user`, with `credential` (handed over in an
    /// owner-only file, never on the command line) when given.
    func userFICPython(
        _ mode: PythonUserFederatedCredentialInteropTests.Mode, cacheFile: String, user: PythonUserFederatedCredentialInteropTests.User,
        credential: String?
    ) async throws -> PythonUserFederatedCredentialInteropTests.PythonRun {
        typealias Suite = PythonUserFederatedCredentialInteropTests
        var spec: [String: Any] = [
            "emulator": emulator.baseURL.absoluteString, "advertised": PythonConfidentialClientInteropTests.advertised,
            "authority": authority(Suite.tenant), "client_id": PythonConfidentialClientInteropTests.clientID,
            "secret": PythonConfidentialClientInteropTests.secret, "scopes": Suite.scopes, "cache_file": cacheFile, "mode": mode.rawValue,
        ]
        switch user {
        case .username(let name): spec["username"] = name
        case .objectID(let id): spec["user_object_id"] = id
        }
        let credentialFile = folder.appendingPathComponent("credential-\(UUID().uuidString).jwt")
        defer { try? FileManager.default.removeItem(at: credentialFile) }
        if let credential {
            let written = FileManager.default.createFile(
                atPath: credentialFile.path, contents: Data(credential.utf8), attributes: [.posixPermissions: 0o600])
            guard written else { throw PythonMSAL.Failure("could not write the credential file in \(folder.path)") }
            spec["credential_file"] = credentialFile.path
        }
        let specURL = folder.appendingPathComponent("user-fic-spec-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: spec).write(to: specURL)
        let output = try await PythonMSAL.runChecked("user_fic.py", [specURL.path]).jsonObject()

        let entries = try PythonSignInEntries.pythonEntries(output)
        return Suite.PythonRun(
            result: try #require(output["result"] as? [String: Any]), accounts: try #require(output["accounts"] as? [String]),
            tokenRequests: try #require(output["token_requests"] as? Int), entries: entries)
    }
}
