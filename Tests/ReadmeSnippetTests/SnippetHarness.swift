import Foundation
import MSAL
import MSALTesting

/// What the README's code runs against offline: a recorded fixture answering every request, a
/// clock the test moves, an in-memory (or app-supplied) cache, and a user who signs in at once.
///
/// The README's `initMSAL()` builds the real configuration (Microsoft Entra, the URLSession
/// transport, the default file cache); the tests build the same application through
/// ``application(cache:)`` with the fixture's client id and the offline pieces.
final class SnippetReplay: Sendable {
    let transport: MSALReplayTransport
    let clock: SnippetClock
    let clientID: String
    let homeAccountID: String
    let username: String
    private let nonce: String

    /// Loads `Fixtures/<path>`, whose `conformance` section gives the client id, the clock and the nonce.
    init(fixture path: String) throws {
        let url = RepositoryFiles.url(path)
        transport = try MSALReplayTransport(contentsOf: url)
        let conformance = try MSALRecordedFixture(contentsOf: url).conformance ?? .null
        let setup = conformance["setup"] ?? conformance
        clientID = setup["client_id"]?.stringValue ?? ""
        clock = SnippetClock(now: Double(setup["now"]?.intValue ?? 0))
        homeAccountID = conformance["home_account_id"]?.stringValue ?? ""
        username = conformance["username"]?.stringValue ?? ""
        nonce = conformance["nonce"]?.stringValue ?? ""
    }

    /// The application the README's code is given: `https://login.microsoftonline.com/common`.
    func application(cache: MSALCacheConfig = .memory) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(clientId: clientID)
        config.transport = transport
        config.clock = clock
        config.cacheConfig = cache
        // The fixture's ID tokens carry a fixed nonce; the PKCE pair and state stay random.
        config.interactiveSecrets = FixedNonceSecrets(nonce: nonce)
        return try MSALPublicClientApplication(configuration: config)
    }
}

/// Paths in this repository.
enum RepositoryFiles {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    static func text(_ path: String) throws -> String { try String(contentsOf: url(path), encoding: .utf8) }
}
