import Foundation
import MSALJSON
import MSALSupport
import Testing

@testable import MSAL

/// What a token answer's `expires_in` of 0, a negative one and a missing one do to the result and
/// the cache (issue 39, finding 8), decided as MSAL for Python, .NET and Go do it
/// (docs/token-acquisition.md "Token lifetime"):
///
/// - 0 from a token endpoint is accepted: the result expires now, the answer's refresh token, ID
///   token and account are cached, and the access token is written expiring at once, so no lookup
///   ever serves it (the next request asks the token endpoint again).
/// - A negative or missing `expires_in` is an `internalErrorInvalidResponse`; nothing is cached.
/// - A managed identity source's 0 is `managedIdentityRequestFailed`, nothing cached (MSAL.NET's
///   `CreateFromManagedIdentityResponse` refuses `expiresIn <= 0`).
@Suite("Token lifetime: expires_in 0, negative and missing")
struct TokenLifetimeTests {
    static func answer(expiresIn: String?, accessToken: String = "at-new", refreshToken: String = "rt-new") -> MSALHTTPResponse {
        var members: [JSONMember] = [
            JSONMember(name: "token_type", value: .string("Bearer")), JSONMember(name: "scope", value: .string("User.Read")),
            JSONMember(name: "access_token", value: .string(accessToken)), JSONMember(name: "refresh_token", value: .string(refreshToken)),
            JSONMember(name: "id_token", value: .string(FlowTokens.idToken(.abe))),
            JSONMember(name: "client_info", value: .string(FlowTokens.clientInfo(.abe))),
        ]
        if let expiresIn {
            // A JSON string when quoted, else a JSON number.
            let value: JSON = expiresIn.hasPrefix("\"") ? .string(String(expiresIn.dropFirst().dropLast())) : .number(expiresIn)
            members.append(JSONMember(name: "expires_in", value: value))
        }
        return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: JSONWriter.write(.object(members)))
    }

    @Test(
        "expires_in 0 on a refresh: the result expires now, the new refresh token is kept, the access token is never served from the cache",
        arguments: ["0", #""0""#, "0.4"])
    func zeroOnRefresh(expiresIn: String) async throws {
        let requests = Mutex(0)
        let transport = FlowTransport(token: { _ in
            let count = requests.withLock {
                $0 += 1
                return $0
            }
            return Self.answer(expiresIn: expiresIn, accessToken: "at-new-\(count)", refreshToken: "rt-new-\(count)")
        })
        let harness = try FlowHarness(transport)
        try harness.seed(.abe)
        let result = try await harness.silent(.abe, forceRefresh: true)
        #expect(result.accessToken == "at-new-1")
        #expect(result.tokenSource == .identityProvider)
        #expect(result.expiresOn == harness.clock.now())
        #expect(try harness.secrets(.refreshToken) == ["rt-new-1"])
        // Not from the cache: the token endpoint is asked again, with the new refresh token.
        let next = try await harness.silent(.abe)
        #expect(next.accessToken == "at-new-2")
        #expect(next.tokenSource == .identityProvider)
        #expect(transport.tokenRequests.count == 2)
        let form = Dictionary(try #require(transport.tokenRequests.last).formParameters, uniquingKeysWith: { first, _ in first })
        #expect(form["refresh_token"] == "rt-new-1")
    }

    @Test(
        "A negative or missing expires_in on a refresh: invalidResponse naming it; the cache file is unchanged",
        arguments: ["-1", #""-3600""#, nil])
    func negativeOrMissing(expiresIn: String?) async throws {
        let file = try CacheFileSnapshot()
        let transport = FlowTransport(token: { _ in Self.answer(expiresIn: expiresIn) })
        let harness = try FlowHarness(transport, cacheConfig: file.config)
        try harness.seed(.abe)
        let before = try #require(file.bytes)
        let error = await expectMSALError { try await harness.silent(.abe, forceRefresh: true) }
        #expect(error?.internalCode == .internalErrorInvalidResponse)
        #expect(error?.message.contains("expires_in") == true, "\(String(describing: error?.message))")
        #expect(error?.httpStatusCode == 200)
        #expect(file.bytes == before)
    }

    @Test("expires_in 0 for an app token: the result expires now, and the next request asks the token endpoint again")
    func zeroForAppToken() async throws {
        let file = try CacheFileSnapshot()
        let requests = Mutex(0)
        let transport = FlowTransport(token: { _ in
            let count = requests.withLock {
                $0 += 1
                return $0
            }
            return .json(200, #"{"token_type":"Bearer","expires_in":0,"access_token":"at-app-\#(count)"}"#)
        })
        let app = try HostileTokenFlowTests.confidential(transport, file: file)
        let first = try await app.acquireTokenForClient(scopes: ["api://a/.default"])
        #expect(first.accessToken == "at-app-1")
        #expect(first.expiresOn == Date(timeIntervalSince1970: FlowIdentity.now))
        let second = try await app.acquireTokenForClient(scopes: ["api://a/.default"])
        #expect(second.accessToken == "at-app-2")
        #expect(second.tokenSource == .identityProvider)
    }

    @Test(
        "A managed identity source's expires_in 0 or negative: managedIdentityRequestFailed, the cache file unchanged",
        arguments: [#""0""#, "0", "-5"])
    func managedIdentityZero(expiresIn: String) async throws {
        let file = try CacheFileSnapshot()
        let (app, _, _) = try ManagedIdentityTests.app(
            steps: [ManagedIdentityTests.token("mi-good"), ManagedIdentityTests.token("mi-dead", expiresIn: expiresIn)], cache: file.config)
        _ = try await app.acquireToken(forResource: "https://good.example")
        let before = try #require(file.bytes)
        let error = await expectMSALError { try await app.acquireToken(forResource: "https://dead.example") }
        #expect(error?.internalCode == .managedIdentityRequestFailed)
        #expect(error?.httpStatusCode == 200)
        #expect(file.bytes == before)
    }
}
