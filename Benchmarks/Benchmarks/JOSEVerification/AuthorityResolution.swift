// Warm authority resolution: what every silent token request pays to learn its
// authority's endpoints once they are cached. Target: under 1 % of one RS256
// ID-token verification ("RS256 (a)") in the same run.

import Benchmark
import Foundation
import MSAL

/// Answers the two discovery requests of `https://login.microsoftonline.com/common` from memory.
struct PrimingTransport: MSALHTTPTransport {
    static let discovery = """
        {"tenant_discovery_endpoint":"https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration",\
        "api-version":"1.1","metadata":[{"preferred_network":"login.microsoftonline.com",\
        "preferred_cache":"login.windows.net","aliases":["login.microsoftonline.com","login.windows.net",\
        "login.microsoft.com","sts.windows.net"]}]}
        """
    static let configuration = """
        {"issuer":"https://login.microsoftonline.com/{tenantid}/v2.0",\
        "authorization_endpoint":"https://login.microsoftonline.com/common/oauth2/v2.0/authorize",\
        "token_endpoint":"https://login.microsoftonline.com/common/oauth2/v2.0/token",\
        "jwks_uri":"https://login.microsoftonline.com/common/discovery/v2.0/keys",\
        "end_session_endpoint":"https://login.microsoftonline.com/common/oauth2/v2.0/logout"}
        """

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let body = request.url.path.hasSuffix("/discovery/instance") ? Self.discovery : Self.configuration
        return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], text: body)
    }
}

func authorityResolutionBenchmarks() {
    let authority: MSALAuthority
    do {
        authority = try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/common")!)
    } catch {
        fatalError("authority: \(error)")
    }
    let resolver = MSALAuthorityResolver(transport: PrimingTransport())
    let correlationID = UUID()

    Benchmark(
        "Authority (e) warm resolution metadata(for:)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try await resolver.metadata(for: authority, correlationID: correlationID))
            }
        },
        setup: {
            let metadata = try await resolver.metadata(for: authority, correlationID: correlationID)
            precondition(metadata.cacheEnvironment == "login.windows.net")
            precondition(resolver.cachedMetadata(for: authority) != nil)
        }
    )
    Benchmark(
        "Authority (e) warm cachedMetadata(for:) (synchronous)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(resolver.cachedMetadata(for: authority))
            }
        },
        setup: {
            _ = try await resolver.metadata(for: authority, correlationID: correlationID)
            precondition(resolver.cachedMetadata(for: authority) != nil)
        }
    )
}
