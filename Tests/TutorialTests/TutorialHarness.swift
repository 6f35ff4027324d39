import Foundation
import MSAL
import MSALJOSE
import MSALSupport
import MSALTesting
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if MSAL_TSAN
/// In ThreadSanitizer builds the tutorial's `Mutex` (Synchronization's, whose lock ThreadSanitizer
/// cannot see) is the package's ThreadSanitizer-visible lock: a declaration of this module shadows
/// the imported one (test wiring, like the rest of this file).
typealias Mutex = MSALSupport.Mutex
#endif

/// Runs the tutorial's code against the recorded fixture: replay transport, fixed clock, fixed
/// interactive secrets (the fixture's ID tokens carry the nonce), a `$BROWSER` script that plays
/// the user, and a stub Microsoft Graph.
final class TutorialHarness: Sendable {
    let transport: MSALReplayTransport
    let clock: TutorialClock
    let fixture: MSALFixtureJSON
    /// The `$BROWSER` script (``TutorialBrowser/install()``).
    let browser: String
    private let lines = Mutex<[String]>([])

    init() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Tutorial/tutorial.json")
        transport = try MSALReplayTransport(contentsOf: url)
        fixture = try MSALRecordedFixture(contentsOf: url).conformance ?? .null
        clock = TutorialClock(now: Double(fixture["now"]?.intValue ?? 0))
        browser = try TutorialBrowser.install()
    }

    var homeAccountID: String { fixture["home_account_id"]?.stringValue ?? "" }
    var username: String { fixture["username"]?.stringValue ?? "" }

    /// Gives the configuration the secrets whose nonce the fixture's ID tokens carry, and the
    /// environment with the `$BROWSER` script.
    func wire(_ configuration: MSALPublicClientApplicationConfig) {
        configuration.interactiveSecrets = FixedTutorialSecrets(nonce: fixture["nonce"]?.stringValue ?? "")
        // The tutorial's system browser runs `$BROWSER` (the script that plays the user) from this
        // environment: `setenv` in a parallel test run races every process launch.
        configuration.systemBrowserEnvironment = ProcessInfo.processInfo.environment.merging(["BROWSER": browser]) { _, new in new }
    }

    func record(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var recorded: [String] { lines.withLock { $0 } }

    /// Waits (bounded) until a recorded line starts with `prefix`, and returns it.
    func waitForLine(startingWith prefix: String, after count: Int = 0) async throws -> String {
        for _ in 0..<2000 {
            if let line = lines.withLock({ $0.dropFirst(count).first { $0.hasPrefix(prefix) } }) { return line }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        throw TutorialTimeout(prefix: prefix, lines: recorded)
    }
}

struct TutorialTimeout: Error, CustomStringConvertible {
    var prefix: String
    var lines: [String]
    var description: String { "No line starting with \"\(prefix)\"; lines: \(lines)" }
}

/// A clock the test moves forward; sleeping returns at once.
final class TutorialClock: MSALClock {
    private let seconds: Mutex<Double>

    init(now: Double) {
        seconds = Mutex(now)
    }

    func now() -> Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
    func sleep(seconds: Double) async throws { try Task.checkCancellation() }
    func advance(by delta: Double) { seconds.withLock { $0 += delta } }
}

/// The fixture's nonce, with a real PKCE pair and state (the browser script reads the state from the URL).
struct FixedTutorialSecrets: InteractiveSecretsSource {
    var nonce: String

    func make() throws(JOSEError) -> InteractiveSecrets {
        InteractiveSecrets(pkce: try PKCE.generate(), state: try SecureRandom.urlSafeToken(), nonce: nonce)
    }
}

/// The user in the browser: a `$BROWSER` script that follows the listener's start URL to the sign-in
/// page and answers it by requesting the app's loopback listener with a code and the request's own `state`.
enum TutorialBrowser {
    static func install() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-tutorial-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("browser.py")
        let log = folder.appendingPathComponent("opened.txt")
        let source = """
            #!/usr/bin/env python3
            import sys, urllib.error, urllib.parse, urllib.request
            url = sys.argv[1]
            with open(\(pythonString(log.path)), "a") as f:
                f.write(url + "\\n")
            # swift-msal's single-use start URL on the listener redirects to the sign-in page: read where to.
            class Stay(urllib.request.HTTPRedirectHandler):
                def redirect_request(self, *args):
                    return None
            try:
                urllib.request.build_opener(Stay()).open(url, timeout=10)
                sys.exit("the start URL did not redirect")
            except urllib.error.HTTPError as answer:
                url = answer.headers["Location"]
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
            redirect = query["redirect_uri"][0] + "?" + urllib.parse.urlencode({"code": "tutorial-code", "state": query["state"][0]})
            urllib.request.urlopen(redirect, timeout=10).read()
            """
        try source.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return script.path
    }

    private static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}

/// Microsoft Graph's `/me`, answered by a local server on 127.0.0.1; records the `Authorization`
/// header it was sent.
final class GraphStub: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked Sendable: one handler instance per connection, used only on its channel's event
    // loop; the shared state is `authorizations`, behind a Mutex.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let authorizations = Mutex<[String]>([])

    /// `http://127.0.0.1:<port>/v1.0/me/`, started on first use.
    static let url: String = {
        let bound = Result {
            try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(GraphStub()) }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        }
        guard case .success(let channel) = bound else { fatalError("the Graph stub could not listen: \(bound)") }
        return "http://127.0.0.1:\(channel.localAddress!.port!)/v1.0/me/"
    }()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let header = head.headers.first(name: "Authorization") ?? ""
        Self.authorizations.withLock { $0.append(header) }
        let body = #"{"displayName":"Tutorial User","userPrincipalName":"tutorial.user@contoso.example"}"#
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "\(body.utf8.count)"), ("Connection", "close")])
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
