import Foundation
import MSALSupport
import Testing

@testable import MSAL

// MARK: - Clock

// MARK: - Transport

/// A transport failure the scripted transport throws (not an `MSALFailure`, so the pipeline must wrap it).
struct ScriptedNetworkError: Error, Sendable, CustomStringConvertible {
    var description: String { "scripted connection reset" }
}

/// Answers requests from a script keyed by the exact URL string, counts calls per URL and records every request.
///
/// Each URL has a list of replies used in order; the last one repeats. An unscripted URL gets a 404
/// and is recorded, so a test can assert on `requests` and `count(_:)`.
final class ScriptedTransport: MSALHTTPTransport, Sendable {
    enum Reply: Sendable {
        case response(MSALHTTPResponse)
        case failure(ScriptedNetworkError)
    }

    private struct State {
        var script: [String: [Reply]] = [:]
        var counts: [String: Int] = [:]
        var requests: [MSALHTTPRequest] = []
    }

    private let state = Mutex(State())
    /// Seconds every answer is held back (real time, `Task.sleep`).
    let delay: Double
    /// When set, answers are held until it returns (after the requests were counted).
    let gate: (@Sendable () async -> Void)?

    init(delay: Double = 0, gate: (@Sendable () async -> Void)? = nil) {
        self.delay = delay
        self.gate = gate
    }

    /// Scripts `replies` for `url` (replacing earlier ones).
    func on(_ url: String, _ replies: Reply...) {
        state.withLock { $0.script[url] = replies }
    }

    /// Scripts a 200 JSON answer.
    func on(_ url: String, json body: [UInt8], status: Int = 200) {
        on(url, .response(MSALHTTPResponse(statusCode: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body)))
    }

    func count(_ url: String) -> Int { state.withLock { $0.counts[url, default: 0] } }

    var totalCount: Int { state.withLock { $0.requests.count } }

    var requests: [MSALHTTPRequest] { state.withLock { $0.requests } }

    var requestedURLs: [String] { requests.map(\.url.absoluteString) }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let url = request.url.absoluteString
        let reply: Reply? = state.withLock { state in
            state.requests.append(request)
            let index = state.counts[url, default: 0]
            state.counts[url] = index + 1
            guard let replies = state.script[url], !replies.isEmpty else { return nil }
            return replies[min(index, replies.count - 1)]
        }
        if let gate { await gate() }
        if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
        switch reply {
        case .response(let response)?: return response
        case .failure(let error)?: throw error
        case nil: return MSALHTTPResponse(statusCode: 404, text: "unscripted URL \(url)")
        }
    }
}

/// Counts arrivals so a transport can hold its answer until every concurrent caller has started.
final class ArrivalCounter: Sendable {
    private let value = Mutex(0)

    func arrive() { value.withLock { $0 += 1 } }

    var count: Int { value.withLock { $0 } }

    /// Returns once `target` callers have arrived, then lets `settle` more seconds pass so they reach the cache.
    func wait(for target: Int, settle: Double = 0.05) async {
        while count < target {
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        try? await Task.sleep(nanoseconds: UInt64(settle * 1_000_000_000))
    }
}

// MARK: - Harness

/// One resolver with a fresh store, a manual clock and a scripted transport.
struct ResolverHarness {
    let clock: ManualClock
    let transport: ScriptedTransport
    let store: AuthorityMetadataStore
    let resolver: AuthorityResolver

    init(
        policy: AuthorityValidationPolicy = AuthorityValidationPolicy(), transport: ScriptedTransport = ScriptedTransport(),
        now: Double = 1_700_001_000
    ) {
        let clock = ManualClock(now)
        self.clock = clock
        self.transport = transport
        self.store = AuthorityMetadataStore(clock: clock)
        // No retries here: these tests count requests to check the caches; retries are HTTPPipelineTests' subject.
        var configuration = HTTPPipelineConfiguration()
        configuration.retryCount = 0
        self.resolver = AuthorityResolver(
            pipeline: HTTPPipeline(transport: transport, clock: clock, configuration: configuration), store: store, policy: policy)
    }

    func resolve(_ authority: MSALAuthority) async throws -> MSALAuthorityMetadata {
        try await resolver.resolve(authority, correlationID: AuthorityURLs.correlationID)
    }

    func resolve(_ authority: String, options: MSALAuthorityOptions = []) async throws -> MSALAuthorityMetadata {
        try await resolve(try MSALAuthority.authority(url: URL(string: authority)!, options: options))
    }
}

/// URLs the resolver tests script.
enum AuthorityURLs {
    static let correlationID = UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!

    static let commonDiscovery =
        "https://login.microsoftonline.com/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.microsoftonline.com/common/oauth2/v2.0/authorize"
    static let commonConfiguration = "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration"
    static let commonKeys = "https://login.microsoftonline.com/common/discovery/v2.0/keys"

    static let tenant = "12345678-1234-1234-1234-123456789012"
    static let tenantDiscovery =
        "https://login.microsoftonline.com/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/authorize"
    static let tenantConfiguration = "https://login.microsoftonline.com/\(tenant)/v2.0/.well-known/openid-configuration"

    /// Instance discovery for an AAD authority, as the resolver builds it.
    static func discovery(askedAt discoveryHost: String = "login.microsoftonline.com", authorityOrigin: String, tenant: String) -> String {
        "https://\(discoveryHost)/common/discovery/instance?api-version=1.1&authorization_endpoint=\(authorityOrigin)/\(tenant)/oauth2/v2.0/authorize"
    }
}

// MARK: - Fixtures

/// Files in `Fixtures/`, found relative to this source file.
enum AuthorityFixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Authority
        .deletingLastPathComponent()  // MSALTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures")

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }

    static func authority(_ name: String) throws -> [UInt8] {
        try bytes("Authority/" + name)
    }

    /// The text of a file without its trailing newline.
    static func text(_ path: String) throws -> String {
        String(decoding: try bytes(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An `Authority/` JSON object with members replaced; `NSNull()` writes `null`, `nil` removes the member.
    static func authorityJSON(_ name: String, _ changes: [String: Any?]) throws -> [UInt8] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try authority(name))) as? [String: Any])
        return try json(object, changes)
    }

    /// `object` with `changes` applied (see ``authorityJSON(_:_:)``), serialized.
    static func json(_ object: [String: Any], _ changes: [String: Any?] = [:]) throws -> [UInt8] {
        var object = object
        for (name, value) in changes {
            if let value { object[name] = value } else { object.removeValue(forKey: name) }
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}

// MARK: - Error expectations

/// Checks that `error` is an `MSALFailure` with `.internal` code, `internalCode`, and a message containing every fragment;
/// checks the same through the `NSError` bridge (domain, code, `MSALInternalErrorCodeKey`).
@discardableResult
func checkMSALError(
    _ error: any Error, _ internalCode: MSALInternalError, mentioning fragments: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) -> MSALFailure? {
    guard let msalError = error as? MSALFailure else {
        Issue.record("expected MSALFailure \(internalCode), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(msalError.code == .internal, "code of \(msalError)", sourceLocation: sourceLocation)
    #expect(msalError.internalCode == internalCode, "expected \(internalCode), got \(msalError)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(
            msalError.message.localizedCaseInsensitiveContains(fragment),
            "message \"\(msalError.message)\" does not mention \"\(fragment)\"", sourceLocation: sourceLocation)
    }
    let nsError = error as NSError
    #expect(nsError.domain == MSALErrorDomain, sourceLocation: sourceLocation)
    #expect(nsError.code == MSALError.internal.rawValue, sourceLocation: sourceLocation)
    #expect(nsError.userInfo[MSALInternalErrorCodeKey] as? Int == internalCode.rawValue, sourceLocation: sourceLocation)
    return msalError
}

/// Runs `body` and records an issue unless it throws the expected `MSALFailure` (see ``checkMSALError(_:_:mentioning:sourceLocation:)``).
@discardableResult
func expectMSALError(
    _ internalCode: MSALInternalError, mentioning fragments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> MSALFailure? {
    do {
        try body()
    } catch {
        return checkMSALError(error, internalCode, mentioning: fragments, sourceLocation: sourceLocation)
    }
    Issue.record("expected MSALFailure \(internalCode), but nothing was thrown", sourceLocation: sourceLocation)
    return nil
}

/// The async form of ``expectMSALError(_:mentioning:sourceLocation:_:)``.
@discardableResult
func expectMSALError(
    _ internalCode: MSALInternalError, mentioning fragments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> MSALFailure? {
    do {
        try await body()
    } catch {
        return checkMSALError(error, internalCode, mentioning: fragments, sourceLocation: sourceLocation)
    }
    Issue.record("expected MSALFailure \(internalCode), but nothing was thrown", sourceLocation: sourceLocation)
    return nil
}

/// `URL(string:)` that fails the test instead of crashing when Foundation rejects the text.
func url(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
    try #require(URL(string: text), "Foundation did not parse \(text)", sourceLocation: sourceLocation)
}
