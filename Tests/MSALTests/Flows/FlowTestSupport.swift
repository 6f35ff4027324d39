import Foundation
import MSALJOSE
import MSALJSON
import MSALSupport
import Testing

@testable import MSAL

/// Collects values from callbacks that may run on any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    func append(_ value: Value) { storage.withLock { $0.append(value) } }

    var values: [Value] { storage.withLock { $0 } }
}

// MARK: - Identities and keys

/// Signing keys generated once per test process (an RSA key costs tens of milliseconds).
enum FlowKeys {
    /// The key the fake identity provider publishes in its JWKS.
    static let trusted = make("flow-rsa")
    /// Another key claiming the same kid: its signatures must not verify.
    static let attacker = make("flow-rsa")

    private static func make(_ keyID: String) -> JWSSigningKey {
        do {
            return try JWSSigningKey.generateRSA(keyID: keyID)
        } catch {
            fatalError("test key generation failed: \(error)")
        }
    }

    /// The JWKS document of ``trusted``.
    static let jwks: [UInt8] = {
        do {
            return JSONWriter.write(.object(["keys": .array([try trusted.publicJWK()])]))
        } catch {
            fatalError("\(error)")
        }
    }()
}

/// An account of the fake identity provider.
struct TestAccount: Sendable {
    var uid: String
    var tenant: String
    var username: String

    var home: String { "\(uid).\(tenant)" }

    static let abe = TestAccount(uid: "00000000-0000-0000-66f3-3332eca7ea81", tenant: FlowIdentity.tenant, username: "abe@contoso.com")
    static let ben = TestAccount(uid: "11111111-1111-4111-8111-111111111111", tenant: FlowIdentity.tenant, username: "ben@contoso.com")
}

enum FlowIdentity {
    static let clientID = "6cb04018-a3f5-46a7-b995-940c78f5aef3"
    static let tenant = "12345678-1234-1234-1234-123456789012"
    static let host = "login.microsoftonline.com"
    /// When the tokens the tests mint were issued; they are valid for an hour.
    static let issued: Int64 = 1_700_000_000
    /// The clock every harness starts at (inside the tokens' validity).
    static let now: Double = 1_700_001_000

    static func tokenEndpoint(_ tenant: String = tenant) -> String { "https://\(host)/\(tenant)/oauth2/v2.0/token" }
}

/// Builds ID tokens and token responses.
enum FlowTokens {
    static func clientInfo(_ account: TestAccount) -> String {
        Base64URL.encode(JSONWriter.write(.object(["uid": .string(account.uid), "utid": .string(account.tenant)])))
    }

    /// A signed ID token for `account`; `changes` replace claims (`nil` removes one).
    static func idToken(
        _ account: TestAccount, audience: String = FlowIdentity.clientID, key: JWSSigningKey = FlowKeys.trusted,
        _ changes: KeyValuePairs<String, JSON?> = [:]
    ) -> String {
        var claims: [JSONMember] = [
            JSONMember(name: "ver", value: .string("2.0")),
            JSONMember(name: "iss", value: .string("https://\(FlowIdentity.host)/\(account.tenant)/v2.0")),
            JSONMember(name: "sub", value: .string("sub-" + account.uid)),
            JSONMember(name: "aud", value: .string(audience)),
            JSONMember(name: "exp", value: .integer(FlowIdentity.issued + 3600)),
            JSONMember(name: "iat", value: .integer(FlowIdentity.issued)),
            JSONMember(name: "nbf", value: .integer(FlowIdentity.issued)),
            JSONMember(name: "oid", value: .string(account.uid)),
            JSONMember(name: "tid", value: .string(account.tenant)),
            JSONMember(name: "preferred_username", value: .string(account.username)),
        ]
        for (name, value) in changes {
            if let index = claims.firstIndex(where: { $0.name == name }) {
                if let value { claims[index].value = value } else { claims.remove(at: index) }
            } else if let value {
                claims.append(JSONMember(name: name, value: value))
            }
        }
        do {
            return try key.sign(claims: .object(claims))
        } catch {
            fatalError("\(error)")
        }
    }

    /// A 200 token response body.
    static func success(
        accessToken: String, refreshToken: String? = nil, account: TestAccount = .abe, scope: String = "email openid profile User.Read",
        expiresIn: Int = 3599, extendedExpiresIn: Int? = nil, idToken: String?? = .none, clientInfo: String?? = .none
    ) -> MSALHTTPResponse {
        var members: [JSONMember] = [
            JSONMember(name: "token_type", value: .string("Bearer")),
            JSONMember(name: "scope", value: .string(scope)),
            JSONMember(name: "expires_in", value: .integer(expiresIn)),
            JSONMember(name: "ext_expires_in", value: .integer(extendedExpiresIn ?? expiresIn)),
            JSONMember(name: "access_token", value: .string(accessToken)),
        ]
        if let refreshToken { members.append(JSONMember(name: "refresh_token", value: .string(refreshToken))) }
        if let token = idToken ?? Self.idToken(account) { members.append(JSONMember(name: "id_token", value: .string(token))) }
        if let info = clientInfo ?? Self.clientInfo(account) { members.append(JSONMember(name: "client_info", value: .string(info))) }
        return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: JSONWriter.write(.object(members)))
    }

    /// An OAuth error response.
    static func error(_ status: Int, _ body: String, headers: MSALHTTPHeaders = [:]) -> MSALHTTPResponse {
        .json(status, body, headers: headers)
    }
}

// MARK: - Transport

/// A fake identity provider: instance discovery, tenant metadata and the JWKS for any tenant on
/// `login.microsoftonline.com` (answered every time), and the token and device code endpoints
/// answered by the test's handler. Records every request.
final class FlowTransport: MSALHTTPTransport {
    typealias Handler = @Sendable (MSALHTTPRequest) async throws -> MSALHTTPResponse

    private let tokenHandler: Handler
    private let deviceCodeHandler: Handler?
    private let sent = Mutex<[MSALHTTPRequest]>([])

    init(token: @escaping Handler, deviceCode: Handler? = nil) {
        self.tokenHandler = token
        self.deviceCodeHandler = deviceCode
    }

    /// Answers token requests from `steps`, in order; a request beyond them fails the test.
    convenience init(_ steps: [QueueTransport.Step]) {
        let queue = QueueTransport(steps)
        self.init(token: { try await queue.send($0, limits: .default) })
    }

    var requests: [MSALHTTPRequest] { sent.withLock { $0 } }

    /// The POSTs to a token endpoint.
    var tokenRequests: [MSALHTTPRequest] { requests.filter { $0.method == .post && $0.url.path.hasSuffix("/oauth2/v2.0/token") } }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        sent.withLock { $0.append(request) }
        let path = request.url.path
        let segments = path.split(separator: "/").map(String.init)
        if request.method == .post {
            if path.hasSuffix("/oauth2/v2.0/token") { return try await tokenHandler(request) }
            if path.hasSuffix("/oauth2/v2.0/devicecode"), let deviceCodeHandler { return try await deviceCodeHandler(request) }
        } else if path == "/common/discovery/instance" {
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let authorize = query.first { $0.name == "authorization_endpoint" }?.value ?? ""
            let tenant = URL(string: authorize)?.path.split(separator: "/").first.map(String.init) ?? "common"
            return .json(200, Self.discovery(tenant))
        } else if path.hasSuffix("/v2.0/.well-known/openid-configuration"), let tenant = segments.first {
            return .json(200, Self.configuration(tenant))
        } else if path.hasSuffix("/discovery/v2.0/keys") {
            return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: FlowKeys.jwks)
        }
        return MSALHTTPResponse(statusCode: 404, text: "not scripted: \(request.method) \(request.url.absoluteString)")
    }

    static func discovery(_ tenant: String) -> String {
        """
        {"tenant_discovery_endpoint":"https://\(FlowIdentity.host)/\(tenant)/v2.0/.well-known/openid-configuration","api-version":"1.1",\
        "metadata":[{"preferred_network":"login.microsoftonline.com","preferred_cache":"login.windows.net",\
        "aliases":["login.microsoftonline.com","login.windows.net","login.microsoft.com","sts.windows.net"]}]}
        """
    }

    static func configuration(_ tenant: String) -> String {
        let base = "https://\(FlowIdentity.host)/\(tenant)"
        let issuer = tenant == "common" || tenant == "organizations" ? "https://\(FlowIdentity.host)/{tenantid}/v2.0" : "\(base)/v2.0"
        return """
            {"issuer":"\(issuer)","authorization_endpoint":"\(base)/oauth2/v2.0/authorize","token_endpoint":"\(base)/oauth2/v2.0/token",\
            "device_authorization_endpoint":"\(base)/oauth2/v2.0/devicecode","end_session_endpoint":"\(base)/oauth2/v2.0/logout",\
            "jwks_uri":"\(base)/discovery/v2.0/keys","response_types_supported":["code"],"id_token_signing_alg_values_supported":["RS256"]}
            """
    }
}

// MARK: - Harness

/// An application on the fake identity provider with a manual clock and an in-memory cache.
struct FlowHarness {
    let clock: ManualClock
    let transport: FlowTransport
    let app: MSALPublicClientApplication

    init(
        _ transport: FlowTransport, clientID: String = FlowIdentity.clientID,
        authority: String = "https://login.microsoftonline.com/common",
        extendedLifetime: Bool = false, capabilities: [String]? = nil, expirationBuffer: Double? = nil, now: Double = FlowIdentity.now,
        cacheConfig: MSALCacheConfig = .memory
    ) throws {
        let clock = ManualClock(now)
        let config = MSALPublicClientApplicationConfig(
            clientId: clientID, redirectUri: nil, authority: try MSALAuthority.authority(url: URL(string: authority)!))
        config.cacheConfig = cacheConfig
        config.transport = transport
        config.clock = clock
        config.extendedLifetimeEnabled = extendedLifetime
        config.clientApplicationCapabilities = capabilities
        if let expirationBuffer { config.tokenExpirationBuffer = expirationBuffer }
        self.clock = clock
        self.transport = transport
        self.app = try MSALPublicClientApplication(configuration: config)
    }

    /// Stores what a sign-in of `account` at ``FlowIdentity/issued`` would have stored: an access
    /// token for `scope` living `lifetime` seconds, the refresh token, the ID token and the account.
    func seed(
        _ account: TestAccount, accessToken: String = "at-cached", lifetime: Int64 = 4600, extendedLifetime: Int64? = nil,
        refreshToken: String? = "rt-1", scope: String = "email openid profile User.Read", refreshIn: Int64? = nil
    ) throws {
        let clientID = app.configuration.clientId
        let response = TokenResponse(
            accessToken: accessToken, expiresIn: lifetime, extendedExpiresIn: extendedLifetime, refreshIn: refreshIn,
            refreshToken: refreshToken, idToken: FlowTokens.idToken(account, audience: clientID),
            clientInfo: FlowTokens.clientInfo(account), scope: scope)
        let context = TokenCacheWriteContext(
            clientID: clientID, environment: "login.windows.net", authorityTenant: account.tenant, requestedScopes: [],
            now: FlowIdentity.issued)
        let entries = try TokenCacheEntries(response: response, context: context)
        try app.cache.write(clientID: clientID) { $0.save(entries, clientID: clientID) }
    }

    func account(_ account: TestAccount) throws -> MSALAccount {
        try app.account(forIdentifier: account.home)
    }

    func silent(_ account: TestAccount, scopes: [String] = ["User.Read"], forceRefresh: Bool = false) async throws -> MSALResult {
        let parameters = MSALSilentTokenParameters(scopes: scopes, account: try self.account(account))
        parameters.forceRefresh = forceRefresh
        return try await app.acquireTokenSilent(with: parameters)
    }

    /// The secrets in one cache section, sorted.
    func secrets(_ section: CacheSection) throws -> [String] {
        try app.cache.read(clientID: app.configuration.clientId) { contents in
            contents.document[section].values.compactMap { $0["secret"] }.sorted()
        }
    }
}

/// Runs `body` and returns the ``MSALFailure`` it throws; records an issue when it returns or throws another error.
func expectMSALError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> MSALFailure? {
    do {
        let value = try await body()
        Issue.record("expected an MSALFailure, got \(value)", sourceLocation: sourceLocation)
    } catch let error as MSALFailure {
        return error
    } catch {
        Issue.record("expected an MSALFailure, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
