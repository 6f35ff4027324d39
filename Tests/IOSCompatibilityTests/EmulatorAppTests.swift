import Dispatch
import Foundation
import MSAL
import MSALEmulator
import Testing

/// An MSAL-for-iOS-style app, written as iOS apps write their auth code (completion blocks, the
/// `NSError` idiom, `MSALError(rawValue:)`, a completion queue), run against swift-msal's local
/// identity provider on loopback: sign-in, the silent fallback, and each server failure's code.
@Suite("MSAL for iOS: an app's auth code against the local identity provider", .serialized)
struct EmulatorAppTests {
    /// The app's "web view": the local provider's sign-in page, answered as a user would.
    struct ProviderPage: MSALWebUI {
        var declines = false

        func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
            let driver = MSALEmulator.SignInDriver(username: "adele@contoso.example")
            return declines
                ? try await driver.cancel(authorizationURL: authorizationURL)
                : try await driver.signIn(authorizationURL: authorizationURL)
        }

        var launchesExternalBrowser: Bool { false }
    }

    /// The auth code of a typical iOS app, UI removed.
    final class AppAuth: @unchecked Sendable {
        // @unchecked Sendable: `application` and `queue` are `let`s; MSAL's types are Sendable.
        let application: MSALPublicClientApplication
        let queue = MarkedQueue("app.auth")

        init(emulator: MSALEmulator) throws {
            let authority = try MSALAADAuthority(url: emulator.authorityURL(tenant: "common"), options: .allowInsecureLoopback)
            let config = MSALPublicClientApplicationConfig(
                clientId: MSALEmulator.Configuration.sampleClientID, redirectUri: nil, authority: authority)
            config.cacheConfig = MSALCacheConfig.memory
            application = try MSALPublicClientApplication(configuration: config)
        }

        func signIn(declining: Bool = false, completion: @escaping @Sendable (MSALResult?, Error?) -> Void) {
            let webviewParameters = MSALWebviewParameters(webUI: ProviderPage(declines: declining))
            let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webviewParameters)
            parameters.promptType = .selectAccount
            parameters.completionBlockQueue = queue.queue
            application.acquireToken(with: parameters, completionBlock: completion)
        }

        /// The tutorial's pattern: silently, and interactively when MSAL says interaction is required.
        func token(forceRefresh: Bool = false, completion: @escaping @Sendable (String?, Error?) -> Void) {
            application.getCurrentAccount(with: nil) { account, _, error in
                guard let account = account else {
                    completion(nil, error)
                    return
                }
                let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
                parameters.forceRefresh = forceRefresh
                parameters.completionBlockQueue = self.queue.queue
                self.application.acquireTokenSilent(with: parameters) { result, error in
                    if let error = error {
                        let nsError = error as NSError
                        if nsError.domain == MSALErrorDomain, nsError.code == MSALError.interactionRequired.rawValue {
                            self.signIn { result, error in completion(result?.accessToken, error) }
                            return
                        }
                        completion(nil, error)
                        return
                    }
                    completion(result?.accessToken, nil)
                }
            }
        }
    }

    static func with(_ body: (MSALEmulator, AppAuth) async throws -> Void) async throws {
        let emulator = try MSALEmulator(configuration: .sample)
        _ = try await emulator.start()
        do {
            try await body(emulator, try AppAuth(emulator: emulator))
            try await emulator.shutdown()
        } catch {
            try? await emulator.shutdown()
            throw error
        }
    }

    /// Runs a completion-block call and waits (bounded) for its outcome.
    static func outcome<T>(_ call: (@escaping @Sendable (T?, Error?) -> Void) -> Void) async -> (T?, NSError?) {
        let arrival = CompletionQueueTests.Arrival<(T?, NSError?)>()
        call { value, error in arrival.arrive((value, error.map { $0 as NSError }), onQueue: false) }
        _ = await arrival.wait()
        return arrival.value ?? (nil, nil)
    }

    @Test("Sign-in, a silent token, the interactive fallback on invalid_grant, and sign-out")
    func signInAndFallback() async throws {
        try await Self.with { emulator, app in
            let (result, error) = await Self.outcome { app.signIn(completion: $0) }
            #expect(error == nil)
            #expect(result?.account.username == "adele@contoso.example")
            #expect(result?.tenantProfile.tenantId != nil)

            let (cached, _) = await Self.outcome { app.token(completion: $0) }
            #expect(cached == result?.accessToken, "the cached token, with no request")

            _ = emulator.inject(.init(.invalidGrant(subError: "bad_token"), grantType: .refreshToken, times: 1))
            let codesBefore = emulator.requestCount(.token, grantType: .authorizationCode)
            let (fallback, fallbackError) = await Self.outcome { app.token(forceRefresh: true, completion: $0) }
            #expect(fallbackError == nil)
            #expect(fallback != nil && fallback != result?.accessToken)
            #expect(emulator.requestCount(.token, grantType: .authorizationCode) == codesBefore + 1, "signed in again")

            let account = try app.application.account(forUsername: "adele@contoso.example")
            let (signedOut, _) = await Self.outcome { (done: @escaping @Sendable (Bool?, Error?) -> Void) in
                app.application.signout(with: account, signoutParameters: MSALSignoutParameters()) { success, error in
                    done(success, error)
                }
            }
            #expect(signedOut == true)
            #expect(try app.application.allAccounts().isEmpty)
        }
    }

    /// Signs in on a fresh provider, makes the next refreshes fail with `fault`, and returns the
    /// error a forced silent refresh gives the app (a fresh provider and application per case: a
    /// failed refresh is remembered by the throttling cache for the same request).
    static func refreshError(_ fault: MSALEmulator.Fault.Response, times: Int = 1) async throws -> NSError {
        var failure: NSError?
        try await Self.with { emulator, app in
            let (signedIn, _) = await Self.outcome { app.signIn(completion: $0) }
            #expect(signedIn != nil)
            _ = emulator.inject(.init(fault, grantType: .refreshToken, times: times))
            failure = await Self.outcome { app.token(forceRefresh: true, completion: $0) }.1
        }
        return try #require(failure)
    }

    @Test("A 5xx is .internal with internalErrorUnhandledResponse and the status as a string, as MSAL for iOS reports it")
    func serviceUnavailable() async throws {
        let error = try await Self.refreshError(.serverError(status: 500), times: 2)
        #expect(MSALError(rawValue: error.code) == .internal)
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorUnhandledResponse.rawValue)
        #expect(error.userInfo[MSALHTTPResponseCodeKey] as? String == "500")
    }

    @Test("server_error is .internal with MSALError.serverError's value as the internal code")
    func serverError() async throws {
        let error = try await Self.refreshError(
            .oauthError(status: 400, error: "server_error", errorCode: 90033, description: "AADSTS90033: transient"))
        #expect(error.code == MSALError.internal.rawValue)
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALError.serverError.rawValue)
        #expect(error.userInfo[MSALOAuthErrorKey] as? String == "server_error")
        #expect(error.userInfo[MSALSTSErrorCodesKey] as? [Int] == [90033])
    }

    @Test("temporarily_unavailable is .internal with internalErrorAuthorizationFailed")
    func temporarilyUnavailable() async throws {
        let error = try await Self.refreshError(
            .oauthError(status: 400, error: "temporarily_unavailable", errorCode: 90006, description: "AADSTS90006: busy"))
        #expect(error.code == MSALError.internal.rawValue)
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorAuthorizationFailed.rawValue)
    }

    @Test("A user declining the sign-in page is .userCanceled with access_denied, on the completion queue")
    func declined() async throws {
        try await Self.with { _, app in
            let arrival = CompletionQueueTests.Arrival<NSError?>()
            app.signIn(declining: true) { _, error in arrival.arrive(error.map { $0 as NSError }, onQueue: app.queue.isCurrent) }
            #expect(await arrival.wait())
            #expect(arrival.onQueue)
            let error = try #require(arrival.value ?? nil)
            #expect(error.code == MSALError.userCanceled.rawValue)
            #expect(error.userInfo[MSALOAuthErrorKey] as? String == "access_denied")
        }
    }
}
