import Foundation
import MSAL
import Testing

/// MSAL for iOS members that mean nothing on Linux (Apple web views, the broker, the keychain, app
/// URL schemes, the SSO extension), used as an iOS app uses them: the code compiles (with
/// deprecation warnings, expected in this target) and each member does the closest Linux thing.
@Suite("MSAL for iOS: members without meaning on Linux compile and do the Linux thing")
struct LinuxNoOpMembersTests {
    /// What a completion block or a `catch` received, in MSAL for iOS's `NSError` terms.
    struct Outcome: Equatable {
        var code: Int
        var internalCode: Int?
        var hasResult: Bool

        init(_ error: Error?, hasResult: Bool) {
            let nsError = error as NSError?
            code = nsError?.code ?? 0
            internalCode = nsError?.userInfo[MSALInternalErrorCodeKey] as? Int
            self.hasResult = hasResult
        }

        init(code: Int, internalCode: Int?, hasResult: Bool) {
            self.code = code
            self.internalCode = internalCode
            self.hasResult = hasResult
        }

        static let brokerNotAvailable = Outcome(
            code: MSALError.internal.rawValue, internalCode: MSALInternalError.internalBrokerNotAvailable.rawValue, hasResult: false)
    }

    /// A user who declines the sign-in, in the app's own web UI, counting the pages shown.
    final class DecliningUser: MSALWebUI, @unchecked Sendable {
        // @unchecked Sendable: `shown` is read and written under `lock`.
        private let lock = NSLock()
        private var shown = 0

        var presentations: Int { lock.withLock { shown } }

        func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
            lock.withLock { shown += 1 }
            let query = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems
            let state = query?.first { $0.name == "state" }?.value
            var redirect = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)!
            redirect.queryItems = [URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "state", value: state)]
            return redirect.url
        }
    }

    /// Counts the notifications an app observes.
    final class NotificationCount: @unchecked Sendable {
        // @unchecked Sendable: `count` is read and written under `lock`.
        private let lock = NSLock()
        private var count = 0

        var value: Int { lock.withLock { count } }
        func add() { lock.withLock { count += 1 } }
    }

    /// An app's delegate for the ADAL for macOS cache; swift-msal never calls it.
    final class ADALCacheDelegate: MSALSerializedADALCacheProviderDelegate {
        func willAccessCache(_ cache: MSALSerializedADALCacheProvider) {}
        func didAccessCache(_ cache: MSALSerializedADALCacheProvider) {}
        func willWriteCache(_ cache: MSALSerializedADALCacheProvider) {}
        func didWriteCache(_ cache: MSALSerializedADALCacheProvider) {}
    }

    static let observedNames = [
        MSALWebAuthDidStartLoadNotification, MSALWebAuthDidFinishLoadNotification, MSALWebAuthDidFailNotification,
        MSALWebAuthDidCompleteNotification, MSALWebAuthWillSwitchToBrokerApp, MSALWebAuthDidReceiveResponseFromBroker,
    ]

    @Test("The enumerations have MSAL's cases and raw values")
    func enumerations() {
        #expect(MSALWebviewType.allCases == [.default, .authenticationSession, .safariViewController, .wkWebView])
        #expect(MSALWebviewType.allCases.map { $0.rawValue } == [0, 1, 2, 3])
        #expect(MSALWebviewType(rawValue: 3) == .wkWebView)
        #expect(MSALBrokeredAvailability.auto.rawValue == 0)
        #expect(MSALBrokeredAvailability.none.rawValue == 1)
        #expect(MSALPlatformSSOStatus.allCases == [.notEnabled, .enabledNotRegistered, .enabledAndRegistered, .registrationNeedsRepair])
        #expect(MSALPlatformSSOStatus.allCases.map { $0.rawValue } == [0, 1, 2, 3])
        #expect(MSALLegacySharedAccountMode.readOnly.rawValue == 0)
        #expect(MSALLegacySharedAccountMode(rawValue: 1) == .readWrite)
    }

    @Test("webviewType and prefersEphemeralWebBrowserSession read back as set; sign-in still uses the web UI given")
    func webviewSettings() async throws {
        let fixture = try CompletionQueueTests.fixture()
        let application = try fixture.application()
        let user = DecliningUser()
        let webviewParameters = MSALWebviewParameters(webUI: user)
        #expect(webviewParameters.webviewType == .default)
        #expect(!webviewParameters.prefersEphemeralWebBrowserSession)
        webviewParameters.webviewType = .wkWebView
        webviewParameters.prefersEphemeralWebBrowserSession = true
        #expect(webviewParameters.webviewType == .wkWebView)
        #expect(webviewParameters.prefersEphemeralWebBrowserSession)

        // An iOS app watching MSAL's web view: nothing is ever posted on Linux.
        let count = NotificationCount()
        let observers = Self.observedNames.map { name in
            NotificationCenter.default.addObserver(forName: NSNotification.Name(rawValue: name), object: nil, queue: nil) { _ in
                count.add()
            }
        }
        defer { observers.forEach { NotificationCenter.default.removeObserver($0) } }

        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webviewParameters)
        do {
            _ = try await application.acquireToken(with: parameters)
            Issue.record("the declining user's sign-in succeeded")
        } catch {
            #expect((error as NSError).code == MSALError.userCanceled.rawValue)
        }
        #expect(user.presentations == 1)
        #expect(count.value == 0)
    }

    @Test("Notification names are MSAL's")
    func notificationNames() {
        #expect(
            Self.observedNames == [
                "MSALWebAuthDidStartLoadNotification", "MSALWebAuthDidFinishLoadNotification", "MSALWebAuthDidFailNotification",
                "MSALWebAuthDidCompleteNotification", "MSALWebAuthWillSwitchToBrokerApp", "MSALWebAuthDidReceiveResponseFromBroker",
            ])
    }

    @Test("handleMSALResponse never claims a URL; no compatible broker is available")
    func appDelegateHook() throws {
        let response = try #require(URL(string: "msauth.com.contoso.app://auth?code=c&state=s"))
        #expect(!MSALPublicClientApplication.handleMSALResponse(response, sourceApplication: "com.microsoft.azureauthenticator"))
        #expect(!MSALPublicClientApplication.handleMSALResponse(response, sourceApplication: nil))
        let fixture = try CompletionQueueTests.fixture()
        let application = try fixture.application()
        #expect(!application.isCompatibleAADBrokerAvailable)
    }

    @Test("getDeviceToken completes with the broker-unavailable error on completionBlockQueue; the async twin throws it")
    func deviceToken() async throws {
        let fixture = try CompletionQueueTests.fixture()
        let application = try fixture.application()
        let marked = MarkedQueue("device-token")

        let parameters = MSALDeviceTokenParameters(
            resource: "https://graph.microsoft.com", scopes: nil, forTenantId: CompatibilityFixture.utid)
        parameters.completionBlockQueue = marked.queue
        #expect(parameters.resource == "https://graph.microsoft.com")
        #expect(parameters.tenantId == CompatibilityFixture.utid)
        #expect(parameters.scopes.isEmpty)
        let asTokenParameters: MSALTokenParameters = parameters
        #expect(asTokenParameters.completionBlockQueue === marked.queue)

        let arrival = CompletionQueueTests.Arrival<Outcome>()
        let block: MSALDeviceTokenResultCompletionBlock = { result, error in
            arrival.arrive(Outcome(error, hasResult: result != nil), onQueue: marked.isCurrent)
        }
        application.getDeviceToken(with: parameters, completionBlock: block)
        #expect(await arrival.wait())
        #expect(arrival.onQueue)
        #expect(arrival.value == Outcome.brokerNotAvailable)

        do {
            _ = try await application.deviceToken(with: parameters)
            Issue.record("a device token on Linux")
        } catch {
            #expect(Outcome(error, hasResult: false) == Outcome.brokerNotAvailable)
            #expect((error as? MSALFailure)?.internalCode == .internalBrokerNotAvailable)
        }
    }

    @Test("getDeviceTokenForSharedDevice fails: no broker, or a blank resource as in MSAL for iOS")
    func sharedDeviceToken() async throws {
        let fixture = try CompletionQueueTests.fixture()
        let application = try fixture.application()

        let arrival = CompletionQueueTests.Arrival<Outcome>()
        application.getDeviceTokenForSharedDevice(withResource: "https://graph.microsoft.com", scopes: ["Device.Read"]) { result, error in
            arrival.arrive(Outcome(error, hasResult: result != nil), onQueue: false)
        }
        #expect(await arrival.wait())
        #expect(arrival.value == Outcome.brokerNotAvailable)

        do {
            _ = try await application.deviceTokenForSharedDevice(withResource: "https://graph.microsoft.com", scopes: nil)
            Issue.record("a shared-device token on Linux")
        } catch {
            #expect(Outcome(error, hasResult: false) == Outcome.brokerNotAvailable)
        }
        do {
            _ = try await application.deviceTokenForSharedDevice(withResource: "  ", scopes: nil)
            Issue.record("a shared-device token on Linux")
        } catch {
            let invalid = Outcome(
                code: MSALError.internal.rawValue, internalCode: MSALInternalError.internalErrorInvalidParameter.rawValue, hasResult: false)
            #expect(Outcome(error, hasResult: false) == invalid)
        }
    }

    @Test("A device token result holds what it was made with (an app's test double)")
    func deviceTokenResult() throws {
        let fixture = try CompletionQueueTests.fixture()
        let application = try fixture.application()
        let expiry = Date(timeIntervalSince1970: 2_000_000_000)
        let result = MSALDeviceTokenResult(
            accessToken: "device-at", deviceInformation: "device-info", expiresOn: expiry, scopes: ["Device.Read"],
            authority: application.configuration.authority)
        #expect(result.accessToken == "device-at")
        #expect(result.deviceInformation == "device-info")
        #expect(result.expiresOn == expiry)
        #expect(result.scopes == ["Device.Read"])
        #expect(result.authority?.url == application.configuration.authority.url)
    }

    @Test("getWPJMetaDataDevice reports a device that is not registered, on completionBlockQueue")
    func workplaceJoinMetadata() async throws {
        let fixture = try CompletionQueueTests.fixture()
        let application = try fixture.application()
        let marked = MarkedQueue("wpj")
        let parameters = MSALParameters()
        parameters.completionBlockQueue = marked.queue

        // The number of entries in the metadata; -1 for an error, -2 for neither metadata nor error.
        let arrival = CompletionQueueTests.Arrival<Int>()
        let block: MSALWPJMetaDataCompletionBlock = { metadata, error in
            let entries = error == nil ? (metadata?.extraDeviceInformation.count ?? -2) : -1
            arrival.arrive(entries, onQueue: marked.isCurrent)
        }
        application.getWPJMetaDataDevice(with: parameters, forTenantId: CompatibilityFixture.utid, completionBlock: block)
        #expect(await arrival.wait())
        #expect(arrival.onQueue)
        #expect(arrival.value == 0)

        let metadata = try await application.wpjMetaDataDevice(with: nil, forTenantId: nil)
        #expect(metadata.extraDeviceInformation.isEmpty)
        #expect(metadata.extraDeviceInformation[MSAL_PRIMARY_REGISTRATION_DEVICE_ID] == nil)
        #expect(MSALWPJMetaData().extraDeviceInformation.isEmpty)
    }

    @Test("brokerAvailability always reads .none")
    func brokerAvailability() {
        #expect(MSALGlobalConfig.brokerAvailability == MSALBrokeredAvailability.none)
        MSALGlobalConfig.brokerAvailability = .auto
        #expect(MSALGlobalConfig.brokerAvailability == MSALBrokeredAvailability.none)
        MSALGlobalConfig.brokerAvailability = .none
        #expect(MSALGlobalConfig.brokerAvailability == MSALBrokeredAvailability.none)
    }

    @Test("Accounts are never SSO accounts; devices have no Platform SSO")
    func singleSignOn() async throws {
        let fixture = try CompletionQueueTests.fixture()
        let application = try fixture.application()
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        #expect(!account.isSSOAccount)
        for listed in try application.allAccounts() {
            #expect(!listed.isSSOAccount)
        }
        let information = try await application.deviceInformation(with: nil)
        #expect(information.platformSSOStatus == .notEnabled)
    }

    @Test("allowUsingLocalCachedRtWhenSsoExtFailed is always true, and a silent request uses the cache")
    func silentWithoutSSOExtension() async throws {
        let fixture = try CompletionQueueTests.fixture()
        let application = try fixture.application()
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        #expect(parameters.allowUsingLocalCachedRtWhenSsoExtFailed)
        parameters.allowUsingLocalCachedRtWhenSsoExtFailed = false
        #expect(parameters.allowUsingLocalCachedRtWhenSsoExtFailed)
        let result = try await application.acquireTokenSilent(with: parameters)
        #expect(result.accessToken == "at-cached")
    }

    @Test("keychainSharingGroup reads back as set, and the cache still works")
    func keychainSharingGroup() async throws {
        let fixture = try CompletionQueueTests.fixture()
        #expect(MSALCacheConfig.defaultKeychainSharingGroup() == "com.microsoft.adalcache")

        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
        let config = MSALPublicClientApplicationConfig(clientId: CompatibilityFixture.clientID, redirectUri: nil, authority: authority)
        config.cacheConfig = MSALCacheConfig(storage: .file(path: fixture.cachePath))
        config.transport = fixture.transport
        #expect(config.cacheConfig.keychainSharingGroup == MSALCacheConfig.defaultKeychainSharingGroup())
        config.cacheConfig.keychainSharingGroup = "com.contoso.shared"
        #expect(config.cacheConfig.keychainSharingGroup == "com.contoso.shared")

        let application = try MSALPublicClientApplication(configuration: config)
        #expect(application.configuration.cacheConfig.keychainSharingGroup == "com.contoso.shared")
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        #expect(account.username == CompatibilityFixture.username)
        let result = try await application.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(result.accessToken == "at-cached")
        #expect(fixture.transport.tokenRequests == 0)
    }

    @Test("Keychain-only types: partner caches, legacy shared accounts, the ADAL for macOS cache")
    func keychainOnlyTypes() throws {
        #expect(MSALWipeCacheForAllAccountsConfig.additionalPartnerLocations().isEmpty)
        _ = MSALWipeCacheForAllAccountsConfig()

        let provider = MSALLegacySharedAccountsProvider(
            sharedKeychainAccessGroup: "com.contoso.sso", serviceIdentifier: "ContosoAccounts", applicationIdentifier: "Contoso")
        #expect(provider.sharedAccountMode == .readOnly)
        provider.sharedAccountMode = .readWrite
        #expect(provider.sharedAccountMode == .readWrite)

        let delegate = ADALCacheDelegate()
        let adalCache = try MSALSerializedADALCacheProvider(delegate: delegate)
        #expect(adalCache.delegate === delegate)
        #expect(try adalCache.serializeData().isEmpty)
        try adalCache.deserialize(Data([1, 2, 3]))
        #expect(try adalCache.serializeData() == Data([1, 2, 3]))
    }
}
