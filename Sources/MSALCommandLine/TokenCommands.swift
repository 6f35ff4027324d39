import ArgumentParser
import Foundation
import MSAL
import MSALJOSE
import MSALJSON
import MSALTesting

/// Options shared by `msal login`, `msal token` and `msal logout`: which application, authority,
/// scopes, cache and transport.
struct ApplicationOptions: ParsableArguments {
    @Option(name: .customLong("client-id"), help: "The application (client) id. Default: $MSAL_CLIENT_ID.")
    var clientID: String?

    @Option(help: "The authority. Default: https://login.microsoftonline.com/common.")
    var authority: String?

    @Option(
        name: .customLong("authority-kind"),
        help: "The kind of authority: auto reads it from the URL; a generic OpenID Connect provider needs oidc.")
    var authorityKind: AuthorityKindOption = .auto

    @Option(help: ArgumentHelp("The scopes, separated by spaces or commas. Default: User.Read.", valueName: "scopes"))
    var scopes: String = "User.Read"

    @Option(name: .customLong("redirect-uri"), help: "The redirect URI. Default: http://localhost on an ephemeral port.")
    var redirectURI: String?

    @OptionGroup var cache: CacheFileOptions

    @OptionGroup var network: NetworkOptions

    @Flag(name: .customLong("allow-http-loopback"), help: "Allow a plain-http authority on a loopback host (local identity providers).")
    var allowHTTPLoopback = false

    @Flag(
        name: .customLong("broker"),
        help: "Use Microsoft's Linux identity broker on the session bus for Entra ID authorities (the browser when none answers).")
    var broker = false

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    var scopeList: [String] {
        scopes.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    }

    /// The application these options describe. With `anyCloud` and no `--authority`, its accounts
    /// are those of every host in the cache (as `msal accounts` lists them), not only the default
    /// authority's: `msal logout --account X` finds any account `msal accounts` shows.
    func application(anyCloud: Bool = false, expirationBuffer: Double? = nil) throws -> MSALPublicClientApplication {
        guard let clientID = clientID ?? ProcessInfo.processInfo.environment["MSAL_CLIENT_ID"], !clientID.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "No client id: pass --client-id or set MSAL_CLIENT_ID")
        }
        var authorityObject: MSALAuthority?
        if let authority {
            authorityObject = try authorityKind.authority(authority, options: allowHTTPLoopback ? [.allowInsecureLoopback] : [])
        }
        let config = MSALPublicClientApplicationConfig(clientId: clientID, redirectUri: redirectURI, authority: authorityObject)
        if anyCloud, authorityObject == nil { config.multipleCloudsSupported = true }
        if let expirationBuffer {
            guard expirationBuffer.isFinite, expirationBuffer >= 0 else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "--expiration-buffer must be a number of seconds, 0 or more")
            }
            config.tokenExpirationBuffer = expirationBuffer
        }
        if let authorityObject, Self.isLocal(authorityObject) {
            // A local identity provider is trusted as given: there is no instance discovery for it.
            config.knownAuthorities = [authorityObject]
        }
        config.cacheConfig = try cache.config()
        config.transport = try network.transport()
        if broker { config.linuxBroker = MSALLinuxBrokerOptions() }
        let application = try MSALPublicClientApplication(configuration: config)
        // Kept until the process exits, one command later: freeing a loaded cache entry by entry
        // (40,000 entries at 10,000 accounts) took a tenth of a whole `msal token` run, for memory
        // the exit gives back at once.
        _ = Unmanaged.passRetained(application)
        return application
    }

    /// Whether `authority` is on a loopback host (a local identity provider).
    static func isLocal(_ authority: MSALAuthority) -> Bool {
        authority.url.host.map { ["127.0.0.1", "localhost", "[::1]", "::1"].contains($0) } == true
    }

    /// The account with `identifier`, else the current one; `nil` when none is signed in.
    func account(_ identifier: String?, in application: MSALPublicClientApplication) async throws -> MSALAccount? {
        if let identifier {
            // By identifier, else by username; read without blocking (a broker is asked over D-Bus).
            // Any failure (an unreadable cache) stops here. An identifier is one index probe; only
            // a username needs the account list, which at 10,000 accounts costs milliseconds.
            if let found = try await application.accountWithoutList(identifier: identifier) { return found }
            let all = try await application.accountsFromDevice(for: MSALAccountEnumerationParameters())
            let folded = identifier.lowercased()
            guard
                let found = all.first(where: { $0.identifier?.lowercased() == folded })
                    ?? all.first(where: { $0.username?.lowercased() == folded })
            else {
                throw MSALFailure(.internal, internalCode: .internalErrorAccountRequired, message: "No account \(identifier) in the cache")
            }
            return found
        }
        // The first account by identifier, so the answer is stable when several are signed in
        // (`currentAccount(with:)` refuses that case, as MSAL for iOS's single-account API does).
        return try await application.accountsFromDevice(for: MSALAccountEnumerationParameters()).min {
            ($0.identifier ?? "") < ($1.identifier ?? "")
        }
    }
}

/// Writes a token result in the chosen format.
enum TokenOutput {
    /// Writes `result`; `dpopProof` is the DPoP proof made for the resource request the options named.
    static func write(_ result: MSALResult, format: OutputFormat, dpopProof: String? = nil) {
        switch format {
        case .json:
            var members = json(result)
            if let dpopProof { members = members.replacingMembers([(key: "dpop_proof", value: .string(dpopProof))]) }
            CommandOutput.writeJSON(members)
        case .text:
            // A bound token is printed as the header that presents it; a bearer token as itself.
            CommandOutput.write(result.authenticationScheme == "Bearer" ? result.accessToken : result.authorizationHeader)
            // DPoP's second header, on its own line.
            if let dpopProof { CommandOutput.write(dpopProof) }
            let username = result.account.username ?? "-"
            CommandOutput.write(
                "# \(username) (\(result.account.identifier ?? "-")), scopes \(result.scopes.joined(separator: " ")), expires \(CommandOutput.epochDescription(result.expiresOn?.timeIntervalSince1970)), from \(result.tokenSource)",
                toStandardError: true)
        }
    }

    static func json(_ result: MSALResult) -> JSON {
        var claims: JSON = .null
        if let idToken = result.idToken, let decoded = try? JWT.decodeUnverified(idToken) {
            // Verified when the token was received; decoded again here only for display.
            claims = JSON(decoded.claims.root)
        }
        return .object([
            JSONMember(name: "access_token", value: .string(result.accessToken)),
            JSONMember(name: "authentication_scheme", value: .string(result.authenticationScheme)),
            JSONMember(name: "authorization_header", value: .string(result.authorizationHeader)),
            JSONMember(name: "expires_on", value: result.expiresOn.map { .integer(Int(Int64($0.timeIntervalSince1970))) } ?? .null),
            JSONMember(name: "scopes", value: .array(result.scopes.map { .string($0) })),
            JSONMember(name: "token_source", value: .string(result.tokenSource.description)),
            JSONMember(name: "correlation_id", value: .string(result.correlationId.uuidString.lowercased())),
            JSONMember(
                name: "account",
                value: .object([
                    JSONMember(name: "identifier", value: result.account.identifier.map { .string($0) } ?? .null),
                    JSONMember(name: "username", value: result.account.username.map { .string($0) } ?? .null),
                    JSONMember(name: "environment", value: .string(result.account.environment)),
                    JSONMember(name: "tenant_id", value: .string(result.tenantProfile.realm)),
                ])),
            JSONMember(name: "id_token_claims", value: claims),
        ])
    }
}

/// `msal login`
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Sign a user in (system browser, a browser command, or device code) and cache the tokens.")

    @OptionGroup var app: ApplicationOptions

    @Flag(name: .customLong("device-code"), help: "Sign in with a code entered on another device.")
    var deviceCode = false

    @Option(help: ArgumentHelp("The command that opens the sign-in URL (the URL is appended, or replaces %s).", valueName: "command"))
    var browser: String?

    @Option(help: "The prompt: select_account, login, consent, create or none (only if needed).")
    var prompt: String?

    @Option(name: .customLong("login-hint"), help: "The username to pre-fill.")
    var loginHint: String?

    @Option(help: ArgumentHelp("How long to wait for the browser's redirect, in seconds (default 300).", valueName: "seconds"))
    var timeout: Double?

    @Flag(
        help:
            "Ask for DPoP-bound tokens (RFC 9449): proofs signed with this application's key, kept beside the cache file; use msal token --auth-scheme dpop afterwards."
    )
    var dpop = false

    @Option(
        name: .customLong("refresh-token-file"),
        help: ArgumentHelp(
            "Migrate a user from another library: a file holding a refresh token it kept (or - for standard input), redeemed once.",
            valueName: "file"))
    var refreshTokenFile: String?

    func validate() throws {
        if refreshTokenFile != nil, deviceCode || browser != nil || prompt != nil || loginHint != nil || timeout != nil || dpop {
            throw ValidationError(
                "--refresh-token-file signs the user in with the refresh token alone: it goes with none of --device-code, --browser, "
                    + "--prompt, --login-hint, --timeout and --dpop.")
        }
    }

    func run() async throws {
        do {
            let application = try app.application()
            let result: MSALResult
            let scheme: (any MSALAuthenticationSchemeProtocol)? = dpop ? MSALAuthenticationSchemeDPoP() : nil
            if let refreshTokenFile {
                // Read like a secret: from a file or standard input, never an argument (the process list shows those).
                let refreshToken = try AppTokenCommand.secret(refreshTokenFile, what: "the refresh token file", prompt: "Refresh token: ")
                result = try await application.acquireToken(byRefreshToken: refreshToken, scopes: app.scopeList)
            } else if deviceCode {
                let parameters = MSALTokenParameters(scopes: app.scopeList)
                parameters.authenticationScheme = scheme
                result = try await DeviceCodeProgress.run(format: app.output) { callback in
                    try await application.acquireTokenWithDeviceCode(with: parameters, deviceCodeCallback: callback)
                }
            } else {
                let parameters = MSALInteractiveTokenParameters(
                    scopes: app.scopeList, webviewParameters: try Self.webview(browser, timeout: timeout))
                if let prompt { parameters.promptType = try Self.promptType(prompt) }
                parameters.loginHint = loginHint
                parameters.authenticationScheme = scheme
                result = try await application.acquireToken(with: parameters)
            }
            TokenOutput.write(result, format: app.output)
        } catch {
            throw CommandOutput.fail(error, format: app.output)
        }
    }

    /// The web UI of `--browser` (else the system browser). When no browser starts, the sign-in
    /// URL is printed on standard error and the listener keeps waiting (``BrowserUnavailableNotice``).
    static func webview(_ browser: String?, timeout: Double? = nil) throws -> MSALWebviewParameters {
        let parameters: MSALWebviewParameters
        if let browser {
            // Split as `msal demo --browser` and $BROWSER are: shell-style words, quotes kept together.
            guard let argv = BrowserCommandLine.words(browser), !argv.isEmpty else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter, message: "--browser must name a command (quotes balanced)")
            }
            parameters = MSALWebviewParameters(browserCommand: argv)
        } else {
            parameters = MSALWebviewParameters()
        }
        if let timeout { parameters.timeout = timeout }
        let wait = parameters.timeout
        parameters.browserUnavailableHandler = { url in
            CommandOutput.write(BrowserUnavailableNotice.text(for: url, timeout: wait), toStandardError: true)
        }
        return parameters
    }

    static func promptType(_ text: String) throws -> MSALPromptType {
        switch text.lowercased() {
        case "select_account": return .selectAccount
        case "login": return .login
        case "consent": return .consent
        case "create": return .create
        case "none", "if_necessary", "": return .promptIfNecessary
        default:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "Unknown prompt \(text): use select_account, login, consent, create or none")
        }
    }
}

/// `msal token`
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Get an access token silently from the cache (refreshing it when needed).")

    @OptionGroup var app: ApplicationOptions

    @Option(help: "The account's identifier (uid.utid) or username. Default: the signed-in account.")
    var account: String?

    @Flag(name: .customLong("force-refresh"), help: "Redeem the refresh token even when a cached token is valid.")
    var forceRefresh = false

    @Option(
        name: .customLong("expiration-buffer"),
        help: ArgumentHelp("A cached token must stay valid this long to be used, in seconds (default 300).", valueName: "seconds"))
    var expirationBuffer: Double?

    @Option(help: ArgumentHelp("A claims request (JSON), such as a resource's claims challenge.", valueName: "json"))
    var claims: String?

    @Flag(name: .customLong("interactive-fallback"), help: "Sign in interactively when the user must act (interactionRequired).")
    var interactiveFallback = false

    @Option(help: ArgumentHelp("The browser command for --interactive-fallback.", valueName: "command"))
    var browser: String?

    @Option(
        name: .customLong("auth-scheme"),
        help: ArgumentHelp(
            "bearer (the default); pop: a token bound to this application's key (kept beside the cache file), printed as the PoP header for one request (--http-method, --url, --nonce); dpop: a DPoP-bound token, printed as its DPoP header, then the proof for the request --url names.",
            valueName: "bearer|pop|dpop"))
    var authScheme = AuthSchemeOption.bearer

    @Option(
        name: .customLong("http-method"),
        help: ArgumentHelp("The resource request's method, for --auth-scheme pop or dpop (default GET).", valueName: "method"))
    var httpMethod: String?

    @Option(help: ArgumentHelp("The resource request's URL, for --auth-scheme pop or dpop.", valueName: "url"))
    var url: String?

    @Option(
        help: ArgumentHelp(
            "The resource's nonce, for --auth-scheme pop (default: a random one) or dpop (its DPoP-Nonce).", valueName: "nonce"))
    var nonce: String?

    func validate() throws {
        switch authScheme {
        case .bearer:
            if httpMethod != nil || url != nil || nonce != nil {
                throw ValidationError("--http-method, --url and --nonce go with --auth-scheme pop or dpop")
            }
            return
        case .pop:
            guard url != nil else { throw ValidationError("--auth-scheme pop needs --url (the resource request's URL)") }
        case .dpop:
            if url == nil, httpMethod != nil || nonce != nil {
                throw ValidationError("--http-method and --nonce make a DPoP proof, which needs --url (the resource request's URL)")
            }
        }
        if let httpMethod, MSALHttpMethod.allCases.first(where: { MSALParameterStringForHttpMethod($0) == httpMethod.uppercased() }) == nil
        {
            throw ValidationError("--http-method must be one of GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH")
        }
    }

    /// The scheme the options ask for; `nil` for bearer.
    private func scheme() throws -> (any MSALAuthenticationSchemeProtocol)? {
        switch authScheme {
        case .bearer: return nil
        case .dpop: return MSALAuthenticationSchemeDPoP()
        case .pop:
            guard let (method, requestURL) = try resourceRequest() else { return nil }
            return MSALAuthenticationSchemePop(httpMethod: method, request: requestURL, nonce: nonce, additionalParameters: nil)
        }
    }

    /// The resource request `--http-method` and `--url` name; `nil` without `--url`.
    private func resourceRequest() throws -> (MSALHttpMethod, URL)? {
        guard let url else { return nil }
        guard let requestURL = URL(string: url) else { throw ValidationError("--url is not a URL: \(url)") }
        let method = MSALHttpMethod.allCases.first { MSALParameterStringForHttpMethod($0) == (httpMethod ?? "GET").uppercased() } ?? .GET
        return (method, requestURL)
    }

    /// Writes `result`, with the DPoP proof for the resource request the options name.
    private func write(_ result: MSALResult) throws {
        var proof: String?
        if authScheme == .dpop, let (method, requestURL) = try resourceRequest() {
            proof = try result.dpopProof(httpMethod: method, requestUrl: requestURL, nonce: nonce)
        }
        TokenOutput.write(result, format: app.output, dpopProof: proof)
    }

    func run() async throws {
        do {
            let application = try app.application(expirationBuffer: expirationBuffer)
            let claimsRequest = try claims.map { try MSALClaimsRequest(jsonString: $0) }
            guard let signedIn = try await app.account(account, in: application) else {
                guard interactiveFallback else {
                    throw MSALFailure(
                        .interactionRequired, internalCode: .internalErrorAccountRequired,
                        message: "No account is signed in: run msal login")
                }
                try write(try await interactive(application, account: nil, claims: claimsRequest))
                return
            }
            let parameters = MSALSilentTokenParameters(scopes: app.scopeList, account: signedIn)
            parameters.forceRefresh = forceRefresh
            parameters.claimsRequest = claimsRequest
            parameters.authenticationScheme = try scheme()
            do {
                try write(try await application.acquireTokenSilent(with: parameters))
            } catch let error as MSALFailure where error.code == .interactionRequired && interactiveFallback {
                let challenge = try error.claims.map { try MSALClaimsRequest(jsonString: $0) } ?? claimsRequest
                try write(try await interactive(application, account: signedIn, claims: challenge))
            }
        } catch {
            throw CommandOutput.fail(error, format: app.output)
        }
    }

    private func interactive(
        _ application: MSALPublicClientApplication, account: MSALAccount?, claims: MSALClaimsRequest?
    ) async throws -> MSALResult {
        let parameters = MSALInteractiveTokenParameters(scopes: app.scopeList, webviewParameters: try LoginCommand.webview(browser))
        parameters.account = account
        parameters.claimsRequest = claims
        parameters.authenticationScheme = try scheme()
        parameters.promptType = .promptIfNecessary
        return try await application.acquireToken(with: parameters)
    }
}

/// `msal logout`
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Sign an account out of the application: remove its tokens from the cache.")

    @OptionGroup var app: ApplicationOptions

    @Option(help: "The account's identifier (uid.utid) or username.")
    var account: String

    @Flag(name: .customLong("browser-session"), help: "Also open the identity provider's end-session page.")
    var browserSession = false

    func run() async throws {
        do {
            // Local sign-out needs no authority: the account is found wherever the cache holds it.
            // Ending the browser session asks the authority for its end-session endpoint.
            let application = try app.application(anyCloud: !browserSession)
            guard let signedIn = try await app.account(account, in: application) else { return }
            let parameters = MSALSignoutParameters()
            parameters.signoutFromBrowser = browserSession
            try await application.signout(with: signedIn, signoutParameters: parameters)
            switch app.output {
            case .json:
                CommandOutput.writeJSON(.object([JSONMember(name: "signed_out", value: .string(signedIn.identifier ?? account))]))
            case .text:
                CommandOutput.write("Signed out \(signedIn.identifier ?? account).")
            }
        } catch {
            throw CommandOutput.fail(error, format: app.output)
        }
    }
}
