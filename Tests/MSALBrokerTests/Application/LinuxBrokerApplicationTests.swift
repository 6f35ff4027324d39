import Foundation
import MSALDBus
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

@testable import MSAL

/// The public API over the Linux identity broker (``MSALLinuxBrokerOptions``): an
/// ``MSALPublicClientApplication`` configured with `linuxBroker` signs in, lists accounts, gets
/// tokens silently, makes PoP requests and signs out through the broker double (which Microsoft's
/// runtime accepts, `RuntimeBrokerDoubleTests`), writes nothing to its cache, sends no HTTP
/// request, falls back to the browser only when no broker answers, and reports every broker
/// failure as a typed error within its deadline.
@Suite("The Linux broker through MSALPublicClientApplication")
struct LinuxBrokerApplicationTests {
    typealias Setup = BrokerDoubleTests.Setup
    static let clientID = MSALEmulator.Configuration.sampleClientID
    static let adele = "adele@contoso.example"
    static let entraAuthority = URL(string: "https://login.microsoftonline.com/organizations")!

    /// A transport that answers nothing and counts what it was asked: broker requests send no HTTP.
    final class NoNetwork: MSALHTTPTransport {
        let requests = Mutex<[URL]>([])

        func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
            requests.withLock { $0.append(request.url) }
            throw MSALFailure(.internal, internalCode: .networkFailure, message: "No network in the broker tests")
        }
    }

    /// A web UI that must not be shown (the broker signs in), and says so if it is.
    final class NoBrowser: MSALWebUI {
        let shown = Mutex(0)
        func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
            shown.withLock { $0 += 1 }
            throw MSALFailure(.userCanceled, message: "The browser was opened, but the broker should have answered")
        }
    }

    /// A web UI that signs in on the emulator's page.
    struct EmulatorBrowser: MSALWebUI {
        let username: String
        func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
            try await MSALEmulator.SignInDriver(username: username).signIn(authorizationURL: authorizationURL)
        }
    }

    /// An application using the broker on `busAddress`, with a cache file in a fresh directory.
    struct App {
        let application: MSALPublicClientApplication
        let transport: NoNetwork
        let cacheFile: URL

        init(
            busAddress: String?, authority: MSALAuthority? = nil, transport: NoNetwork = NoNetwork(),
            externalProvider: (any MSALExternalAccountProviding)? = nil, configure: (inout MSALLinuxBrokerOptions) -> Void = { _ in }
        ) throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-broker-app-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            cacheFile = directory.appendingPathComponent("cache.json")
            let config = MSALPublicClientApplicationConfig(
                clientId: LinuxBrokerApplicationTests.clientID, redirectUri: nil,
                authority: try authority ?? MSALAADAuthority(url: LinuxBrokerApplicationTests.entraAuthority))
            config.cacheConfig = MSALCacheConfig(storage: .file(path: cacheFile.path))
            if let externalProvider { config.cacheConfig.addExternalAccountProvider(externalProvider) }
            if authority == nil { config.transport = transport }
            var options = MSALLinuxBrokerOptions(busAddress: busAddress)
            options.silentTimeout = 10
            options.interactiveTimeout = 10
            configure(&options)
            config.linuxBroker = options
            application = try MSALPublicClientApplication(configuration: config)
            self.transport = transport
        }

        /// ``MSALPublicClientApplication/allAccounts()``, which waits for the broker on the calling
        /// thread: called on a thread of its own, as a cooperative thread must not wait (the
        /// double answers on the same pool).
        func allAccounts() async throws -> [MSALAccount] {
            let application = application
            return try await PrivateBus.blocking { try application.allAccounts() }
        }

        /// ``MSALPublicClientApplication/remove(_:)`` on a thread of its own (see ``allAccounts()``).
        func remove(_ account: MSALAccount) async throws {
            let application = application
            try await PrivateBus.blocking { try application.remove(account) }
        }

        /// Whether the cache file holds any entry (it is not written at all by broker requests).
        var cacheIsEmpty: Bool {
            guard let data = FileManager.default.contents(atPath: cacheFile.path) else { return true }
            let document = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            return document.values.allSatisfy { ($0 as? [String: Any])?.isEmpty ?? true }
        }

        func interactive(
            scheme: (any MSALAuthenticationSchemeProtocol)? = nil, webUI: any MSALWebUI = NoBrowser()
        ) async throws
            -> MSALResult
        {
            let parameters = MSALInteractiveTokenParameters(
                scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
            parameters.loginHint = LinuxBrokerApplicationTests.adele
            parameters.authenticationScheme = scheme
            return try await application.acquireToken(with: parameters)
        }

        func silent(_ account: MSALAccount, scheme: (any MSALAuthenticationSchemeProtocol)? = nil) async throws -> MSALResult {
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
            parameters.authenticationScheme = scheme
            return try await application.acquireTokenSilent(with: parameters)
        }
    }

    /// The value a completion-block API gives `start`'s block, or its error.
    static func completion<T: Sendable>(_ start: (@escaping @Sendable (T?, (any Error)?) -> Void) -> Void) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            start { value, error in
                if let value {
                    continuation.resume(returning: value)
                } else {
                    continuation.resume(with: .failure(error ?? MSALFailure(.internal, message: "neither a value nor an error")))
                }
            }
        }
    }

    /// The ``MSALFailure`` `body` throws; records an issue otherwise.
    static func failure(_ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async -> MSALFailure? {
        await BrokerClientTests.failure(body, sourceLocation: sourceLocation)
    }

    /// `body` with Adele signed in on the double's device, an application using it, and her
    /// account as the application lists it.
    static func withAdeleOnDevice(_ body: (BrokerDoubleTests.Setup, App, MSALAccount) async throws -> Void) async throws {
        try await BrokerDoubleTests.with { setup in
            try setup.broker.signIn(username: adele)
            let app = try App(busAddress: setup.bus.address)
            try await body(setup, app, try #require(try await app.allAccounts().first))
        }
    }

    @Test(
        "The whole life of a broker account: no accounts; acquireToken signs Adele in through the broker (its window, not the browser), token source broker; allAccounts and accountsFromDevice list her, silent calls answer through the broker; the device information names the broker's version; remove signs her out of the broker; nothing cached, no HTTP"
    )
    func lifecycle() async throws {
        try await BrokerDoubleTests.with { setup in
            let app = try App(busAddress: setup.bus.address)
            #expect(try await app.allAccounts().isEmpty)

            let browser = NoBrowser()
            let signedIn = try await app.interactive(webUI: browser)
            #expect(browser.shown.withLock { $0 } == 0)
            #expect(signedIn.tokenSource == .broker && signedIn.tokenSource.description == "broker")
            #expect(signedIn.account.username == Self.adele && signedIn.account.isKnownToBroker)
            #expect(
                signedIn.account.identifier == "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a.\(MSALEmulator.Configuration.sampleContosoTenantID)")
            #expect(signedIn.tenantProfile.tenantId == MSALEmulator.Configuration.sampleContosoTenantID)
            #expect(signedIn.tenantProfile.isHomeTenantProfile && signedIn.idTokenClaims?["preferred_username"] as? String == Self.adele)
            #expect(signedIn.scopes.contains("User.Read") && signedIn.authenticationScheme == "Bearer")
            #expect((signedIn.expiresOn ?? .distantPast) > Date().addingTimeInterval(600))
            #expect(try await BrokerDoubleTests.resource(setup, signedIn.authorizationHeader) == 200)
            #expect(setup.broker.calls.last?.method == .acquireTokenInteractively)

            let accounts = try await app.allAccounts()
            #expect(accounts.map(\.username) == [Self.adele] && accounts.allSatisfy(\.isKnownToBroker))
            let fromDevice = try await app.application.accountsFromDevice(for: MSALAccountEnumerationParameters())
            #expect(fromDevice.map(\.identifier) == accounts.map(\.identifier))
            let application = app.application
            let byName = try await PrivateBus.blocking { try application.account(forUsername: Self.adele.uppercased()) }
            #expect(byName.identifier == signedIn.account.identifier)
            #expect(accounts.first?.accountClaims?["preferred_username"] as? String == Self.adele)

            let silent = try await app.silent(try #require(accounts.first))
            #expect(silent.tokenSource == .broker && silent.account.identifier == signedIn.account.identifier)
            #expect(setup.broker.calls.last?.method == .acquireTokenSilently)
            #expect(try await BrokerDoubleTests.resource(setup, silent.authorizationHeader) == 200)

            let information = try await app.application.deviceInformation(with: nil)
            #expect(information.extraDeviceInformation[MSAL_LINUX_BROKER_VERSION] as? String == "2.0.4")

            try await app.remove(try #require(accounts.first))
            #expect(setup.broker.accounts.isEmpty)
            #expect(try await app.allAccounts().isEmpty)
            let afterwards = await Self.failure { try await app.silent(try #require(accounts.first)) }
            #expect(afterwards?.code == .interactionRequired, "\(String(describing: afterwards))")

            #expect(app.cacheIsEmpty, "the broker's tokens were written to the cache")
            #expect(app.transport.requests.withLock { $0 }.isEmpty)
        }
    }

    /// An app's own account store that lists one account (Adele, by her home account id) and
    /// records the removals it is told of.
    final class AppAccountStore: MSALExternalAccountProviding {
        let account: MSALAccount
        let removed = Mutex(0)

        init(_ account: MSALAccount) { self.account = account }

        func update(_ account: any MSALAccountProtocol, idTokenClaims: [AnyHashable: Any]) throws {}

        func remove(_ account: any MSALAccountProtocol, wipeAccount: Bool, tenantProfiles: [MSALTenantProfile]?) throws {
            removed.withLock { $0 += 1 }
        }

        func accounts(with parameters: MSALAccountEnumerationParameters) throws -> [any MSALAccountProtocol] { [account] }
    }

    @Test(
        "An app's external account provider that lists the broker's account: the merged account stays the broker's (its silent call goes to the broker) and sign-out reaches both; an account made by the app, without the mark, is still signed out of the broker that knows it"
    )
    func externalProviderAndBroker() async throws {
        try await BrokerDoubleTests.with { setup in
            try setup.broker.signIn(username: Self.adele)
            let home = "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a.\(MSALEmulator.Configuration.sampleContosoTenantID)"
            let store = AppAccountStore(
                MSALAccount(identifier: home, username: Self.adele, environment: "login.microsoftonline.com", tenantProfiles: []))
            let app = try App(busAddress: setup.bus.address, externalProvider: store)
            let accounts = try await app.application.accountsFromDevice(for: MSALAccountEnumerationParameters())
            #expect(accounts.count == 1 && accounts.first?.isKnownToBroker == true, "\(accounts)")
            #expect(try await app.silent(try #require(accounts.first)).tokenSource == .broker)
            try await app.remove(try #require(accounts.first))
            #expect(setup.broker.accounts.isEmpty && store.removed.withLock { $0 } == 1)

            try setup.broker.signIn(username: Self.adele)
            let made = MSALAccount(identifier: home, username: Self.adele, environment: "login.microsoftonline.com", tenantProfiles: [])
            #expect(!made.isKnownToBroker)
            _ = try await app.application.signout(
                with: made, signoutParameters: MSALSignoutParameters(webviewParameters: MSALWebviewParameters(webUI: NoBrowser())))
            #expect(setup.broker.accounts.isEmpty)
            #expect(app.cacheIsEmpty)
        }
    }

    @Test(
        "The completion-block twins: acquireToken, allAccounts through accountsFromDevice, acquireTokenSilent and signout(with:) each call back once, signout also signing the account out of the broker"
    )
    func completionBlocks() async throws {
        try await BrokerDoubleTests.with { setup in
            let app = try App(busAddress: setup.bus.address)
            let parameters = MSALInteractiveTokenParameters(
                scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: NoBrowser()))
            parameters.loginHint = Self.adele
            let signedIn = try await Self.completion { done in app.application.acquireToken(with: parameters, completionBlock: done) }
            #expect(signedIn.tokenSource == .broker)
            let accounts = try await Self.completion { done in
                app.application.accountsFromDevice(for: MSALAccountEnumerationParameters(), completionBlock: done)
            }
            let account = try #require(accounts.first)
            let silent = try await Self.completion { done in
                app.application.acquireTokenSilent(
                    with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account), completionBlock: done)
            }
            #expect(silent.tokenSource == .broker)
            let signedOut = try await app.application.signout(
                with: account, signoutParameters: MSALSignoutParameters(webviewParameters: MSALWebviewParameters(webUI: NoBrowser())))
            #expect(signedOut && setup.broker.accounts.isEmpty)
            #expect(setup.broker.calls.last?.method == .removeAccount)
            #expect(app.cacheIsEmpty)
        }
    }

    @Test(
        "MSAL's PoP through the broker, interactive and silent: authenticationScheme Pop, the header PoP <signed HTTP request> the emulator's resource verifies; popParams name the host and path as MSAL's own signed requests do (a port only when not the scheme's, the host in lower case, the path percent-encoded)"
    )
    func proofOfPossession() async throws {
        try await BrokerDoubleTests.with { setup in
            let app = try App(busAddress: setup.bus.address)
            let url = setup.emulator.baseURL.appendingPathComponent("resource/me")
            let signedIn = try await app.interactive(
                scheme: MSALAuthenticationSchemePop(httpMethod: .GET, request: url, nonce: nil, additionalParameters: nil))
            #expect(signedIn.authenticationScheme == "Pop" && signedIn.authorizationHeader.hasPrefix("PoP "))
            #expect(try await BrokerDoubleTests.resource(setup, signedIn.authorizationHeader) == 200)
            let silent = try await app.silent(
                signedIn.account,
                scheme: MSALAuthenticationSchemePop(httpMethod: .GET, request: url, nonce: "n-1", additionalParameters: nil))
            #expect(silent.authenticationScheme == "Pop" && silent.tokenSource == .broker)
            #expect(try await BrokerDoubleTests.resource(setup, silent.authorizationHeader) == 200)
            let shr = try BrokerDoubleTests.claims(silent.accessToken)
            #expect(shr["nonce"] as? String == "n-1" && shr["m"] as? String == "GET" && shr["p"] as? String == "/resource/me")
            let pop = try #require(setup.broker.calls.last?.request)
            #expect(pop.contains("\"uriHost\":\"127.0.0.1:\(setup.emulator.port)\""), "\(pop)")
            let remote = try #require(URL(string: "https://API.Example:443/v1/a%20b/"))
            _ = try await app.silent(
                signedIn.account,
                scheme: MSALAuthenticationSchemePop(httpMethod: .POST, request: remote, nonce: nil, additionalParameters: nil))
            let named = try #require(setup.broker.calls.last?.request)
            #expect(named.contains("\"uriHost\":\"api.example\"") && named.contains("\"uriPath\":\"/v1/a%20b/\""), "\(named)")
            #expect(named.contains("\"httpMethod\":\"POST\""))
            #expect(app.cacheIsEmpty)
        }
    }

    @Test(
        "DPoP and mTLS PoP are refused before the broker is called (internalErrorInvalidParameter); an account without a home account id is refused for a silent call"
    )
    func refusedSchemes() async throws {
        try await Self.withAdeleOnDevice { setup, app, account in
            let before = setup.broker.calls.count
            let dpop = await Self.failure { try await app.silent(account, scheme: MSALAuthenticationSchemeDPoP()) }
            #expect(dpop?.internalCode == .internalErrorInvalidParameter && dpop?.message.contains("DPoP") == true)
            let interactiveDPoP = await Self.failure { try await app.interactive(scheme: MSALAuthenticationSchemeDPoP()) }
            #expect(interactiveDPoP?.internalCode == .internalErrorInvalidParameter)
            let mutualTLS = await Self.failure { try await app.silent(account, scheme: MSALAuthenticationSchemeMutualTLSPop()) }
            #expect(mutualTLS?.internalCode == .internalErrorInvalidParameter && mutualTLS?.message.contains("mTLS") == true)
            #expect(setup.broker.calls.count == before)
            let nameless = MSALAccount(
                identifier: nil, username: Self.adele, environment: "login.microsoftonline.com", tenantProfiles: nil, homeAccountId: nil,
                providedClaims: nil, isKnownToBroker: true)
            let refused = await Self.failure { try await app.silent(nameless) }
            #expect(refused?.internalCode == .internalErrorInvalidParameter, "\(String(describing: refused))")
            #expect(app.cacheIsEmpty)
        }
    }

    @Test(
        "No broker on the bus: acquireToken signs in in the browser (token source identity_provider, cached as without a broker) and allAccounts lists the cache's account; with fallsBackToBrowser false it fails with internalBrokerNotAvailable and the browser is never opened; a bus address nobody listens on is the same"
    )
    func fallbackToBrowser() async throws {
        try await PrivateBus.with { bus in
            let emulator = try MSALEmulator(configuration: .sample)
            try await emulator.start()
            do {
                try await Self.fallbackToBrowser(bus: bus, emulator: emulator)
            } catch {
                try? await emulator.shutdown()
                throw error
            }
            try await emulator.shutdown()
        }
    }

    static func fallbackToBrowser(bus: PrivateBus, emulator: MSALEmulator) async throws {
        do {
            let authority = try MSALAADAuthority(
                url: emulator.authorityURL(tenant: "organizations"), options: .allowInsecureLoopback)
            let app = try App(busAddress: bus.address, authority: authority)
            let signedIn = try await app.interactive(webUI: EmulatorBrowser(username: Self.adele))
            #expect(signedIn.tokenSource == .identityProvider && !signedIn.account.isKnownToBroker)
            #expect(!app.cacheIsEmpty)
            let accounts = try await app.allAccounts()
            #expect(accounts.map(\.username) == [Self.adele] && !accounts.contains(where: \.isKnownToBroker))
            #expect(try await app.silent(try #require(accounts.first)).tokenSource == .cache)
            #expect(try await app.application.deviceInformation(with: nil).extraDeviceInformation.isEmpty)

            for address in [bus.address, "unix:path=\(bus.directory.appendingPathComponent("nobody").path)"] {
                let strict = try App(busAddress: address, authority: authority) { $0.fallsBackToBrowser = false }
                let browser = NoBrowser()
                let started = ContinuousClock.now
                let refused = await Self.failure { try await strict.interactive(webUI: browser) }
                #expect(refused?.internalCode == .internalBrokerNotAvailable, "\(String(describing: refused))")
                #expect(browser.shown.withLock { $0 } == 0 && ContinuousClock.now - started < .seconds(5))
                #expect(strict.cacheIsEmpty)
            }
        }
    }

    @Test(
        "An older broker without the protocol's methods (version 1.0.0, UnknownMethod): the device information names its version, acquireToken falls back to the browser, and without the fallback it is internalBrokerNotAvailable naming the method"
    )
    func olderBroker() async throws {
        try await BrokerDoubleTests.with { setup in
            setup.broker.version = "1.0.0"
            let authority = try MSALAADAuthority(
                url: setup.emulator.authorityURL(tenant: "organizations"), options: .allowInsecureLoopback)
            let app = try App(busAddress: setup.bus.address, authority: authority)
            #expect(
                try await app.application.deviceInformation(with: nil).extraDeviceInformation[MSAL_LINUX_BROKER_VERSION] as? String
                    == "1.0.0")
            setup.broker.inject(.dbusError(name: "org.freedesktop.DBus.Error.UnknownMethod"), for: .acquireTokenInteractively)
            let signedIn = try await app.interactive(webUI: EmulatorBrowser(username: Self.adele))
            #expect(signedIn.tokenSource == .identityProvider)

            let strict = try App(busAddress: setup.bus.address, authority: authority) { $0.fallsBackToBrowser = false }
            setup.broker.inject(.dbusError(name: "org.freedesktop.DBus.Error.UnknownMethod"), for: .acquireTokenInteractively)
            let refused = await Self.failure { try await strict.interactive() }
            #expect(refused?.internalCode == .internalBrokerNotAvailable, "\(String(describing: refused))")
            #expect(refused?.message.contains("acquireTokenInteractively") == true)
            #expect(strict.cacheIsEmpty)
        }
    }

    @Test(
        "Broker faults at the public API, each typed with the request's correlation id and nothing cached: never answers (silent deadline 1 s) → internalErrorBrokerResponseNotReceived within the deadline; a malformed answer → internalErrorBrokerCorruptedResponse; user cancel → userCanceled (no browser); interaction required → interactionRequired; busy → serverError; the broker's D-Bus error → internalErrorBrokerUnknown; a broker that does not answer getAccounts leaves allAccounts with the cache's accounts"
    )
    func faults() async throws {
        try await BrokerDoubleTests.with { setup in
            try setup.broker.signIn(username: Self.adele)
            let app = try App(busAddress: setup.bus.address)
            // The deadline under test; the other calls wait the usual 10 s (the tests run side by side).
            let impatient = try App(busAddress: setup.bus.address) { $0.silentTimeout = 1 }
            let account = try #require(try await app.allAccounts().first)
            func silentFailure(_ fault: MSALEmulator.Broker.Fault, in app: App? = nil) async -> MSALFailure? {
                setup.broker.inject(fault, for: .acquireTokenSilently)
                let correlation = UUID()
                let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
                parameters.correlationId = correlation
                let failure = await Self.failure { try await (app ?? impatient).application.acquireTokenSilent(with: parameters) }
                #expect(failure?.correlationID == correlation)
                return failure
            }
            let started = ContinuousClock.now
            #expect(await silentFailure(.neverAnswers, in: impatient)?.internalCode == .internalErrorBrokerResponseNotReceived)
            #expect(ContinuousClock.now - started < .seconds(8))
            #expect(await silentFailure(.malformedAnswer, in: app)?.internalCode == .internalErrorBrokerCorruptedResponse)
            #expect(await silentFailure(.interactionRequired, in: app)?.code == .interactionRequired)
            #expect(await silentFailure(.busy, in: app)?.internalCode == MSALInternalError(rawValue: MSALError.serverError.rawValue))
            #expect(await silentFailure(.dbusError(name: "com.example.Failed"), in: app)?.internalCode == .internalErrorBrokerUnknown)

            setup.broker.inject(.userCanceled, for: .acquireTokenInteractively)
            let browser = NoBrowser()
            let canceled = await Self.failure { try await app.interactive(webUI: browser) }
            #expect(canceled?.code == .userCanceled && browser.shown.withLock { $0 } == 0)

            setup.broker.inject(.neverAnswers, for: .getAccounts)
            let listStarted = ContinuousClock.now
            #expect(try await impatient.allAccounts().isEmpty)
            #expect(ContinuousClock.now - listStarted < .seconds(8))
            #expect(app.cacheIsEmpty && impatient.cacheIsEmpty)
            // The faults are spent: the broker answers again.
            #expect(try await app.silent(account).tokenSource == .broker)
        }
    }

    @Test(
        "The usual fallback with the broker: the provider revokes the user's sessions (the device's primary refresh token with them), acquireTokenSilent is interactionRequired naming AADSTS50173, and acquireToken signs her in again through the broker; silent calls answer after it"
    )
    func revokedSession() async throws {
        try await Self.withAdeleOnDevice { setup, app, account in
            #expect(try await app.silent(account).tokenSource == .broker)
            _ = try setup.emulator.revokeRefreshTokens(of: Self.adele)
            let revoked = await Self.failure { try await app.silent(account) }
            #expect(
                revoked?.code == .interactionRequired && revoked?.message.contains("AADSTS50173") == true, "\(String(describing: revoked))")
            let again = try await app.interactive()
            #expect(again.tokenSource == .broker && again.account.identifier == account.identifier)
            #expect(try await app.silent(account).tokenSource == .broker)
            #expect(app.cacheIsEmpty)
        }
    }

    @Test(
        "Brokers that answer what must not be taken, through the public API, each typed and nothing cached, the browser never opened: tokens for another client (internalErrorMismatchedUser), a bearer token for a PoP request (internalErrorBrokerCorruptedResponse), an accounts answer without its array (allAccounts lists the cache's accounts)"
    )
    func misbehavingBrokers() async throws {
        let home = "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a.\(MSALEmulator.Configuration.sampleContosoTenantID)"
        let otherClient = try BrokerClientTests.tokenAnswer(audience: "another-client", homeAccountID: home)
        let bearer = try BrokerClientTests.tokenAnswer(audience: Self.clientID, homeAccountID: home)
        try await PrivateBus.with { bus in
            let answers = [
                "acquireTokenInteractively": otherClient, "acquireTokenSilently": bearer, "getAccounts": #"{"accounts": "none"}"#,
            ]
            let service = try DBusService(address: bus.address, name: BrokerClient.busName) { call in
                .strings([answers[call.member ?? ""] ?? "{}"])
            }
            defer { service.stop() }
            let app = try App(busAddress: bus.address)
            let browser = NoBrowser()
            let mismatched = await Self.failure { try await app.interactive(webUI: browser) }
            #expect(mismatched?.internalCode == .internalErrorMismatchedUser, "\(String(describing: mismatched))")
            #expect(browser.shown.withLock { $0 } == 0)

            let account = BrokerFlow.account(
                BrokerAccount(
                    homeAccountID: home, localAccountID: "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a",
                    environment: "login.microsoftonline.com", realm: MSALEmulator.Configuration.sampleContosoTenantID,
                    username: Self.adele))
            #expect(try await app.silent(account).authenticationScheme == "Bearer")
            let pop = MSALAuthenticationSchemePop(
                httpMethod: .GET, request: URL(string: "https://graph.microsoft.com/v1.0/me")!, nonce: nil, additionalParameters: nil)
            let notBound = await Self.failure { try await app.silent(account, scheme: pop) }
            #expect(notBound?.internalCode == .internalErrorBrokerCorruptedResponse, "\(String(describing: notBound))")

            #expect(try await app.allAccounts().isEmpty)
            #expect(app.cacheIsEmpty && app.transport.requests.withLock { $0 }.isEmpty)
        }
    }

    @Test(
        "The broker leaves the bus during a sign-in, or the bus itself goes away during a silent call: internalErrorBrokerResponseNotReceived well before the deadline, no browser (the broker was there), nothing cached"
    )
    func brokerGoneMidCall() async throws {
        try await PrivateBus.with { bus in
            let emulator = try MSALEmulator(configuration: .sample)
            let broker = try emulator.startBroker(busAddress: bus.address)
            broker.inject(.neverAnswers, for: .acquireTokenInteractively)
            let app = try App(busAddress: bus.address) { $0.interactiveTimeout = 60 }
            let browser = NoBrowser()
            async let waiting = Self.failure { try await app.interactive(webUI: browser) }
            try await Task.sleep(for: .milliseconds(400))
            let started = ContinuousClock.now
            await PrivateBus.offCooperativePool { broker.stop() }
            let left = await waiting
            #expect(left?.internalCode == .internalErrorBrokerResponseNotReceived, "\(String(describing: left))")
            #expect(ContinuousClock.now - started < .seconds(30) && browser.shown.withLock { $0 } == 0)
            #expect(app.cacheIsEmpty)
        }
        let bus = try await PrivateBus.start()
        let emulator = try MSALEmulator(configuration: .sample)
        let broker = try emulator.startBroker(busAddress: bus.address)
        defer { broker.stop() }
        try broker.signIn(username: Self.adele)
        let app = try App(busAddress: bus.address) { $0.silentTimeout = 60 }
        let account = try #require(try await app.application.accountsFromDevice(for: MSALAccountEnumerationParameters()).first)
        broker.inject(.neverAnswers, for: .acquireTokenSilently)
        async let waiting = Self.failure { try await app.silent(account) }
        try await Task.sleep(for: .milliseconds(400))
        let started = ContinuousClock.now
        await bus.stop()
        let gone = await waiting
        #expect(gone?.internalCode == .internalErrorBrokerResponseNotReceived, "\(String(describing: gone))")
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(app.cacheIsEmpty)
    }

    @Test(
        "A session bus that accepts connections and never speaks: each call ends at its deadline (1 s), not at libdbus's 25 s, as a broker that is not available (internalBrokerNotAvailable without the browser fallback); the account list is the cache's; nothing cached"
    )
    func hungBus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-hung-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let silent = try DBusConnectionTests.SilentSocket(directory: directory)
        let app = try App(busAddress: "unix:path=\(silent.path)") {
            $0.silentTimeout = 1
            $0.interactiveTimeout = 1
            $0.fallsBackToBrowser = false
        }
        let started = ContinuousClock.now
        #expect(try await app.allAccounts().isEmpty)
        let browser = NoBrowser()
        let hung = await Self.failure { try await app.interactive(webUI: browser) }
        #expect(hung?.internalCode == .internalBrokerNotAvailable, "\(String(describing: hung))")
        #expect(ContinuousClock.now - started < .seconds(15) && browser.shown.withLock { $0 } == 0)
        #expect(app.cacheIsEmpty)
        withExtendedLifetime(silent) {}
    }

    @Test("Many tasks at once on one application: silent calls and account lists through the broker all answer for Adele")
    func concurrentCalls() async throws {
        try await Self.withAdeleOnDevice { setup, app, account in
            try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        if index.isMultiple(of: 4) {
                            return try await app.application.accountsFromDevice(for: MSALAccountEnumerationParameters()).first?.username
                        }
                        return try await app.silent(account).account.username
                    }
                }
                for try await username in group { #expect(username == Self.adele) }
            }
            #expect(app.cacheIsEmpty)
        }
    }
}
