import Foundation
import Glibc
import MSAL
import MSALEmulator
import MSALSupport
import Testing

/// The default `MSALCurlTransport` with short timeouts for the requests a test breaks on
/// purpose, and the usual ones for every other request (a short timeout on a healthy request could
/// expire on a loaded machine).
final class FaultDeadlineTransport: MSALHTTPTransport {
    private let inner = MSALCurlTransport()
    private let faultedPath: @Sendable (String) -> Bool
    private let short: MSALHTTPLimits
    /// How many more matching requests get the short limits (`nil`: all of them).
    private let remaining: Mutex<Int?>

    /// `short` applies to requests whose path `faultedPath` accepts; only to the first `times` of
    /// them when given, so that the healthy retry after a fault injected `times` times keeps the
    /// usual limits (a 1 s idle limit on a healthy request expired once on a loaded CI machine).
    init(short: MSALHTTPLimits, times: Int? = nil, faultedPath: @escaping @Sendable (String) -> Bool) {
        self.short = short
        self.remaining = Mutex(times)
        self.faultedPath = faultedPath
    }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        guard faultedPath(request.url.path) else { return try await inner.send(request, limits: limits) }
        let isShort = remaining.withLock { remaining -> Bool in
            guard let count = remaining else { return true }
            remaining = max(count - 1, 0)
            return count > 0
        }
        guard isShort else { return try await inner.send(request, limits: limits) }
        var limits = limits
        limits.connectTimeout = short.connectTimeout
        limits.totalTimeout = short.totalTimeout
        return try await inner.send(request, limits: limits)
    }

    /// A stall is noticed after 3 s without a byte; the whole exchange may take 10 s. The limit must
    /// leave the local provider time to take the request (and with it the fault) before the client
    /// gives up: with 1 s, a CI run under load had the provider route the first request only after
    /// the retry, so the fault injected once stalled the retry instead.
    static let idleLimits = MSALHTTPLimits(connectTimeout: 3, totalTimeout: 10)
    /// Bytes that keep arriving (every 10 ms) never trip the 10 s idle limit; the 3 s total limit
    /// ends them (the trickle lasts 41 s), after the provider took the request, as above.
    static let totalLimits = MSALHTTPLimits(connectTimeout: 10, totalTimeout: 3)
    /// Faults that end by themselves (a closed or reset connection, a cap) keep the default limits:
    /// a short deadline could expire first on a loaded machine.
    static let defaultLimits = MSALHTTPLimits.default
}

/// A wire fault a test injects and what the SDK must make of it.
struct WireFaultCase: Sendable, CustomTestStringConvertible {
    var fault: MSALEmulator.Fault.Response
    var name: String
    var internalCode: MSALInternalError
    /// The limits of the faulted requests.
    var limits: MSALHTTPLimits
    /// A word the error message must contain.
    var messageFragment: String

    /// Whether an idempotent request gets its one retry.
    var isRetried: Bool { internalCode == .networkFailure || internalCode == .networkTimeout }

    var testDescription: String { name }

    static let closeBeforeHeaders = WireFaultCase(
        fault: .closeBeforeHeaders, name: "connection closed before the headers", internalCode: .networkFailure,
        limits: FaultDeadlineTransport.defaultLimits, messageFragment: "failed")
    static let resetMidBody = WireFaultCase(
        fault: .resetMidBody, name: "connection reset mid-body", internalCode: .networkFailure,
        limits: FaultDeadlineTransport.defaultLimits, messageFragment: "failed")
    static let truncatedBody = WireFaultCase(
        fault: .truncatedBody, name: "truncated body (Content-Length larger than the body)", internalCode: .networkFailure,
        limits: FaultDeadlineTransport.defaultLimits, messageFragment: "failed")
    static let stallBeforeHeaders = WireFaultCase(
        fault: .stallBeforeHeaders, name: "headers never sent", internalCode: .networkTimeout,
        limits: FaultDeadlineTransport.idleLimits, messageFragment: "connect/idle timeout")
    static let stallMidBody = WireFaultCase(
        fault: .stallMidBody, name: "body stalls", internalCode: .networkTimeout,
        limits: FaultDeadlineTransport.idleLimits, messageFragment: "connect/idle timeout")
    static let trickle = WireFaultCase(
        fault: .trickle(interval: 0.01), name: "trickling server", internalCode: .networkTimeout,
        limits: FaultDeadlineTransport.totalLimits, messageFragment: "total timeout")
    static let oversizedDeclared = WireFaultCase(
        fault: .oversizedBody(bytes: (1 << 20) + 1, declaresLength: true), name: "oversized body, declared",
        internalCode: .bodyTooLarge, limits: FaultDeadlineTransport.defaultLimits, messageFragment: "1048577")
    static let oversizedChunked = WireFaultCase(
        fault: .oversizedBody(bytes: 2 << 20, declaresLength: false), name: "oversized body, chunked",
        internalCode: .bodyTooLarge, limits: FaultDeadlineTransport.defaultLimits, messageFragment: "over the 1048576-byte limit")

    static let all: [WireFaultCase] = [
        closeBeforeHeaders, resetMidBody, truncatedBody, stallBeforeHeaders, stallMidBody, trickle, oversizedDeclared, oversizedChunked,
    ]
}

/// Where a fault is injected in a flow.
struct FaultedEndpoint: Sendable, CustomTestStringConvertible {
    var endpoint: MSALEmulator.Endpoint
    var grantType: MSALEmulator.GrantType?
    var name: String

    var testDescription: String { name }

    /// Whether a request path goes to this endpoint.
    func matches(_ path: String) -> Bool {
        switch endpoint {
        case .instanceDiscovery: path.hasSuffix("/discovery/instance")
        case .openIDConfiguration: path.hasSuffix("/.well-known/openid-configuration")
        case .keys: path.hasSuffix("/discovery/v2.0/keys") || path.hasSuffix("/discovery/keys")
        case .token: path.hasSuffix("/oauth2/v2.0/token")
        case .deviceCode: path.hasSuffix("/oauth2/v2.0/devicecode")
        default: false
        }
    }

    static let discovery = FaultedEndpoint(endpoint: .instanceDiscovery, name: "instance discovery")
    static let metadata = FaultedEndpoint(endpoint: .openIDConfiguration, name: "OpenID metadata")
    static let keys = FaultedEndpoint(endpoint: .keys, name: "JWKS")
    static let refresh = FaultedEndpoint(endpoint: .token, grantType: .refreshToken, name: "refresh token grant")
    static let codeRedemption = FaultedEndpoint(endpoint: .token, grantType: .authorizationCode, name: "code redemption")
    static let deviceCodeStart = FaultedEndpoint(endpoint: .deviceCode, name: "device authorization")
    static let deviceCodePoll = FaultedEndpoint(endpoint: .token, grantType: .deviceCode, name: "device code poll")

    /// The endpoints a silent refresh in a new application object reaches, in order.
    static let silentRefresh: [FaultedEndpoint] = [discovery, metadata, refresh, keys]
}

/// A file-backed token cache in a fresh directory (tmpfs when there is one), removed by `remove()`.
struct FaultCacheDirectory {
    let path: String

    init() throws {
        var isDirectory: ObjCBool = false
        let shm =
            FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
            && access("/dev/shm", W_OK) == 0
        var template = Array("\(shm ? "/dev/shm" : "/tmp")/msal-faults-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        path = String(cString: made)
    }

    var cacheFile: String { path + "/token_cache.json" }

    /// The cache file's bytes (`nil` when there is none).
    func bytes() -> [UInt8]? {
        FileManager.default.contents(atPath: cacheFile).map { [UInt8]($0) }
    }

    /// Names in the directory, sorted (temporary files show up here).
    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

extension EmulatorHarness {
    /// An application on the file cache at `cachePath`, with the default transport wrapped by
    /// ``FaultDeadlineTransport`` when `short` limits are given for `faulted` requests (for the
    /// first `shortTimes` of them when given).
    func fileApplication(
        cachePath: String, authorityURL: URL? = nil, faulted: FaultedEndpoint? = nil, short: MSALHTTPLimits? = nil,
        shortTimes: Int? = nil
    ) throws -> MSALPublicClientApplication {
        let authority = try authorityURL.map { try MSALAADAuthority(url: $0, options: .allowInsecureLoopback) } ?? self.authority()
        let configuration = MSALPublicClientApplicationConfig(clientId: Self.clientID, redirectUri: nil, authority: authority)
        configuration.cacheConfig = MSALCacheConfig(storage: .file(path: cachePath))
        configuration.clock = clock
        if let faulted, let short {
            configuration.transport = FaultDeadlineTransport(short: short, times: shortTimes, faultedPath: { faulted.matches($0) })
        }
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// How many requests the emulator logged for `endpoint`.
    func count(_ endpoint: FaultedEndpoint) -> Int {
        emulator.requestCount(endpoint.endpoint, grantType: endpoint.grantType)
    }

    /// How many requests the emulator logged for `endpoint`, once there are at least `minimum` or
    /// `seconds` have passed. The emulator logs a request when it has routed it; on a loaded machine
    /// a request the client gave up on (a stall with a 1 s limit) may be routed after the client's
    /// error has returned, so the count is read when it has settled, not at once.
    func settledCount(_ endpoint: FaultedEndpoint, atLeast minimum: Int, within seconds: Double = 15) async -> Int {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var count = self.count(endpoint)
        while count < minimum, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            count = self.count(endpoint)
        }
        return count
    }

    /// Injects `fault` at `endpoint`.
    @discardableResult
    func inject(_ fault: MSALEmulator.Fault.Response, at endpoint: FaultedEndpoint, times: Int? = nil) -> MSALEmulator.Fault.ID {
        emulator.inject(.init(fault, endpoint: endpoint.endpoint, grantType: endpoint.grantType, times: times))
    }
}

/// Runs `body` and returns the `MSALFailure` it throws; records an issue when it returns or throws something else.
func expectMSALError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> MSALFailure? {
    do {
        let value = try await body()
        Issue.record("expected an MSALFailure, got \(value)", sourceLocation: sourceLocation)
    } catch let error as MSALFailure {
        return error
    } catch {
        Issue.record("expected an MSALFailure, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A listening TCP socket on 127.0.0.1 whose accept queue is full, so a new connection is never
/// established: the client's SYN goes unanswered (Linux drops it while the queue is full).
final class BlackholeListener: Sendable {
    let port: Int
    private let listener: Int32
    private let filler: Int32

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, generic, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        // A backlog of 0 admits one connection; this one fills the queue (never accepted).
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let connected =
            filler >= 0
            && withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) == 0 }
            }
        guard connected else {
            let code = errno
            if filler >= 0 { close(filler) }
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        self.listener = listener
        self.filler = filler
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(filler)
        close(listener)
    }
}
