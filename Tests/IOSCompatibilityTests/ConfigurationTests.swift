import Foundation
import MSAL
import Testing

/// Configuration, authorities and the smaller members of MSAL for iOS, written as iOS apps write
/// them.
@Suite("MSAL for iOS: configuration, authorities and account queries")
struct ConfigurationTests {
    /// An app-supplied web UI that records the sign-in page's address and declines, as a user
    /// closing the page would (the provider's `access_denied` on the redirect).
    final class DecliningWebUI: MSALWebUI, @unchecked Sendable {
        // @unchecked Sendable: `shown` is read and written only under `lock`.
        private let lock = NSLock()
        private var shown: [URL] = []

        var pages: [URL] { lock.withLock { shown } }

        func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
            lock.withLock { shown.append(authorizationURL) }
            let state =
                URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "state" }?.value ?? ""
            return URL(string: "\(redirectURI.absoluteString)?error=access_denied&state=\(state)")
        }

        var launchesExternalBrowser: Bool { false }
    }

    static func query(_ url: URL) -> [String: String] {
        var query: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        return query
    }

    @Test("MSALAuthority(url:) returns the subclass of the URL's kind")
    func authorityFactory() throws {
        let b2c = try MSALAuthority(url: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin")!)
        #expect(b2c is MSALB2CAuthority)
        #expect((b2c as? MSALB2CAuthority) != nil)
        #expect(try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/common")!) is MSALAADAuthority)
        #expect(try MSALAuthority(url: URL(string: "https://contoso.ciamlogin.com")!) is MSALCIAMAuthority)
        #expect(try MSALAuthority(url: URL(string: "https://adfs.contoso.com/adfs")!) is MSALADFSAuthority)
        let aad = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com")!)
        #expect(aad.url.absoluteString == "https://login.microsoftonline.com/contoso.onmicrosoft.com")
        do {
            _ = try MSALAuthority(url: URL(string: "http://login.microsoftonline.com/common")!)
            Issue.record("a plain-http authority was accepted")
        } catch {
            #expect((error as NSError).domain == MSALErrorDomain)
        }
    }

    @Test("Every MSALAzureCloudInstance, and the environment initializer MSAL has")
    func cloudsAndEnvironment() throws {
        let hosts: [(MSALAzureCloudInstance, String)] = [
            (.publicCloudInstance, "login.microsoftonline.com"), (.chinaCloudInstance, "login.chinacloudapi.cn"),
            (.germanyCloudInstance, "login.microsoftonline.de"), (.usGovernmentCloudInstance, "login.microsoftonline.us"),
            (.franceCloudInstance, "login.sovcloud-identity.fr"), (.delosCloudInstance, "login.sovcloud-identity.de"),
            (.govSGCloudInstance, "login.sovcloud-identity.sg"),
        ]
        #expect(MSALAzureCloudInstance.allCases.count == hosts.count)
        for (index, (cloud, host)) in hosts.enumerated() {
            #expect(cloud.rawValue == index)
            let authority = try MSALAADAuthority(cloudInstance: cloud, audienceType: .azureADMultipleOrgsAudience, rawTenant: nil)
            #expect(authority.url.absoluteString == "https://\(host)/organizations")
        }
        let byHost = try MSALAADAuthority(
            environment: "login.microsoftonline.us", audienceType: .azureADMyOrgOnlyAudience, rawTenant: "contoso.us")
        #expect(byHost.url.absoluteString == "https://login.microsoftonline.us/contoso.us")
        let consumers = try MSALAADAuthority(
            environment: "login.microsoftonline.com", audienceType: .personalMicrosoftAccountAudience, rawTenant: nil)
        #expect(consumers.url.absoluteString == "https://login.microsoftonline.com/consumers")
        #expect(throws: (any Error).self) {
            try MSALAADAuthority(environment: "", audienceType: .azureADAndPersonalMicrosoftAccountAudience, rawTenant: nil)
        }
        #expect(throws: (any Error).self) {
            try MSALAADAuthority(environment: "login.microsoftonline.com", audienceType: .azureADMultipleOrgsAudience, rawTenant: "t")
        }
    }

    @Test("MSALCIAMAuthority(url:validateFormat:) accepts a custom domain only without format validation")
    func ciamValidateFormat() throws {
        let custom = URL(string: "https://login.contoso.com/aaaabbbb-0000-cccc-1111-dddd2222eeee")!
        #expect(try MSALCIAMAuthority(url: custom, validateFormat: false).url == custom)
        #expect(throws: (any Error).self) { try MSALCIAMAuthority(url: custom, validateFormat: true) }
        let standard = try MSALCIAMAuthority(url: URL(string: "https://contoso.ciamlogin.com")!, validateFormat: true)
        #expect(standard.url.absoluteString == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
    }

    @Test("clientId and redirectUri are settable on the configuration; the application keeps what it was made with")
    func settableIdentity() throws {
        let fixture = try CompatibilityFixture(accessTokenExpiresOn: Int(Date().timeIntervalSince1970) + 3600) {
            StubPlatform.json(500, "{}")
        }
        let config = MSALPublicClientApplicationConfig(clientId: "placeholder", redirectUri: nil, authority: nil)
        config.clientId = CompatibilityFixture.clientID
        config.redirectUri = "http://localhost"
        config.cacheConfig = MSALCacheConfig(storage: .file(path: fixture.cachePath))
        config.transport = fixture.transport
        let application = try MSALPublicClientApplication(configuration: config)
        config.clientId = "changed-after"
        #expect(application.configuration.clientId == CompatibilityFixture.clientID)
        #expect(application.configuration.redirectUri == "http://localhost")
        // The application reads the cache as the client id it was created with.
        #expect(try application.allAccounts().map { $0.username } == [CompatibilityFixture.username])
    }

    @Test("sliceConfig and preferredAuthMethod reach the sign-in page's address")
    func sliceAndPreferredMethod() async throws {
        #expect(MSALSliceConfig(slice: nil, dc: nil) == nil)
        let slice = try #require(MSALSliceConfig(slice: "testslice", dc: "PROD-WST-TEST1"))
        #expect(slice.sliceDictionary == ["slice": "testslice", "dc": "PROD-WST-TEST1"])

        let fixture = try CompatibilityFixture(accessTokenExpiresOn: 0) { StubPlatform.json(500, "{}") }
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
        let config = MSALPublicClientApplicationConfig(clientId: CompatibilityFixture.clientID, redirectUri: nil, authority: authority)
        config.cacheConfig = MSALCacheConfig(storage: .file(path: fixture.cachePath))
        config.transport = fixture.transport
        config.sliceConfig = slice
        let application = try MSALPublicClientApplication(configuration: config)

        let webUI = DecliningWebUI()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
        parameters.preferredAuthMethod = .QRPIN
        parameters.extraQueryParameters = ["dc": "from-the-request"]
        do {
            _ = try await application.acquireToken(with: parameters)
            Issue.record("a declined sign-in returned a token")
        } catch {
            #expect((error as NSError).code == MSALError.userCanceled.rawValue)
        }
        let page = try #require(webUI.pages.first)
        let query = Self.query(page)
        #expect(query["pc"] == "18")
        #expect(query["slice"] == "testslice")
        #expect(query["dc"] == "from-the-request", "the request's own parameter wins over the slice's")

        let plain = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
        #expect(plain.preferredAuthMethod == MSALPreferredAuthMethod.none)
        _ = try? await application.acquireToken(with: plain)
        #expect(Self.query(try #require(webUI.pages.last))["pc"] == nil)
    }

    @Test("getCurrentAccount: one account and the previous answer; several accounts are ambiguous, as in MSAL for iOS")
    func currentAccount() async throws {
        let fixture = try CompatibilityFixture(accessTokenExpiresOn: Int(Date().timeIntervalSince1970) + 3600) {
            StubPlatform.json(500, "{}")
        }
        let application = try fixture.application()
        let (first, none) = try await application.currentAccount(with: nil)
        #expect(first?.username == CompatibilityFixture.username)
        #expect(none == nil, "nothing was answered before")
        let (again, previous) = try await application.currentAccount(with: MSALParameters())
        #expect(again?.identifier == CompatibilityFixture.homeAccountID)
        #expect(previous?.identifier == CompatibilityFixture.homeAccountID, "the previous answer, the same account")

        // A second signed-in account (another app's sign-in written to the shared file).
        let other = "11111111-2222-3333-4444-555555555555.\(CompatibilityFixture.utid)"
        var document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fixture.cachePath))) as? [String: Any])
        var accounts = document["Account"] as? [String: Any] ?? [:]
        var refresh = document["RefreshToken"] as? [String: Any] ?? [:]
        accounts["\(other)-login.microsoftonline.com-\(CompatibilityFixture.utid)"] = [
            "home_account_id": other, "environment": "login.microsoftonline.com", "realm": CompatibilityFixture.utid,
            "local_account_id": "11111111-2222-3333-4444-555555555555", "username": "ben@contoso.example", "authority_type": "MSSTS",
        ]
        refresh["\(other)-login.microsoftonline.com-refreshtoken-\(CompatibilityFixture.clientID)--"] = [
            "home_account_id": other, "environment": "login.microsoftonline.com", "credential_type": "RefreshToken",
            "client_id": CompatibilityFixture.clientID, "secret": "rt-ben",
        ]
        document["Account"] = accounts
        document["RefreshToken"] = refresh
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: fixture.cachePath))
        #expect(try application.allAccounts().count == 2)

        let queue = MarkedQueue("current")
        let parameters = MSALParameters()
        parameters.completionBlockQueue = queue.queue
        let arrival = CompletionQueueTests.Arrival<Int>()
        application.getCurrentAccount(with: parameters) { account, _, error in
            arrival.arrive(
                account == nil ? ((error as NSError?)?.userInfo[MSALInternalErrorCodeKey] as? Int ?? 0) : 1, onQueue: queue.isCurrent)
        }
        #expect(await arrival.wait())
        #expect(arrival.value == MSALInternalError.internalErrorAmbiguousAccount.rawValue)
        #expect(arrival.onQueue)
    }

    @Test("The completion block types, sdkVersion and MSALRedirectUri have MSAL's names")
    func namesAndTypes() {
        let accounts: MSALAccountsCompletionBlock = { _, _ in }
        let current: MSALCurrentAccountCompletionBlock = { _, _, _ in }
        let signout: MSALSignoutCompletionBlock = { _, _ in }
        let device: MSALDeviceInformationCompletionBlock = { _, _ in }
        let token: MSALCompletionBlock = { _, _ in }
        _ = (accounts, current, signout, device, token)
        #expect(MSALPublicClientApplication.sdkVersion == MSALVersion)
        #expect(MSALPreferredAuthMethod.QRPIN.rawValue == 1)
    }

    @Test("copy() of the mutable classes is independent; the JSON protocols are MSAL's")
    func copies() throws {
        let config = MSALPublicClientApplicationConfig(clientId: "a", redirectUri: nil, authority: nil)
        config.tokenExpirationBuffer = 120
        config.sliceConfig = MSALSliceConfig(slice: "s1", dc: nil)
        let copy = config.copy()
        config.clientId = "b"
        config.tokenExpirationBuffer = 30
        config.sliceConfig?.slice = "s2"
        #expect(copy.clientId == "a")
        #expect(copy.tokenExpirationBuffer == 120)
        #expect(copy.sliceConfig?.slice == "s1")
        #expect(copy.sliceConfig?.dc == "")
        #expect(copy.sliceConfig?.sliceDictionary == ["slice": "s1"])

        let webview = MSALWebviewParameters()
        webview.timeout = 42
        let webviewCopy = webview.copy()
        webview.timeout = 7
        #expect(webviewCopy.timeout == 42)

        let serializable: MSALJsonSerializable = try MSALClaimsRequest(jsonString: #"{"id_token":{"acr":null}}"#)
        #expect(serializable.jsonString() == #"{"id_token":{"acr":null}}"#)
        func make<T: MSALJsonDeserializable>(_ type: T.Type, _ text: String) throws -> T { try T(jsonString: text) }
        #expect(try make(MSALClaimsRequest.self, #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#).jsonString() != nil)
    }
}
