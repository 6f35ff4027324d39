import Dispatch
import Foundation
import MSAL

/// What the compatibility tests run against: a token cache file as another MSAL would have written
/// it (one signed-in account with a refresh token, an ID token and an access token), and a stub
/// identity platform on the application's transport that answers discovery and metadata and, for
/// the token endpoint, whatever the test scripts.
///
/// Everything here uses only swift-msal's public API, as an app's test code would.
final class CompatibilityFixture: @unchecked Sendable {
    // @unchecked Sendable: `directory`, `cachePath` and `transport` are `let`s set once; the
    // transport is Sendable.

    static let clientID = "5b7d0e3a-9c2f-4e61-8a4d-2f1c6b9e0a17"
    static let uid = "00000000-0000-0000-66f3-3332eca7ea81"
    static let utid = "3338040d-6c67-4c5b-b112-36a304b66dad"
    static let username = "adele@contoso.example"
    static var homeAccountID: String { "\(uid).\(utid)" }

    let directory: URL
    let cachePath: String
    let transport: StubPlatform

    /// A cache whose access token for `User.Read` expires at `accessTokenExpiresOn` (seconds since
    /// 1970), and a transport answering token requests with `token`.
    init(accessTokenExpiresOn: Int, token: @escaping @Sendable () -> MSALHTTPResponse) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-ios-compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        cachePath = directory.appendingPathComponent("msal_cache.json").path
        let document = Self.cacheDocument(accessTokenExpiresOn: accessTokenExpiresOn)
        _ = FileManager.default.createFile(atPath: cachePath, contents: Data(document.utf8), attributes: [.posixPermissions: 0o600])
        transport = StubPlatform(token: token)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// An application configured as an iOS app configures MSAL, on this fixture's cache and transport.
    func application() throws -> MSALPublicClientApplication {
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
        let config = MSALPublicClientApplicationConfig(clientId: Self.clientID, redirectUri: nil, authority: authority)
        config.cacheConfig = MSALCacheConfig(storage: .file(path: cachePath))
        config.transport = transport
        return try MSALPublicClientApplication(configuration: config)
    }

    /// The unified cache schema, as MSAL for Python or .NET writes it.
    static func cacheDocument(accessTokenExpiresOn: Int) -> String {
        let environment = "login.microsoftonline.com"
        let home = homeAccountID
        let now = Int(Date().timeIntervalSince1970)
        let idToken = unsignedJWT([
            "aud": clientID, "iss": "https://login.microsoftonline.com/\(utid)/v2.0", "iat": now - 60, "nbf": now - 60,
            "exp": now + 3600, "name": "Adele Vance", "oid": uid, "preferred_username": username, "sub": "s-adele", "tid": utid,
            "ver": "2.0",
        ])
        let clientInfo = base64URL(Data(#"{"uid":"\#(uid)","utid":"\#(utid)"}"#.utf8))
        return """
            {
              "Account": {
                "\(home)-\(environment)-\(utid)": {
                  "home_account_id": "\(home)", "environment": "\(environment)", "realm": "\(utid)",
                  "local_account_id": "\(uid)", "username": "\(username)", "name": "Adele Vance",
                  "authority_type": "MSSTS", "client_info": "\(clientInfo)"
                }
              },
              "IdToken": {
                "\(home)-\(environment)-idtoken-\(clientID)-\(utid)-": {
                  "home_account_id": "\(home)", "environment": "\(environment)", "realm": "\(utid)",
                  "credential_type": "IdToken", "client_id": "\(clientID)", "secret": "\(idToken)"
                }
              },
              "AccessToken": {
                "\(home)-\(environment)-accesstoken-\(clientID)-\(utid)-user.read openid profile": {
                  "home_account_id": "\(home)", "environment": "\(environment)", "realm": "\(utid)",
                  "credential_type": "AccessToken", "client_id": "\(clientID)", "secret": "at-cached",
                  "target": "User.Read openid profile", "token_type": "Bearer",
                  "cached_at": "\(now - 60)", "expires_on": "\(accessTokenExpiresOn)", "extended_expires_on": "\(accessTokenExpiresOn)"
                }
              },
              "RefreshToken": {
                "\(home)-\(environment)-refreshtoken-\(clientID)--": {
                  "home_account_id": "\(home)", "environment": "\(environment)",
                  "credential_type": "RefreshToken", "client_id": "\(clientID)", "secret": "rt-cached"
                }
              },
              "AppMetadata": {
                "appmetadata-\(environment)-\(clientID)": { "client_id": "\(clientID)", "environment": "\(environment)" }
              }
            }
            """
    }

    static func unsignedJWT(_ claims: [String: Any]) -> String {
        let header = base64URL(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = base64URL((try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data())
        return "\(header).\(payload)."
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The identity platform's discovery, metadata and token endpoints, answered in the process.
final class StubPlatform: MSALHTTPTransport, @unchecked Sendable {
    // @unchecked Sendable: `tokenCalls` is read and written only under `count`; `token` is a
    // Sendable closure set once.
    private let token: @Sendable () -> MSALHTTPResponse
    private let count = NSLock()
    private var tokenCalls = 0

    init(token: @escaping @Sendable () -> MSALHTTPResponse) {
        self.token = token
    }

    var tokenRequests: Int {
        count.withLock { tokenCalls }
    }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let path = request.url.path
        if request.method == .post, path.hasSuffix("/oauth2/v2.0/token") {
            count.withLock { tokenCalls += 1 }
            return token()
        }
        if path == "/common/discovery/instance" {
            return Self.json(
                200,
                """
                {"tenant_discovery_endpoint":"https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",\
                "api-version":"1.1","metadata":[{"preferred_network":"login.microsoftonline.com",\
                "preferred_cache":"login.windows.net","aliases":["login.microsoftonline.com","login.windows.net",\
                "login.microsoft.com","sts.windows.net"]}]}
                """)
        }
        if path.hasSuffix("/v2.0/.well-known/openid-configuration") {
            let tenant = path.split(separator: "/").first.map(String.init) ?? "common"
            let base = "https://login.microsoftonline.com/\(tenant)"
            let issuer = tenant == "common" ? "https://login.microsoftonline.com/{tenantid}/v2.0" : "\(base)/v2.0"
            return Self.json(
                200,
                """
                {"issuer":"\(issuer)","authorization_endpoint":"\(base)/oauth2/v2.0/authorize",\
                "token_endpoint":"\(base)/oauth2/v2.0/token","end_session_endpoint":"\(base)/oauth2/v2.0/logout",\
                "jwks_uri":"\(base)/discovery/v2.0/keys","response_types_supported":["code"],\
                "id_token_signing_alg_values_supported":["RS256"]}
                """)
        }
        return MSALHTTPResponse(statusCode: 404, headers: [:], body: Array("not scripted".utf8))
    }

    static func json(_ status: Int, _ body: String) -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }
}

/// A serial queue that knows itself: a completion block checks it was called on it.
struct MarkedQueue: @unchecked Sendable {
    // @unchecked Sendable: DispatchQueue and DispatchSpecificKey are thread-safe; both are `let`s.
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<String>()
    private let label: String

    init(_ label: String) {
        self.label = label
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
    }

    /// Whether the calling code runs on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == label }
}
