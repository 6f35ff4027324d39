import Foundation
public import MSAL

/// Answers the validator's discovery, metadata and key requests for the samples' tenant from memory.
public struct SampleTenantTransport: MSALHTTPTransport {
    /// The transport.
    public init() {}

    /// The samples' tenant id.
    public static let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
    static let discovery = """
        {"tenant_discovery_endpoint":"https://login.microsoftonline.com/\(tenant)/v2.0/.well-known/openid-configuration",\
        "api-version":"1.1","metadata":[{"preferred_network":"login.microsoftonline.com",\
        "preferred_cache":"login.windows.net","aliases":["login.microsoftonline.com","login.windows.net",\
        "login.microsoft.com","sts.windows.net"]}]}
        """
    static let configuration = """
        {"issuer":"\(SampleFixtures.issuer)",\
        "authorization_endpoint":"https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/authorize",\
        "token_endpoint":"https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/token",\
        "jwks_uri":"https://login.microsoftonline.com/\(tenant)/discovery/v2.0/keys"}
        """

    /// The answer to `request`: the instance discovery, the JWK set, or the OpenID configuration.
    public func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let path = request.url.path
        let body: String
        if path.hasSuffix("/discovery/instance") {
            body = Self.discovery
        } else if path.hasSuffix("/discovery/v2.0/keys") {
            body = String(decoding: SampleFixtures.bytes("jwks.json"), as: UTF8.self)
        } else {
            body = Self.configuration
        }
        return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], text: body)
    }
}

/// The samples' validity window, frozen.
public struct SampleClock: MSALClock {
    /// The clock.
    public init() {}
    /// ``SampleFixtures/now``.
    public func now() -> Date { SampleFixtures.now }
    /// Returns at once.
    public func sleep(seconds: Double) async throws {}
}
