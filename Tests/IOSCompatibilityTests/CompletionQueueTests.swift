import Dispatch
import Foundation
import MSAL
import Testing

/// `MSALParameters` and its subclasses as MSAL for iOS apps use them: classes mutated through a
/// `let`, with `completionBlockQueue` honoured by every completion-block API.
@Suite("MSAL for iOS: parameters are classes and completion blocks arrive on completionBlockQueue")
struct CompletionQueueTests {
    /// Receives one completion block's outcome; `wait()` suspends (blocking no thread) until it
    /// arrives, or gives up after a minute.
    final class Arrival<Value>: @unchecked Sendable {
        // @unchecked Sendable: every stored property is read and written under `lock`.
        private let lock = NSLock()
        private var arrived: (value: Value, onQueue: Bool)?
        private var waiter: CheckedContinuation<Bool, Never>?

        var value: Value? { lock.withLock { arrived?.value } }
        var onQueue: Bool { lock.withLock { arrived?.onQueue ?? false } }

        func arrive(_ value: Value, onQueue: Bool) {
            let waiting: CheckedContinuation<Bool, Never>? = lock.withLock {
                guard arrived == nil else { return nil }
                arrived = (value, onQueue)
                defer { waiter = nil }
                return waiter
            }
            waiting?.resume(returning: true)
        }

        /// Whether the block came within a minute (a loaded CI machine runs many suites at once).
        func wait() async -> Bool {
            let deadline = Task {
                try? await Task.sleep(nanoseconds: 60_000_000_000)
                let waiting: CheckedContinuation<Bool, Never>? = lock.withLock {
                    defer { waiter = nil }
                    return waiter
                }
                waiting?.resume(returning: false)
            }
            defer { deadline.cancel() }
            return await withCheckedContinuation { continuation in
                let done: Bool = lock.withLock {
                    if arrived != nil { return true }
                    waiter = continuation
                    return false
                }
                if done { continuation.resume(returning: true) }
            }
        }
    }

    static func fixture(valid: Bool = true) throws -> CompatibilityFixture {
        let expiry = Int(Date().timeIntervalSince1970) + (valid ? 3600 : -60)
        return try CompatibilityFixture(accessTokenExpiresOn: expiry) {
            StubPlatform.json(400, #"{"error":"invalid_grant","error_description":"AADSTS70000: expired","error_codes":[70000]}"#)
        }
    }

    @Test("Parameter classes accept mutation through a let, as MSAL for iOS's do")
    func classesMutatedThroughLet() throws {
        let queue = DispatchQueue(label: "app")
        let parameters = MSALParameters()
        parameters.completionBlockQueue = queue
        #expect(parameters.completionBlockQueue === queue)

        let enumeration = MSALAccountEnumerationParameters(identifier: CompatibilityFixture.homeAccountID)
        enumeration.returnOnlySignedInAccounts = false
        enumeration.completionBlockQueue = queue
        #expect(enumeration.identifier == CompatibilityFixture.homeAccountID)
        #expect(enumeration.username == nil)
        #expect(!enumeration.returnOnlySignedInAccounts)
        let byName = MSALAccountEnumerationParameters(identifier: nil, username: "adele@contoso.example")
        #expect(byName.username == "adele@contoso.example")
        #expect(MSALAccountEnumerationParameters(tenantProfileIdentifier: "t").tenantProfileIdentifier == "t")

        let signout = MSALSignoutParameters(webviewParameters: MSALWebviewParameters())
        signout.signoutFromBrowser = false
        signout.wipeAccount = true
        signout.wipeCacheForAllAccounts = false
        signout.extraQueryParameters = ["ui_locales": "fr"]
        signout.completionBlockQueue = queue
        #expect(signout.wipeAccount && signout.extraQueryParameters == ["ui_locales": "fr"])

        let interactive = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters())
        interactive.completionBlockQueue = queue
        let asParameters: MSALParameters = interactive
        #expect(asParameters.completionBlockQueue === queue)
    }

    @Test("Parameters are safe to set and read from many threads at once")
    func concurrentMutation() {
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"])
        let queues = (0..<4).map { DispatchQueue(label: "q\($0)") }
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            parameters.completionBlockQueue = queues[index % 4]
            parameters.correlationId = UUID()
            _ = parameters.completionBlockQueue
            _ = parameters.scopes
        }
        #expect(parameters.completionBlockQueue != nil)
    }

    @Test("acquireTokenSilent: success and failure both arrive on completionBlockQueue")
    func silentOnQueue() async throws {
        let fixture = try Self.fixture()
        let application = try fixture.application()
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let marked = MarkedQueue("silent")

        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        parameters.completionBlockQueue = marked.queue
        let hit = Arrival<String>()
        application.acquireTokenSilent(with: parameters) { result, error in
            hit.arrive(result?.accessToken ?? "error \(String(describing: error))", onQueue: marked.isCurrent)
        }
        #expect(await hit.wait())
        #expect(hit.value == "at-cached")
        #expect(hit.onQueue)

        let refresh = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        refresh.forceRefresh = true
        refresh.completionBlockQueue = marked.queue
        let failure = Arrival<Int>()
        application.acquireTokenSilent(with: refresh) { _, error in
            failure.arrive((error as NSError?)?.code ?? 0, onQueue: marked.isCurrent)
        }
        #expect(await failure.wait())
        #expect(failure.value == MSALError.interactionRequired.rawValue)
        #expect(failure.onQueue)
    }

    @Test("Without a queue the block is called on one of swift-msal's threads, never the main queue")
    func defaultQueue() async throws {
        let fixture = try Self.fixture()
        let application = try fixture.application()
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let arrival = Arrival<Bool>()
        application.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account)) { result, _ in
            // The main queue is never run by this test process: a block sent there would never come.
            arrival.arrive(result != nil, onQueue: false)
        }
        #expect(await arrival.wait())
        #expect(arrival.value == true)
    }

    @Test("getDeviceInformation, accountsFromDevice, getCurrentAccount and signout honour completionBlockQueue")
    func accountAndDeviceCallsOnQueue() async throws {
        let fixture = try Self.fixture()
        let application = try fixture.application()
        let marked = MarkedQueue("calls")
        let parameters = MSALParameters()
        parameters.completionBlockQueue = marked.queue

        let device = Arrival<MSALDeviceInformation?>()
        application.getDeviceInformation(with: parameters) { information, _ in
            device.arrive(information, onQueue: marked.isCurrent)
        }
        #expect(await device.wait())
        #expect(device.onQueue)
        let information = try #require(device.value ?? nil)
        #expect(information.deviceMode == .default)
        #expect(information.configuredPreferredAuthMethod == .none)
        #expect(!information.hasAADSSOExtension)
        #expect(information.extraDeviceInformation.isEmpty)
        #expect(information.extraDeviceInformation[MSAL_PRIMARY_REGISTRATION_UPN] == nil)

        let enumeration = MSALAccountEnumerationParameters()
        enumeration.completionBlockQueue = marked.queue
        let fromDevice = Arrival<[String]>()
        application.accountsFromDevice(for: enumeration) { accounts, _ in
            fromDevice.arrive((accounts ?? []).compactMap { $0.username }, onQueue: marked.isCurrent)
        }
        #expect(await fromDevice.wait())
        #expect(fromDevice.value == [CompatibilityFixture.username])
        #expect(fromDevice.onQueue)

        let current = Arrival<String?>()
        application.getCurrentAccount(with: parameters) { account, _, _ in
            current.arrive(account?.username, onQueue: marked.isCurrent)
        }
        #expect(await current.wait())
        #expect(current.value == CompatibilityFixture.username)
        #expect(current.onQueue)

        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        let signoutParameters = MSALSignoutParameters(webviewParameters: MSALWebviewParameters())
        signoutParameters.completionBlockQueue = marked.queue
        let signedOut = Arrival<Bool>()
        application.signout(with: account, signoutParameters: signoutParameters) { success, _ in
            signedOut.arrive(success, onQueue: marked.isCurrent)
        }
        #expect(await signedOut.wait())
        #expect(signedOut.value == true)
        #expect(signedOut.onQueue)
        #expect(try application.allAccounts().isEmpty)
    }

    @Test("The async twins: deviceInformation(with:), accountsFromDevice(for:), signout returning Bool")
    func asyncTwins() async throws {
        let fixture = try Self.fixture()
        let application = try fixture.application()
        let information = try await application.deviceInformation(with: nil)
        #expect(information.deviceMode == MSALDeviceMode.default)
        let accounts = try await application.accountsFromDevice(for: MSALAccountEnumerationParameters())
        #expect(accounts.map { $0.identifier } == [CompatibilityFixture.homeAccountID])
        let account = try #require(accounts.first)
        let done: Bool = try await application.signout(with: account, signoutParameters: MSALSignoutParameters())
        #expect(done)
    }
}
