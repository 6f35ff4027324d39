import Foundation
import MSALSupport
import MSALTesting
import Testing

@testable import MSAL

// Shared by ClientCredentialsFlowTests, OnBehalfOfFlowTests and ManagedIdentityFlowTests: the
// recorded interactions they replay (built in code, in the format of docs/fixtures.md), a
// confidential client on the replay transport, and a cache serializer that records partitions.

/// Builds the recorded interactions (``MSALRecordedFixture/Interaction``) the app-token flow suites
/// replay: the Microsoft Entra instance discovery and tenant metadata, token endpoint answers, and
/// any other request, in the format of `docs/fixtures.md`.
enum AppFlowReplay {
    /// The client secret of the confidential client.
    static let secret = "app-secret-value"
    /// A second tenant, for the authority override.
    static let otherTenant = "bbbbbbbb-2222-4222-8222-222222222222"

    /// The token endpoint of `tenant`.
    static func tokenEndpoint(_ tenant: String = FlowIdentity.tenant) -> String { FlowIdentity.tokenEndpoint(tenant) }

    /// A fixture named `name` replaying `interactions`.
    static func fixture(_ name: String, _ interactions: [MSALRecordedFixture.Interaction]) -> MSALRecordedFixture {
        MSALRecordedFixture(
            name: name, description: "Built in code by \(name)", provenance: [MSALRecordedFixture.Source(notes: "SYNTHETIC")],
            interactions: interactions)
    }

    /// An interaction: `method` on `url` (with `headers` and `form` to match), answered with
    /// `status`, `body` (JSON text) and `responseHeaders`.
    static func exchange(
        _ method: MSALHTTPRequest.Method, _ url: String, headers: MSALHTTPHeaders = [:], form: [String: String]? = nil, status: Int,
        body: String, responseHeaders: MSALHTTPHeaders = [:], repeatable: Bool = false
    ) -> MSALRecordedFixture.Interaction {
        var answerHeaders = responseHeaders
        if !answerHeaders.contains("Content-Type") { answerHeaders.add(name: "Content-Type", value: "application/json; charset=utf-8") }
        return MSALRecordedFixture.Interaction(
            request: MSALRecordedFixture.Request(method: method, url: URL(string: url)!, headers: headers, form: form),
            response: MSALRecordedFixture.Response(status: status, headers: answerHeaders, body: .text(body)), repeatable: repeatable)
    }

    /// Instance discovery for an authority naming `tenant`, then the tenant's OpenID configuration:
    /// what resolving `https://login.microsoftonline.com/<tenant>` asks the first time.
    static func metadata(_ tenant: String = FlowIdentity.tenant) -> [MSALRecordedFixture.Interaction] {
        let host = FlowIdentity.host
        return [
            exchange(
                .get,
                "https://\(host)/common/discovery/instance?api-version=1.1&authorization_endpoint=https://\(host)/\(tenant)/oauth2/v2.0/authorize",
                status: 200, body: FlowTransport.discovery(tenant)),
            configuration(tenant),
        ]
    }

    /// The OpenID configuration of `tenant` alone: what resolving another tenant on a host whose
    /// instance discovery is known asks.
    static func configuration(_ tenant: String) -> MSALRecordedFixture.Interaction {
        exchange(
            .get, "https://\(FlowIdentity.host)/\(tenant)/v2.0/.well-known/openid-configuration", status: 200,
            body: FlowTransport.configuration(tenant))
    }

    /// A POST to `tenant`'s token endpoint whose form holds `form`, answered with `status` and `body`.
    static func token(
        _ tenant: String = FlowIdentity.tenant, form: [String: String], status: Int = 200, body: String,
        responseHeaders: MSALHTTPHeaders = [:]
    ) -> MSALRecordedFixture.Interaction {
        exchange(.post, tokenEndpoint(tenant), form: form, status: status, body: body, responseHeaders: responseHeaders)
    }

    /// An OAuth error body as Microsoft Entra writes it.
    static func oauthError(_ error: String, _ description: String, claims: String? = nil) -> String {
        var body = #"{"error":"\#(error)","error_description":"\#(description)","error_codes":[50000],"#
        if let claims { body += #""claims":\#(claims.debugDescription),"# }
        return body + #""timestamp":"2023-11-14 22:30:00Z","trace_id":"trace","correlation_id":"server-side"}"#
    }

    /// The form of `request`, as sorted `name=value` lines: two requests compare equal only when
    /// they carry exactly the same parameters, each as many times.
    static func form(_ request: MSALHTTPRequest) -> [String] {
        request.formParameters.map { "\($0.0)=\($0.1)" }.sorted()
    }

    /// `parameters` as sorted `name=value` lines, to compare with ``form(_:)``.
    static func lines(_ parameters: [String: String]) -> [String] {
        parameters.map { "\($0.key)=\($0.value)" }.sorted()
    }

    /// The decoded query of `url`, as sorted `name=value` lines.
    static func query(_ url: URL) -> [String] {
        MSALFormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "").map {
            "\($0.0)=\($0.1)"
        }.sorted()
    }
}

/// A cache serializer that leaves the cache in memory and records, after each access, the
/// partition key the application suggested (``MSALTokenCacheAccess/suggestedCacheKey``).
final class PartitionRecorder: MSALTokenCacheSerializer {
    /// One cache access.
    struct Access: Sendable, Equatable {
        var key: String?
        var isWrite: Bool
        var isApplicationCache: Bool
    }

    private let log = Mutex<[Access]>([])

    func beforeAccess(_ access: MSALTokenCacheAccess) throws {}

    func afterAccess(_ access: MSALTokenCacheAccess) throws {
        let entry = Access(key: access.suggestedCacheKey, isWrite: access.isWrite, isApplicationCache: access.isApplicationCache)
        log.withLock { $0.append(entry) }
    }

    /// Every access, in order.
    var accesses: [Access] { log.withLock { $0 } }

    /// The partition keys of the writes, in order.
    var writeKeys: [String?] { accesses.filter(\.isWrite).map(\.key) }

    /// The partition keys of the reads, in order.
    var readKeys: [String?] { accesses.filter { !$0.isWrite }.map(\.key) }
}

/// A confidential client (``FlowIdentity/clientID``, secret ``AppFlowReplay/secret`` unless told
/// otherwise, authority `https://login.microsoftonline.com/<tenant>`) whose requests are answered
/// by an ``MSALReplayTransport``, with a manual clock at ``FlowIdentity/now``.
struct ConfidentialReplayHarness {
    let clock: ManualClock
    let transport: MSALReplayTransport
    let app: MSALConfidentialClientApplication

    init(
        _ name: String, _ interactions: [MSALRecordedFixture.Interaction],
        credential: MSALClientCredential = .secret(AppFlowReplay.secret), tenant: String = FlowIdentity.tenant,
        cacheConfig: MSALCacheConfig = .memory
    ) throws {
        let clock = ManualClock(FlowIdentity.now)
        let transport = MSALReplayTransport(fixture: AppFlowReplay.fixture(name, interactions))
        let config = MSALConfidentialClientApplicationConfig(
            clientId: FlowIdentity.clientID, clientCredential: credential,
            authority: try MSALAuthority.authority(url: URL(string: "https://\(FlowIdentity.host)/\(tenant)")!))
        config.cacheConfig = cacheConfig
        config.transport = transport
        config.clock = clock
        config.environment = [:]
        self.clock = clock
        self.transport = transport
        self.app = try MSALConfidentialClientApplication(configuration: config)
    }

    /// The requests sent so far.
    var sent: [MSALHTTPRequest] { transport.sentRequests }

    /// The POSTs to a token endpoint sent so far.
    var tokenRequests: [MSALHTTPRequest] { sent.filter { $0.method == .post && $0.url.path.hasSuffix("/oauth2/v2.0/token") } }

    /// The entries of one cache section, each as its members named `fields` (`<none>` when absent), sorted.
    func rows(_ section: CacheSection, _ fields: [String]) throws -> [[String]] {
        try app.cache.read(clientID: FlowIdentity.clientID) { contents in
            contents.document[section].values.map { entry in fields.map { entry[$0] ?? "<none>" } }.sorted {
                $0.lexicographicallyPrecedes($1)
            }
        }
    }

    /// The authority `https://login.microsoftonline.com/<tenant>`.
    static func authority(_ tenant: String) throws -> MSALAuthority {
        try MSALAuthority.authority(url: URL(string: "https://\(FlowIdentity.host)/\(tenant)")!)
    }
}
