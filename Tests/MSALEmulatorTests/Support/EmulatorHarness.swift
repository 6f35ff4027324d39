import Foundation
import MSAL
import MSALEmulator
import MSALSupport
import Testing

/// The app's clock, tied to the emulator's: `now` is the emulator's time, and waiting moves the
/// emulator's clock instead of the wall clock, so waits (retry intervals, `Retry-After`, device
/// code polling) take no real time and both sides always agree on the time.
final class EmulatorLinkedClock: MSALClock {
    private let emulator: MSALEmulator
    private let waits = Mutex<[Double]>([])

    init(_ emulator: MSALEmulator) {
        self.emulator = emulator
    }

    func now() -> Date { emulator.now }

    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        waits.withLock { $0.append(seconds) }
        if seconds > 0 { emulator.advanceClock(by: seconds) }
        await Task.yield()
    }

    /// Every wait asked of the clock, in order.
    var sleeps: [Double] { waits.withLock { $0 } }
}

/// An app-supplied web UI that drives the emulator's sign-in page over HTTP and hands the
/// redirect back to the SDK.
final class EmulatorPageWebUI: MSALWebUI {
    enum Action: Sendable {
        case signIn(username: String?)
        case cancel
    }

    private let action: Action
    private let presented = Mutex<[URL]>([])

    init(_ action: Action) {
        self.action = action
    }

    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        presented.withLock { $0.append(authorizationURL) }
        switch action {
        case .signIn(let username):
            return try await MSALEmulator.SignInDriver(username: username).signIn(authorizationURL: authorizationURL)
        case .cancel:
            return try await MSALEmulator.SignInDriver().cancel(authorizationURL: authorizationURL)
        }
    }

    /// The authorization URLs shown, in order.
    var authorizationURLs: [URL] { presented.withLock { $0 } }
}

/// A running emulator and helpers to build applications against it.
struct EmulatorHarness: Sendable {
    let emulator: MSALEmulator
    let clock: EmulatorLinkedClock

    static let contoso = MSALEmulator.Configuration.sampleContosoTenantID
    static let fabrikam = MSALEmulator.Configuration.sampleFabrikamTenantID
    static let clientID = MSALEmulator.Configuration.sampleClientID
    static let familyClientID = MSALEmulator.Configuration.sampleFamilyClientID
    static let standaloneClientID = MSALEmulator.Configuration.sampleStandaloneClientID
    static let adele = "adele@contoso.example"
    static let ben = "ben@contoso.example"
    static let grace = "grace@fabrikam.example"

    /// The sample directory with a device code lifetime long enough for any number of instant polls.
    static var configuration: MSALEmulator.Configuration {
        var configuration = MSALEmulator.Configuration.sample
        configuration.lifetimes.deviceCode = 30 * 86_400
        return configuration
    }

    /// Runs `body` with a started emulator, shut down afterwards.
    static func with<T>(
        _ configuration: MSALEmulator.Configuration = EmulatorHarness.configuration, _ body: (EmulatorHarness) async throws -> T
    ) async throws -> T {
        let emulator = try MSALEmulator(configuration: configuration)
        try await emulator.start()
        let harness = EmulatorHarness(emulator: emulator, clock: EmulatorLinkedClock(emulator))
        do {
            let result = try await body(harness)
            try await emulator.shutdown()
            return result
        } catch {
            try? await emulator.shutdown()
            throw error
        }
    }

    /// The authority of `tenant` with the loopback opt-in.
    func authority(_ tenant: String = "common") throws -> MSALAADAuthority {
        try MSALAADAuthority(url: emulator.authorityURL(tenant: tenant), options: .allowInsecureLoopback)
    }

    /// An application of `clientID` with an in-memory cache, the default URLSession transport and the linked clock.
    func application(clientID: String = EmulatorHarness.clientID, tenant: String = "common") throws -> MSALPublicClientApplication {
        let configuration = MSALPublicClientApplicationConfig(clientId: clientID, redirectUri: nil, authority: try authority(tenant))
        configuration.cacheConfig = .memory
        configuration.clock = clock
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// Interactive parameters whose web UI signs `username` in on the emulator's page.
    static func interactive(_ scopes: [String] = ["User.Read"], as username: String?) -> (MSALInteractiveTokenParameters, EmulatorPageWebUI)
    {
        let webUI = EmulatorPageWebUI(.signIn(username: username))
        return (MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: MSALWebviewParameters(webUI: webUI)), webUI)
    }

    /// Signs `username` in interactively.
    func signIn(_ app: MSALPublicClientApplication, as username: String, scopes: [String] = ["User.Read"]) async throws -> MSALResult {
        let (parameters, _) = Self.interactive(scopes, as: username)
        return try await app.acquireToken(with: parameters)
    }

    /// Signs `username` in with the device code flow: the code the library hands out is approved
    /// on the emulator as that user.
    func signInWithDeviceCode(
        _ app: MSALPublicClientApplication, _ parameters: MSALTokenParameters, as username: String
    ) async throws -> MSALResult {
        let (codes, continuation) = AsyncStream.makeStream(of: MSALDeviceCodeInfo.self)
        let task = Task {
            defer { continuation.finish() }
            return try await app.acquireTokenWithDeviceCode(with: parameters) { continuation.yield($0) }
        }
        var iterator = codes.makeAsyncIterator()
        guard let info = await iterator.next() else { return try await task.value }
        try emulator.approveDeviceCode(userCode: info.userCode, as: username)
        return try await task.value
    }

    /// Sends a request to the emulator and returns status, headers and JSON body.
    func call(
        _ method: String, _ path: String, headers: [(String, String)] = [], form: [(String, String)]? = nil, body: [UInt8]? = nil
    )
        async throws -> RawResponse
    {
        try await RawResponse.send(method, URL(string: emulator.baseURL.absoluteString + path)!, headers: headers, form: form, body: body)
    }

    /// The emulator's `GET /resource/me` with `authorization`.
    func resource(_ authorization: String?) async throws -> RawResponse {
        try await call("GET", "/resource/me", headers: authorization.map { [("Authorization", $0)] } ?? [])
    }
}

/// An HTTP answer for assertions.
struct RawResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:]
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The AADSTS numbers of an error body.
    var errorCodes: [Int] { (json["error_codes"] as? [Int]) ?? [] }

    var error: String? { json["error"] as? String }

    /// The query parameters of the `Location` header.
    var locationQuery: [String: String] {
        guard let location = headers["location"], let components = URLComponents(string: location) else { return [:] }
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// Sends one request with URLSession-free plumbing: a fresh connection, no redirects followed.
    static func send(
        _ method: String, _ url: URL, headers: [(String, String)] = [], form: [(String, String)]? = nil, body: [UInt8]? = nil
    )
        async throws -> RawResponse
    {
        var allHeaders = headers
        var payload = body ?? []
        if let form {
            allHeaders.append(("Content-Type", "application/x-www-form-urlencoded"))
            payload = Array(Self.formEncoded(form).utf8)
        }
        let response = try await LoopbackHTTP.send(method, url, headers: allHeaders, body: payload)
        return response
    }

    static func formEncoded(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map {
            ($0.0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + ($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}

/// Plain HTTP over loopback for tests (the emulator's own client, which never follows redirects).
enum LoopbackHTTP {
    static func send(_ method: String, _ url: URL, headers: [(String, String)], body: [UInt8]) async throws -> RawResponse {
        let response = try await EmulatorHTTPClient().send(method, url, headers: headers, body: body)
        var headerMap: [String: String] = [:]
        for (name, value) in response.headers where headerMap[name] == nil { headerMap[name] = value }
        return RawResponse(status: response.status, headers: headerMap, body: Data(response.body))
    }
}
