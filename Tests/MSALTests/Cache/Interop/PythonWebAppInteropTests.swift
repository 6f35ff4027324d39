import Foundation
import MSAL
import MSALEmulator
import MSALJOSE
import Testing

/// A web app that runs its own sign-in redirect: swift-msal's
/// `authorizationRequestURL(with:state:nonce:codeChallenge:)` and
/// `acquireTokenByAuthorizationCode(code:scopes:redirectUri:codeVerifier:nonce:)` against MSAL for
/// Python 1.39's `get_authorization_request_url` and `acquire_token_by_authorization_code` (through
/// `web_app.py`), both pointed at one local provider (the emulator, named
/// `https://login.microsoftonline.com`), for a confidential client of their own (a secret and the
/// redirect URI `https://app.contoso.example/callback`) and Adele of the sample's Contoso tenant.
///
/// - For the same scopes, redirect URI, state, nonce, login hint, domain hint, prompt and S256
///   challenge, both authorization URLs name the same endpoint and carry the shared parameters
///   with the same values (`scope` the same set of words; MSAL for Python sorts it). swift-msal's
///   URL has more (``swiftOnlyParameters``), among them the PKCE challenge: MSAL for Python 1.39's
///   `get_authorization_request_url` takes `**kwargs` but reads only `authority` from them, so the
///   `code_challenge` and `code_challenge_method` it is given are dropped without a word, and a
///   web app on it adds them to the URL itself (the emulator, which requires PKCE, refuses the URL
///   as MSAL for Python built it). MSAL for Python's URL has nothing swift-msal's lacks.
/// - Each library redeems a code of its own, got by signing Adele in on its own URL (MSAL for
///   Python's with the challenge added) with the same challenge, state and nonce: the two
///   `authorization_code` requests have the same fields and values (the code, the verifier and the
///   secret `<redacted>` in the emulator's log on both sides; MSAL for Python passes the verifier in
///   `data`, as its own `acquire_token_by_auth_code_flow` does), `scope` the same set; the cache
///   entries are the same but for the documented shapes and members (``memberDifferences``: MSAL
///   for Python's account `account_source` `authorization_code`); neither cache keeps the code or
///   the verifier.
/// - Through one shared file, either library's redeemed user is the other's cache hit with no token
///   request: MSAL for Python's `get_accounts()` + `acquire_token_silent`, and a new swift-msal
///   application's `allAccounts()` + `acquireTokenSilent`.
/// - `excludeScopes` `["offline_access"]` and MSAL for Python's `exclude_scopes=["offline_access"]`:
///   neither URL nor redemption asks for `offline_access` (the same set of words on both sides),
///   and neither cache file gets a refresh token.
///
/// Headers (`X-AnchorMailbox`, telemetry) are not compared: the emulator's log keeps none.
@Suite("Web app sign-in: swift-msal and MSAL for Python build the same authorization URL, redeem codes alike, share the user", .serialized)
struct PythonWebAppInteropTests {
    typealias Entries = PythonSignInEntries

    static let clientID = "3a5c7e9b-1d2f-4a6b-8c0d-2e4f6a8b0c1e"
    static let secret = "interop~web-app.secret-7"
    static let redirectURI = "https://app.contoso.example/callback"
    static let advertised = PythonConfidentialClientInteropTests.advertised
    static let tenant = Entries.tenant
    static let username = Entries.username
    static let scopes = ["User.Read"]
    static let state = "web-app-state-1"
    static let nonce = "web-app-nonce-1"
    static let domainHint = "contoso.example"
    /// `MSALPromptType.selectAccount` as the `prompt` both send (MSAL for Python takes the string).
    static let prompt = "select_account"
    /// The PKCE verifier both redeem with (RFC 7636: 43 to 128 unreserved characters).
    static let verifier = String(repeating: "w", count: 24) + "-._~0123456789ABCDEFabc"
    /// The `scope` both send: the requested scope and the reserved ones.
    static let requestedScope: Set<String> = ["User.Read", "openid", "profile", "offline_access"]
    /// The `scope` both send with `offline_access` excluded.
    static let scopeWithoutOfflineAccess: Set<String> = ["User.Read", "openid", "profile"]

    /// The authorization URL's parameters both libraries send, with the same values (`scope` as a set).
    static let sharedParameters: Set<String> = [
        "client_id", "response_type", "redirect_uri", "scope", "state", "nonce", "prompt", "login_hint", "domain_hint",
    ]
    /// The authorization URL's parameters only swift-msal sends, and why MSAL for Python's
    /// `get_authorization_request_url` does not:
    ///
    /// - `code_challenge`, `code_challenge_method`: the method has no PKCE parameter; it drops the
    ///   keyword arguments `code_challenge` and `code_challenge_method` it is given (a limitation of
    ///   the deprecated method: MSAL for Python's `initiate_auth_code_flow` sends PKCE, with a
    ///   verifier of its own making);
    /// - `client_info` `1`: MSAL for Python adds it in `initiate_auth_code_flow` only; swift-msal
    ///   sends it in every authorization URL for a Microsoft authority, as MSAL.NET does (the token
    ///   request carries it on both sides anyway);
    /// - `response_mode` `query`: MSAL for Python sends none, which for `response_type=code` means
    ///   `query` (OAuth 2.0 Multiple Response Type Encoding Practices §2.1): the same answer;
    /// - `x-client-SKU` `MSAL.Swift.Linux`, `x-client-Ver`: swift-msal's telemetry, in the query as
    ///   MSAL.NET and MSAL for iOS put it; MSAL for Python sends no SKU in an authorization URL.
    static let swiftOnlyParameters: Set<String> = [
        "code_challenge", "code_challenge_method", "client_info", "response_mode", "x-client-SKU", "x-client-Ver",
    ]
    /// The keyword arguments `web_app.py` passes to `get_authorization_request_url` beyond its
    /// named parameters: the PKCE challenge, which MSAL for Python 1.39 drops.
    static let pythonPKCEKeywordArguments = ["code_challenge", "code_challenge_method"]
    /// The `authorization_code` form fields both send.
    static let redemptionFields: Set<String> = [
        "client_id", "grant_type", "code", "redirect_uri", "code_verifier", "client_info", "client_secret",
    ]
    /// Members one library writes and the other does not, by section:
    ///
    /// - MSAL for Python keeps the refresh token's `target` (swift-msal's default write policy is
    ///   MSAL for iOS and .NET's, without it; refresh tokens are found by their other members);
    /// - MSAL for Python writes `account_source` `authorization_code` in the account (it does so
    ///   for the grants that establish an account: authorization code, password, device code,
    ///   broker and user FIC; it reads it only to decide whether to use a broker); swift-msal writes
    ///   no `account_source` for any grant;
    /// - swift-msal keeps the ID token's `name` and the answer's `client_info` in the account
    ///   (optional members of the unified schema, which MSAL for Python leaves out).
    ///
    /// Anything else is the same.
    static let memberDifferences: Entries.MemberDifferences = [
        "AccessToken": ([], []), "RefreshToken": ([], ["target"]), "IdToken": ([], []),
        "Account": (["name", "client_info"], ["account_source"]), "AppMetadata": ([], []),
    ]

    /// `web_app.py`'s modes.
    enum Mode: String {
        /// `get_authorization_request_url`: prints the URL.
        case url
        /// `acquire_token_by_authorization_code` with the verifier and the nonce.
        case redeem
        /// `get_accounts()`, the user's account, `acquire_token_silent`.
        case silent
    }

    /// What one `web_app.py` run reported.
    struct PythonRun {
        /// Mode url: the URL as MSAL for Python built it.
        var url: String?
        /// Mode url: the keyword arguments passed beyond the named parameters.
        var urlKeywordArguments: [String]
        /// Modes redeem and silent: `token_source`, `access_token`, `error`, `error_description`, `username`.
        var result: [String: Any]?
        /// `get_accounts()` usernames after the call.
        var accounts: [String]
        /// POSTs to the token endpoint.
        var tokenRequests: Int
        /// The cache as MSAL for Python serializes it after the run, by section.
        var entries: [String: [Entries.PythonEntry]]

        var accessToken: String? { result?["access_token"] as? String }
        var tokenSource: String? { result?["token_source"] as? String }
        var error: String? { result?["error"] as? String }
        var errorDescription: String { result?["error_description"] as? String ?? "" }
    }

    /// Each library's sign-in and code redemption, each into a cache file of its own.
    struct BothRedeemed {
        /// swift-msal's authorization URL.
        var ourURL: URL
        /// MSAL for Python's, as it built it (without the challenge).
        var theirURL: URL
        var ours: MSALResult
        var swiftCache: String
        var python: PythonRun
        var pythonToken: String
        var pythonCache: String
        /// The two codes, swift-msal's then MSAL for Python's.
        var codes: [String]
    }

    /// A started emulator with the suite's web app registered, advertised as
    /// `https://login.microsoftonline.com`, and a folder for the cache files.
    final class Setup {
        typealias Suite = PythonWebAppInteropTests

        let folder: URL
        let emulator: MSALEmulator

        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-web-py-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var configuration = MSALEmulator.Configuration.sample
            configuration.advertisedOrigin = Suite.advertised
            configuration.clients.append(
                MSALEmulator.Client(
                    clientID: Suite.clientID, displayName: "Interop web app", redirectURIs: [Suite.redirectURI],
                    credentials: [.secret(Suite.secret)]))
            emulator = try MSALEmulator(configuration: configuration)
            try await emulator.start()
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        /// The suite's authority: the Contoso tenant under the advertised origin.
        var authority: String { "\(Suite.advertised)/\(Suite.tenant)" }

        /// A path for a new cache file in the folder.
        func freshCachePath() -> String { folder.appendingPathComponent("cache-\(UUID().uuidString).json").path }

        /// The authorization_code requests the emulator answered (both libraries'), oldest first.
        var codeRecords: [MSALEmulator.RequestRecord] {
            emulator.requests.filter { $0.endpoint == .token && $0.grantType == .authorizationCode }
        }

        var codeGrants: Int { emulator.requestCount(.token, grantType: .authorizationCode) }

        /// A swift-msal application of the web app on the cache file at `cachePath` (in memory when
        /// `nil`), reaching the emulator through its advertised origin.
        func swiftApplication(cachePath: String?, excludeScopes: [String]? = nil) throws -> MSALConfidentialClientApplication {
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: Suite.clientID, clientCredential: .secret(Suite.secret),
                authority: try MSALAADAuthority(url: URL(string: authority)!))
            configuration.cacheConfig = cachePath.map { MSALCacheConfig(storage: .file(path: $0)) } ?? MSALCacheConfig.memory
            configuration.excludeScopes = excludeScopes
            configuration.transport = AdvertisedOriginTransport(emulator)
            return try MSALConfidentialClientApplication(configuration: configuration)
        }

        /// Signs Adele in on `url` (an authorization URL on the advertised origin, visited where the
        /// emulator listens) and returns the redirect's parameters.
        func signInAnswer(_ url: URL) async throws -> [String: String] {
            let advertised = emulator.advertisedBaseURL.absoluteString
            let text = url.absoluteString
            try #require(text.hasPrefix(advertised + "/"), "the authorization URL is not on the advertised origin")
            let local = try #require(URL(string: emulator.baseURL.absoluteString + text.dropFirst(advertised.count)))
            let redirect = try await MSALEmulator.SignInDriver(username: Suite.username).signIn(authorizationURL: local)
            let isOurRedirectURI = redirect.absoluteString.hasPrefix(Suite.redirectURI + "?")
            #expect(isOurRedirectURI, "the emulator redirected to the web app's redirect URI")
            return Suite.parameters(redirect)
        }

        /// Signs Adele in on `url` and returns the code of the redirect, which carries the suite's state.
        func signIn(_ url: URL) async throws -> String {
            let answer = try await signInAnswer(url)
            #expect(answer["error"] == nil, "the sign-in failed: \(answer["error_description"] ?? "")")
            #expect(answer["state"] == Suite.state)
            return try #require(answer["code"], "the redirect carries no code")
        }

        /// Runs `web_app.py` in `mode` on `cacheFile`: mode url with the suite's values and
        /// `challenge`; mode redeem with `code` and the suite's verifier (each handed over in an
        /// owner-only file, never on the command line) and nonce; mode silent for Adele.
        func python(
            _ mode: Suite.Mode, cacheFile: String, excludeScopes: [String]? = nil, challenge: String? = nil, code: String? = nil
        ) async throws -> Suite.PythonRun {
            var spec: [String: Any] = [
                "emulator": emulator.baseURL.absoluteString, "advertised": Suite.advertised, "authority": authority,
                "client_id": Suite.clientID, "secret": Suite.secret, "scopes": Suite.scopes, "cache_file": cacheFile, "mode": mode.rawValue,
            ]
            if let excludeScopes { spec["exclude_scopes"] = excludeScopes }
            var files: [URL] = []
            defer { for file in files { try? FileManager.default.removeItem(at: file) } }
            switch mode {
            case .url:
                spec["redirect_uri"] = Suite.redirectURI
                spec["state"] = Suite.state
                spec["nonce"] = Suite.nonce
                spec["login_hint"] = Suite.username
                spec["domain_hint"] = Suite.domainHint
                spec["prompt"] = Suite.prompt
                if let challenge {
                    spec["code_challenge"] = challenge
                    spec["code_challenge_method"] = "S256"
                }
            case .redeem:
                spec["redirect_uri"] = Suite.redirectURI
                spec["nonce"] = Suite.nonce
                let redeemed = try #require(code, "mode redeem needs a code")
                files.append(try ownerOnlyFile(redeemed, "code"))
                spec["code_file"] = files[files.count - 1].path
                files.append(try ownerOnlyFile(Suite.verifier, "verifier"))
                spec["code_verifier_file"] = files[files.count - 1].path
            case .silent:
                spec["username"] = Suite.username
            }
            let specURL = folder.appendingPathComponent("web-app-spec-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: spec).write(to: specURL)
            files.append(specURL)
            let output = try await PythonMSAL.runChecked("web_app.py", [specURL.path]).jsonObject()
            return Suite.PythonRun(
                url: output["url"] as? String, urlKeywordArguments: output["url_kwargs"] as? [String] ?? [],
                result: output["result"] as? [String: Any], accounts: try #require(output["accounts"] as? [String]),
                tokenRequests: try #require(output["token_requests"] as? Int), entries: try PythonSignInEntries.pythonEntries(output))
        }

        /// A file in the folder holding `contents`, readable by its owner only.
        private func ownerOnlyFile(_ contents: String, _ name: String) throws -> URL {
            let url = folder.appendingPathComponent("\(name)-\(UUID().uuidString).txt")
            let written = FileManager.default.createFile(
                atPath: url.path, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o600])
            guard written else { throw PythonMSAL.Failure("could not write the \(name) file in \(folder.path)") }
            return url
        }

        func shutdown() async { try? await emulator.shutdown() }

        /// Runs `body` with a started emulator and a fresh folder, shut down afterwards.
        static func with(_ body: (Setup) async throws -> Void) async throws {
            let setup = try await Setup()
            do {
                try await body(setup)
            } catch {
                await setup.shutdown()
                throw error
            }
            await setup.shutdown()
        }
    }

    // MARK: Helpers

    /// The S256 challenge of ``verifier``: base64url(SHA-256(verifier)).
    static func s256Challenge() throws -> String {
        Base64URL.encode(try MessageDigest.sha256(Array(verifier.utf8)))
    }

    /// The query parameters of `url` decoded as a form (`+` a space), each name once (a repeated
    /// name is a failure).
    static func parameters(_ url: URL) -> [String: String] {
        let pairs = MSALFormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        let names = pairs.map { $0.0 }
        #expect(Set(names).count == names.count, "a query parameter is repeated: \(names)")
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// `url` without its query: the endpoint it names.
    static func endpoint(_ url: URL) -> String? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.query = nil
        components.fragment = nil
        return components.string
    }

    /// swift-msal's authorization URL for the suite's values and `challenge`.
    static func swiftURL(_ app: MSALConfidentialClientApplication, challenge: String) async throws -> URL {
        let parameters = MSALAuthorizationCodeParameters(scopes: scopes, redirectUri: redirectURI)
        parameters.promptType = .selectAccount
        parameters.loginHint = username
        parameters.domainHint = domainHint
        return try await app.authorizationRequestURL(with: parameters, state: state, nonce: nonce, codeChallenge: challenge)
    }

    /// MSAL for Python's authorization URL for the suite's values, as it built it (`challenge`
    /// passed as the keyword arguments `code_challenge` and `code_challenge_method`).
    static func pythonURL(_ setup: Setup, cacheFile: String, excludeScopes: [String]? = nil, challenge: String) async throws -> URL {
        let run = try await setup.python(.url, cacheFile: cacheFile, excludeScopes: excludeScopes, challenge: challenge)
        #expect(run.urlKeywordArguments == pythonPKCEKeywordArguments)
        #expect(run.tokenRequests == 0)
        let text = try #require(run.url, "web_app.py printed no URL")
        return try #require(URL(string: text))
    }

    /// What a web app on MSAL for Python 1.39 does to send PKCE with `get_authorization_request_url`:
    /// `url` with `code_challenge` and `code_challenge_method=S256` added to its query.
    static func addingPKCE(_ url: URL, challenge: String) throws -> URL {
        #expect(parameters(url)["code_challenge"] == nil, "MSAL for Python's URL already has a challenge")
        let added = MSALFormEncoding.encode([("code_challenge", challenge), ("code_challenge_method", "S256")])
        return try #require(URL(string: url.absoluteString + (url.query == nil ? "?" : "&") + added))
    }

    /// swift-msal, then MSAL for Python, each building its authorization URL for the same values
    /// (MSAL for Python's with the challenge added), signing Adele in on it, and redeeming the code
    /// with the same verifier and nonce into a new cache file.
    static func redeemBoth(_ setup: Setup, excludeScopes: [String]? = nil) async throws -> BothRedeemed {
        let challenge = try s256Challenge()
        let swiftCache = setup.freshCachePath()
        let pythonCache = setup.freshCachePath()

        let app = try setup.swiftApplication(cachePath: swiftCache, excludeScopes: excludeScopes)
        let ourURL = try await swiftURL(app, challenge: challenge)
        let ourCode = try await setup.signIn(ourURL)
        let ours = try await app.acquireTokenByAuthorizationCode(
            code: ourCode, scopes: scopes, redirectUri: redirectURI, codeVerifier: verifier, nonce: nonce)
        #expect(ours.tokenSource == .identityProvider)
        #expect(ours.account.username == username)
        #expect(setup.codeGrants == 1)

        let theirURL = try await pythonURL(setup, cacheFile: pythonCache, excludeScopes: excludeScopes, challenge: challenge)
        let theirCode = try await setup.signIn(try addingPKCE(theirURL, challenge: challenge))
        let python = try await setup.python(.redeem, cacheFile: pythonCache, excludeScopes: excludeScopes, code: theirCode)
        #expect(python.error == nil, "MSAL for Python's code redemption failed: \(python.errorDescription)")
        #expect(python.tokenSource == "identity_provider")
        #expect(python.result?["username"] as? String == username)
        #expect(python.accounts == [username])
        #expect(python.tokenRequests == 1)
        #expect(setup.codeGrants == 2)
        let pythonToken = try #require(python.accessToken, "MSAL for Python got no access token")
        return BothRedeemed(
            ourURL: ourURL, theirURL: theirURL, ours: ours, swiftCache: swiftCache, python: python, pythonToken: pythonToken,
            pythonCache: pythonCache, codes: [ourCode, theirCode])
    }

    /// The two `authorization_code` forms the emulator logged (swift-msal's, then MSAL for
    /// Python's): both answered at the tenant's token endpoint for Adele, the same fields and
    /// values once `scope` is taken out, and `scope` the set `expectedScope` in each.
    static func checkSameForm(_ setup: Setup, scope expectedScope: Set<String>) throws {
        let records = setup.codeRecords
        try #require(records.count == 2)
        let (ours, theirs) = (records[0], records[1])
        #expect(ours.path == "/\(tenant)/oauth2/v2.0/token")
        #expect(theirs.path == ours.path)
        #expect(ours.status == 200)
        #expect(theirs.status == 200)
        #expect(ours.username == username)
        #expect(theirs.username == username)

        var ourForm = ours.form
        var theirForm = theirs.form
        // The one field that differs, in its order only (RFC 6749 §3.3: a scope is a set): MSAL for
        // Python 1.39 sends `' '.join(sorted(set(scopes) | reserved - exclude_scopes))`; swift-msal
        // the requested scopes in order, then the reserved ones not excluded.
        let ourScope = ourForm.removeValue(forKey: "scope")
        let theirScope = theirForm.removeValue(forKey: "scope")
        #expect(Entries.words(ourScope) == expectedScope)
        #expect(Entries.words(theirScope) == expectedScope)
        #expect(theirScope == Entries.words(theirScope).sorted().joined(separator: " "), "MSAL for Python sorts the scopes")

        // Everything else is the same, names and values: client_id, grant_type, code,
        // redirect_uri, code_verifier (MSAL for Python's from `data`), client_info=1 (its default
        // body), the secret in the body (no Basic authentication on either side), and no claims
        // without a challenge or capabilities. The code, the verifier and the secret are
        // `<redacted>` in the log on both sides, so they compare too (present on both).
        #expect(Set(ourForm.keys) == redemptionFields)
        #expect(Set(theirForm.keys) == redemptionFields)
        #expect(ourForm == theirForm)
        #expect(ourForm["client_id"] == clientID)
        #expect(ourForm["grant_type"] == "authorization_code")
        #expect(ourForm["redirect_uri"] == redirectURI)
        #expect(ourForm["client_info"] == "1")
        #expect(ourForm["code"] == "<redacted>")
        #expect(ourForm["code_verifier"] == "<redacted>")
        #expect(ourForm["client_secret"] == "<redacted>")
    }

    // MARK: The authorization URL

    @Test("Same authorization URL: the same endpoint, shared parameters and values (scope a set); swift-msal's extras; no PKCE in Python's")
    func sameAuthorizationURL() async throws {
        try await Setup.with { setup in try await sameAuthorizationURL(setup) }
    }

    private func sameAuthorizationURL(_ setup: Setup) async throws {
        let challenge = try Self.s256Challenge()
        let app = try setup.swiftApplication(cachePath: nil)
        let ourURL = try await Self.swiftURL(app, challenge: challenge)
        let theirURL = try await Self.pythonURL(setup, cacheFile: setup.freshCachePath(), challenge: challenge)

        let authorizeEndpoint = "\(Self.advertised)/\(Self.tenant)/oauth2/v2.0/authorize"
        #expect(Self.endpoint(ourURL) == authorizeEndpoint)
        #expect(Self.endpoint(theirURL) == authorizeEndpoint)

        let ours = Self.parameters(ourURL)
        let theirs = Self.parameters(theirURL)
        let ourNames = Set(ours.keys)
        let theirNames = Set(theirs.keys)
        #expect(ourNames.intersection(theirNames) == Self.sharedParameters, "the parameters both send")
        #expect(ourNames.subtracting(theirNames) == Self.swiftOnlyParameters, "the parameters only swift-msal sends")
        let pythonOnly = theirNames.subtracting(ourNames)
        #expect(pythonOnly.isEmpty, "parameters only MSAL for Python sends: \(pythonOnly.sorted())")

        // The shared parameters: the same values, the ones given (scope as a set of words).
        for name in Self.sharedParameters.subtracting(["scope"]).sorted() {
            #expect(ours[name] == theirs[name], "\(name)")
        }
        let expected: [String: String] = [
            "client_id": Self.clientID, "response_type": "code", "redirect_uri": Self.redirectURI, "state": Self.state,
            "nonce": Self.nonce, "prompt": Self.prompt, "login_hint": Self.username, "domain_hint": Self.domainHint,
        ]
        for (name, value) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(ours[name] == value, "\(name)")
        }
        #expect(Entries.words(ours["scope"]) == Self.requestedScope)
        #expect(Entries.words(theirs["scope"]) == Self.requestedScope)
        let theirScope = theirs["scope"]
        #expect(theirScope == Entries.words(theirScope).sorted().joined(separator: " "), "MSAL for Python sorts the scopes")

        // swift-msal's extras (``swiftOnlyParameters`` says why MSAL for Python has none of them).
        #expect(ours["code_challenge"] == challenge)
        #expect(ours["code_challenge_method"] == "S256")
        #expect(ours["client_info"] == "1")
        #expect(ours["response_mode"] == "query")
        #expect(ours["x-client-SKU"] == "MSAL.Swift.Linux")
        #expect(ours["x-client-Ver"] == MSALVersion)

        // MSAL for Python's URL as it built it has no challenge: the emulator, which requires PKCE,
        // sends the browser back with invalid_request. With the challenge added it signs Adele in.
        let refused = try await setup.signInAnswer(theirURL)
        #expect(refused["error"] == "invalid_request")
        #expect(refused["code"] == nil)
        #expect(refused["state"] == Self.state)
        let code = try await setup.signIn(try Self.addingPKCE(theirURL, challenge: challenge))
        #expect(!code.isEmpty)
        #expect(setup.emulator.requestCount(.token) == 0, "building a URL sends no token request")
    }

    // MARK: The code redemption

    @Test("Same code redemption: the same authorization_code fields and values (code, verifier, secret redacted), scope the same set")
    func sameRedemption() async throws {
        try await Setup.with { setup in try await sameRedemption(setup) }
    }

    private func sameRedemption(_ setup: Setup) async throws {
        _ = try await Self.redeemBoth(setup)
        try Self.checkSameForm(setup, scope: Self.requestedScope)
    }

    @Test("Same entries after a code redemption: sections, keys (documented shapes aside), members (account_source aside), values; no code")
    func sameEntries() async throws {
        try await Setup.with { setup in try await sameEntries(setup) }
    }

    private func sameEntries(_ setup: Setup) async throws {
        let both = try await Self.redeemBoth(setup)
        let swiftText = try String(contentsOfFile: both.swiftCache, encoding: .utf8)
        let pythonText = try String(contentsOfFile: both.pythonCache, encoding: .utf8)
        for (library, text) in [("swift-msal", swiftText), ("MSAL for Python", pythonText)] {
            let keepsCode = both.codes.contains { text.contains($0) }
            #expect(!keepsCode, "\(library) cached an authorization code")
            let keepsVerifier = text.contains(Self.verifier)
            #expect(!keepsVerifier, "\(library) cached the code verifier")
        }

        try Entries.expectSame(
            swiftCache: both.swiftCache, pythonEntries: both.python.entries, client: Self.clientID, refreshTokenKeyClient: Self.clientID,
            differences: Self.memberDifferences
        ) { section, ourEntry, their in
            switch section {
            case "AccessToken":
                let ourSecretIsOurs = ourEntry["secret"] as? String == both.ours.accessToken
                #expect(ourSecretIsOurs, "swift-msal's access token entry holds its answer")
            case "Account":
                #expect(their.values["account_source"] == "authorization_code")
            default:
                break
            }
        }
    }

    // MARK: One shared cache file

    @Test("swift-msal's redeemed user is MSAL for Python's get_accounts() and acquire_token_silent cache hit (0 token requests)")
    func swiftRedeemsPythonServes() async throws {
        try await Setup.with { setup in try await swiftRedeemsPythonServes(setup) }
    }

    private func swiftRedeemsPythonServes(_ setup: Setup) async throws {
        let cache = setup.freshCachePath()
        let app = try setup.swiftApplication(cachePath: cache)
        let url = try await Self.swiftURL(app, challenge: try Self.s256Challenge())
        let code = try await setup.signIn(url)
        let ours = try await app.acquireTokenByAuthorizationCode(
            code: code, scopes: Self.scopes, redirectUri: Self.redirectURI, codeVerifier: Self.verifier, nonce: Self.nonce)
        #expect(ours.tokenSource == .identityProvider)
        #expect(setup.codeGrants == 1)

        let python = try await setup.python(.silent, cacheFile: cache)
        #expect(python.accounts == [Self.username])
        #expect(python.error == nil, "MSAL for Python's silent call failed: \(python.errorDescription)")
        #expect(python.tokenSource == "cache")
        let answeredWithOurs = python.accessToken == ours.accessToken
        #expect(answeredWithOurs, "MSAL for Python answered with swift-msal's access token")
        #expect(python.tokenRequests == 0, "MSAL for Python found swift-msal's access token")
        #expect(setup.emulator.requestCount(.token) == 1, "only swift-msal's code redemption reached the token endpoint")
    }

    @Test("MSAL for Python's redeemed user is a new swift-msal application's account, and acquireTokenSilent answers from the file")
    func pythonRedeemsSwiftServes() async throws {
        try await Setup.with { setup in try await pythonRedeemsSwiftServes(setup) }
    }

    private func pythonRedeemsSwiftServes(_ setup: Setup) async throws {
        let cache = setup.freshCachePath()
        let challenge = try Self.s256Challenge()
        let url = try await Self.pythonURL(setup, cacheFile: cache, challenge: challenge)
        let code = try await setup.signIn(try Self.addingPKCE(url, challenge: challenge))
        let python = try await setup.python(.redeem, cacheFile: cache, code: code)
        #expect(python.error == nil, "MSAL for Python's code redemption failed: \(python.errorDescription)")
        #expect(python.tokenSource == "identity_provider")
        let theirs = try #require(python.accessToken, "MSAL for Python got no access token")
        #expect(python.accounts == [Self.username])
        #expect(python.tokenRequests == 1)
        #expect(setup.codeGrants == 1)

        // A new swift-msal application (another process would be the same) on the file MSAL for
        // Python wrote lists Adele and answers silently from the file.
        let swift = try setup.swiftApplication(cachePath: cache)
        let accounts = try await swift.allAccounts()
        #expect(accounts.map { $0.username ?? "" } == [Self.username])
        let account = try #require(accounts.first)
        for attempt in 1...2 {  // the second one once the application has read the file
            let hit = try await swift.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: Self.scopes, account: account))
            #expect(hit.tokenSource == .cache, "attempt \(attempt)")
            let isTheirs = hit.accessToken == theirs
            #expect(isTheirs, "attempt \(attempt): swift-msal answered with MSAL for Python's access token")
            #expect(hit.account.username == Self.username, "attempt \(attempt)")
        }
        #expect(setup.emulator.requestCount(.token) == 1, "swift-msal sent no token request")
    }

    // MARK: excludeScopes

    @Test("excludeScopes and exclude_scopes [offline_access]: neither URL nor redemption asks for offline_access; no refresh token cached")
    func excludeOfflineAccess() async throws {
        try await Setup.with { setup in try await excludeOfflineAccess(setup) }
    }

    private func excludeOfflineAccess(_ setup: Setup) async throws {
        let both = try await Self.redeemBoth(setup, excludeScopes: ["offline_access"])

        // The URLs: the same scope set, without offline_access.
        let ourScope = Entries.words(Self.parameters(both.ourURL)["scope"])
        let theirScope = Entries.words(Self.parameters(both.theirURL)["scope"])
        #expect(ourScope == Self.scopeWithoutOfflineAccess)
        #expect(theirScope == ourScope)

        // The redemptions: the same form, scope the same set without offline_access.
        try Self.checkSameForm(setup, scope: Self.scopeWithoutOfflineAccess)

        // Without offline_access the emulator issues no refresh token; neither cache file has one,
        // both have the user's access token.
        let swiftDocument = try Entries.document(both.swiftCache)
        let pythonDocument = try Entries.document(both.pythonCache)
        #expect(Entries.section(swiftDocument, "RefreshToken").isEmpty, "swift-msal cached a refresh token")
        #expect(Entries.section(pythonDocument, "RefreshToken").isEmpty, "MSAL for Python cached a refresh token")
        #expect((both.python.entries["RefreshToken"] ?? []).isEmpty)
        #expect(Entries.section(swiftDocument, "AccessToken").count == 1)
        #expect(Entries.section(pythonDocument, "AccessToken").count == 1)
        let targets = Entries.section(pythonDocument, "AccessToken").values.map { Entries.words($0["target"] as? String) }
        #expect(targets == [Entries.grantedTarget])
    }
}
