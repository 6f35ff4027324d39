// The in-memory identity provider of the app-token benchmarks (AppTokenAcquisition, PostgresCache).

import Foundation
import MSAL
import Synchronization

/// Answers discovery for any tenant and the client credentials grant with `app-token-<tenant>`
/// while filling; fails every request once `closed`.
public final class FillingTransport: MSALHTTPTransport {
    /// A transport that answers until closed.
    public init() {}

    private let isClosed = Atomic(false)

    /// From now on every request fails the run.
    public func close() { isClosed.store(true, ordering: .relaxed) }

    /// Discovery, metadata and the client credentials grant; a precondition failure once closed.
    public func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        precondition(!isClosed.load(ordering: .relaxed), "a cache hit sent \(request.method) \(request.url)")
        let segments = request.url.path.split(separator: "/").map(String.init)
        let base = "https://login.microsoftonline.com/\(segments.first ?? "")"
        if segments == ["common", "discovery", "instance"] {
            let body = """
                {"tenant_discovery_endpoint":"https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",
                 "api-version":"1.1","metadata":[{"preferred_network":"login.microsoftonline.com","preferred_cache":"login.windows.net",
                 "aliases":["login.microsoftonline.com","login.windows.net","login.microsoft.com","sts.windows.net"]}]}
                """
            return MSALHTTPResponse(statusCode: 200, body: Array(body.utf8))
        }
        if segments.suffix(3) == ["v2.0", ".well-known", "openid-configuration"] {
            let body = """
                {"token_endpoint":"\(base)/oauth2/v2.0/token","authorization_endpoint":"\(base)/oauth2/v2.0/authorize",
                 "issuer":"https://login.microsoftonline.com/\(segments[0])/v2.0","jwks_uri":"\(base)/discovery/v2.0/keys"}
                """
            return MSALHTTPResponse(statusCode: 200, body: Array(body.utf8))
        }
        if segments.suffix(3) == ["oauth2", "v2.0", "token"] {
            let body = #"{"token_type":"Bearer","expires_in":315360000,"access_token":"app-token-\#(segments[0])"}"#
            return MSALHTTPResponse(statusCode: 200, body: Array(body.utf8))
        }
        return MSALHTTPResponse(statusCode: 404, body: [])
    }
}
